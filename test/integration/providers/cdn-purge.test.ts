import { afterEach, describe, expect, it } from 'vitest';
import { sendPurge } from '../../../src/kinds/cdn-purge.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { createProviderHarness, type ProviderHarness } from '../../helpers/providers.js';

/** A CDN resource to purge: id 1 (the test adds it to the demo world). */
async function withResource(emu: TestEmulator): Promise<number> {
  const response = await fetch(`${emu.url}/cdn/resources`, {
    method: 'POST',
    headers: { authorization: `APIKey ${emu.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ cname: 'cdn.purge.example', origin: 'origin.purge.example' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

const purgeLog = (emu: TestEmulator, id: number) => emu.requests.filter((r) => r.path === `/cdn/resources/${id}/purge`).map((r) => ({ status: r.status, time: r.time }));

describe('sendPurge: the platform limits, kept on the emulator clock', () => {
  let emu: TestEmulator | undefined;
  let h: ProviderHarness | undefined;
  closeAfterEach(() => [h, emu]);

  it('splits 25 patterns into requests of 10 and sends one a minute, never answered 429', async () => {
    emu = await startTestEmulator();
    const id = await withResource(emu);
    h = createProviderHarness(emu);
    const patterns = Array.from({ length: 25 }, (_, i) => `/p${i}/*`);
    const bodies = await sendPurge(h.ctx, id, { type: 'paths', items: patterns });
    expect(bodies.map((b) => ('paths' in b ? b.paths.length : 0))).toEqual([10, 10, 5]);
    const log = purgeLog(emu, id);
    expect(log.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(log[1]!.time - log[0]!.time).toBeGreaterThanOrEqual(60_000);
    expect(log[2]!.time - log[1]!.time).toBeGreaterThanOrEqual(60_000);
    expect(h.providerSleeps).toEqual([60_000, 60_000]);
    expect(emu.state.cdnPurges.map((p) => p.items.length)).toEqual([10, 10, 5]);
  });

  it('sends 250 URLs as three requests of at most 100, two a minute', async () => {
    emu = await startTestEmulator();
    const id = await withResource(emu);
    h = createProviderHarness(emu);
    const urls = Array.from({ length: 250 }, (_, i) => `/file-${i}.js`);
    await sendPurge(h.ctx, id, { type: 'urls', items: urls });
    expect(purgeLog(emu, id).map((r) => r.status)).toEqual([201, 201, 201]);
    expect(emu.state.cdnPurges.map((p) => p.items.length)).toEqual([100, 100, 50]);
    expect(h.providerSleeps).toEqual([60_000]);
  });

  it('waits out a 429 (Retry-After) when another run purged the resource just before, then sends again', async () => {
    emu = await startTestEmulator();
    const id = await withResource(emu);
    const other = createProviderHarness(emu);
    await sendPurge(other.ctx, id, { type: 'all' });
    await other.close();
    emu.clock.advance(20_000);
    h = createProviderHarness(emu);
    await sendPurge(h.ctx, id, { type: 'all' });
    expect(purgeLog(emu, id).map((r) => r.status)).toEqual([201, 429, 201]);
    // The platform said 40 s are left of the minute; that is what was waited.
    expect(h.providerSleeps).toEqual([40_000]);
    expect(h.progress.some((line) => line.includes('(429): waiting 40s'))).toBe(true);
  });
});
