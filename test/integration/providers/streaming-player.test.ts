import { describe, expect, it } from 'vitest';
import { AmbiguousIdentityError } from '../../../src/errors.js';
import { bindProvider } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { streamingPlayer } from '../../../src/kinds/streaming-player/provider.js';
import { KNOWN_AFTER_APPLY, type ResourceChange } from '../../../src/plan/types.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, routesSeen, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { REF } from '../../helpers/ref.js';
import { resource } from '../../helpers/stack.js';

const PLAYERS = '/streaming/players';

type Player = ResourceAttributes['streaming_player'];
const block = (attributes: Partial<Player>, name = 'main') => resource('streaming_player', name, { ensure: 'present', ...attributes } as Player);

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const apply = (change: ResourceChange) => bindProvider(providers.resources, change, REF.stack).apply(h.ctx);
const playersNamed = (name: string) => [...emu.state.players.values()].filter((p) => p.name === name);
/** Adds players to the emulator's world (ids from 100 up). */
const addPlayers = (...names: string[]) => names.forEach((name, i) => emu.state.players.set(100 + i, { id: 100 + i, name, client_id: 1 }));

describe('streaming_player read by name', () => {
  it('finds the one player with the name through the player list, read to its end, and says which identity matched', async () => {
    const observed = await streamingPlayer.read(h.ctx, { name: 'main-player', ensure: 'present' }, REF);
    expect(observed).toMatchObject({
      exists: true,
      foundBy: 'name "main-player"',
      state: { player_id: 60, name: 'main-player', bg_color: '#000000', autoplay: false, logo: null },
    });
    expect(h.sent).toEqual([1, 2].map((page) => ({ method: 'GET', path: PLAYERS, query: { page } })));
  });

  it('reads every page: a player on the third page of 25 is found', async () => {
    addPlayers(...Array.from({ length: 60 }, (_, i) => `filler-${i}`));
    emu.state.players.set(900, { id: 900, name: 'far-away', client_id: 1 });
    expect(await streamingPlayer.read(h.ctx, { name: 'far-away', ensure: 'present' }, REF)).toMatchObject({ exists: true, state: { player_id: 900 } });
    expect(routesSeen(emu)).toEqual(Array(4).fill(`GET ${PLAYERS}`));
  });

  it('answers a name no player has as not existing', async () => {
    expect(await streamingPlayer.read(h.ctx, { name: 'nobody', ensure: 'present' }, REF)).toEqual({ exists: false });
  });

  it('refuses a name two players share, naming both ids (the platform does not keep names unique)', async () => {
    addPlayers('twin', 'twin');
    const read = streamingPlayer.read(h.ctx, { name: 'twin', ensure: 'present' }, REF);
    await expect(read).rejects.toBeInstanceOf(AmbiguousIdentityError);
    await expect(read).rejects.toThrow('2 streaming_player resources match name "twin": ids 100, 101; set player_id in the block to pick one (or remove the others)');
  });
});

describe('streaming_player create', () => {
  const desired = { name: 'brand-player', bg_color: '#112233', autoplay: true, logo: 'https://cdn.example.com/logo.png', logo_position: 'tr' } as const;

  it('plans a create for a name no player has: every declared setting added, the id known after apply', async () => {
    expect(await planChange(h.ctx, block(desired))).toMatchObject({
      action: 'create',
      after: { player_id: KNOWN_AFTER_APPLY, ...desired },
      payload: { body: { player: desired } },
      identity: 'name "brand-player"',
    });
  });

  it('creates the player with one POST {"player": ...} of the declared settings, after which the plan is a no-op found by name', async () => {
    await expect(apply(await planChange(h.ctx, block(desired)))).resolves.toBeUndefined();
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([{ method: 'POST', path: PLAYERS, body: { player: desired } }]);
    const [player] = playersNamed('brand-player');
    expect(player).toMatchObject({ ...desired, mute: false, show_sharing: true });
    expect(await planChange(h.ctx, block(desired))).toMatchObject({ action: 'no-op', identity: 'name "brand-player"', before: { player_id: player!.id } });
  });

  it('never sends the POST twice when its answer is lost: apply reports it unacknowledged and exactly one player exists', async () => {
    emu.faults.dropNext({ method: 'POST', path: PLAYERS, when: 'after' });
    await expect(apply(await planChange(h.ctx, block(desired)))).resolves.toBe('unacknowledged');
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(playersNamed('brand-player')).toHaveLength(1);
  });
});

describe('streaming_player update', () => {
  it('diffs only the declared settings and PATCHes the changed ones with the name the vendor schema requires', async () => {
    const change = await planChange(h.ctx, block({ name: 'main-player', autoplay: true, fg_color: '#FFFFFF', logo_position: 'bl' }));
    expect(change).toMatchObject({ action: 'update', identity: 'name "main-player"' });
    expect(change.changes).toEqual([
      { path: ['autoplay'], op: 'update', before: false, after: true },
      { path: ['logo_position'], op: 'update', before: null, after: 'bl' },
    ]);
    await apply(change);
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([
      { method: 'PATCH', path: '/streaming/players/60', body: { player: { name: 'main-player', autoplay: true, logo_position: 'bl' } } },
    ]);
    expect(emu.state.players.get(60)).toMatchObject({ autoplay: true, logo_position: 'bl', bg_color: '#000000' });
  });

  it('clears a logo position the block sets to null: the plan shows it going to null, the PATCH sends the blank the vendor schema allows, and the next plan is a no-op', async () => {
    emu.state.players.get(60)!.logo_position = 'tr';
    const change = await planChange(h.ctx, block({ name: 'main-player', logo_position: null }));
    expect(change).toMatchObject({ action: 'update', before: { logo_position: 'tr' }, after: { logo_position: null } });
    expect(change.changes).toEqual([{ path: ['logo_position'], op: 'update', before: 'tr', after: null }]);
    await apply(change);
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([{ method: 'PATCH', path: '/streaming/players/60', body: { player: { name: 'main-player', logo_position: '' } } }]);
    expect(emu.state.players.get(60)).not.toHaveProperty('logo_position');
    expect((await planChange(h.ctx, block({ name: 'main-player', logo_position: null }))).action).toBe('no-op');
  });

  it('creates a player whose block says logo_position: null without sending the field (the platform default is none)', async () => {
    await apply(await planChange(h.ctx, block({ name: 'plain-player', logo_position: null })));
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([{ method: 'POST', path: PLAYERS, body: { player: { name: 'plain-player' } } }]);
    expect(playersNamed('plain-player')[0]).not.toHaveProperty('logo_position');
  });

  it('renames a player adopted by id in place', async () => {
    await apply(await planChange(h.ctx, block({ player_id: 55, name: 'renamed' })));
    expect(emu.state.players.get(55)?.name).toBe('renamed');
    expect(h.sent.find((r) => r.method === 'PATCH')?.body).toEqual({ player: { name: 'renamed' } });
  });
});

describe('streaming_player delete by name', () => {
  it('deletes the player its name finds (ensure: absent without player_id), and then plans a no-op', async () => {
    const change = await planChange(h.ctx, block({ name: 'old-player', ensure: 'absent' }));
    expect(change).toMatchObject({ action: 'delete', before: { player_id: 55, name: 'old-player' } });
    await apply(change);
    expect(emu.state.players.has(55)).toBe(false);
    expect((await planChange(h.ctx, block({ name: 'old-player', ensure: 'absent' }))).action).toBe('no-op');
  });

  it('is a plan error naming both ids when two players share the name', async () => {
    addPlayers('twin', 'twin');
    const plan = await planBlocks(h.ctx, [block({ name: 'twin', ensure: 'absent' })]);
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics[0]?.summary).toContain('ids 100, 101');
  });
});
