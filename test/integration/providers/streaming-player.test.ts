import { describe, expect, it } from 'vitest';
import { streamingPlayer } from '../../../src/kinds/streaming-player/provider.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';

const ONE = '/streaming/players/{player_id}';

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => {
  emu = e;
  h = harness;
});

const absent = resource('streaming_player', 'old_player', { player_id: 55, ensure: 'absent' });

describe('streaming_player read', () => {
  it('observes the player name', async () => {
    expect(await streamingPlayer.read(h.ctx, { player_id: 55, ensure: 'present' })).toEqual({ exists: true, state: { player_id: 55, name: 'old-player' } });
  });

  it('answers a player the platform does not know (404) as not existing', async () => {
    expect(await streamingPlayer.read(h.ctx, { player_id: 9999, ensure: 'present' })).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the player', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await streamingPlayer.read(h.ctx, { player_id: 55, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 429, retryAfter: 5 });
    expect((await streamingPlayer.read(h.ctx, { player_id: 55, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([5000]);
  });
});

describe('streaming_player apply', () => {
  it('deletes a player planned for deletion, and the platform no longer has it', async () => {
    const change = await planChange(h.ctx, absent);
    expect(change.action).toBe('delete');
    expect(change.before).toEqual({ player_id: 55, name: 'old-player' });
    await streamingPlayer.apply(h.ctx, change);
    expect(emu.state.players.has(55)).toBe(false);
    expect(emu.state.players.has(60)).toBe(true);
  });

  it('counts a 404 on delete as done: someone deleted the player since the plan', async () => {
    const change = await planChange(h.ctx, absent);
    emu.state.players.delete(55);
    await expect(streamingPlayer.apply(h.ctx, change)).resolves.toBeUndefined();
    expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([404]);
  });
});
