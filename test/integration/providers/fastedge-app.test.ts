import { describe, expect, it } from 'vitest';
import { fastedgeApp } from '../../../src/kinds/fastedge-app/provider.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, routesSeen, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';

const ONE = '/fastedge/v1/apps/{app_id}';

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => {
  emu = e;
  h = harness;
});

const absent = resource('fastedge_app', 'legacy_app', { app_id: 1234, ensure: 'absent' });

describe('fastedge_app read', () => {
  it('observes the app name and status', async () => {
    expect(await fastedgeApp.read(h.ctx, { app_id: 1234, ensure: 'present' })).toEqual({ exists: true, state: { app_id: 1234, name: 'legacy-app', status: 1 } });
  });

  it('answers an app the platform does not know (404 with no body) as not existing', async () => {
    expect(await fastedgeApp.read(h.ctx, { app_id: 9999, ensure: 'present' })).toEqual({ exists: false });
  });

  it('retries a text/plain 503 once with one recorded backoff and then reads the app', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await fastedgeApp.read(h.ctx, { app_id: 1234, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 429, retryAfter: 4 });
    expect((await fastedgeApp.read(h.ctx, { app_id: 1234, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([4000]);
  });
});

describe('fastedge_app apply', () => {
  it('deletes an app planned for deletion, and the platform no longer has it', async () => {
    const change = await planChange(h.ctx, absent);
    expect(change.action).toBe('delete');
    expect(change.before).toEqual({ app_id: 1234, name: 'legacy-app', status: 1 });
    await fastedgeApp.apply(h.ctx, change);
    expect(emu.state.fastedgeApps.has(1234)).toBe(false);
    expect(emu.state.fastedgeApps.has(1300)).toBe(true);
    expect((await planChange(h.ctx, absent)).action).toBe('no-op');
  });

  it('counts a 404 on delete as done: someone deleted the app since the plan', async () => {
    const change = await planChange(h.ctx, absent);
    emu.state.fastedgeApps.delete(1234);
    await expect(fastedgeApp.apply(h.ctx, change)).resolves.toBeUndefined();
    expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([404]);
  });

  it('finishes a delete whose answer was lost: the retried DELETE finds the app gone (404) and counts it done', async () => {
    emu.faults.dropNext({ method: 'DELETE', path: ONE, when: 'after' });
    const change = await planChange(h.ctx, absent);
    await expect(fastedgeApp.apply(h.ctx, change)).resolves.toBeUndefined();
    expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([0, 404]);
    expect(emu.state.fastedgeApps.has(1234)).toBe(false);
  });

  it('plans an app that is already gone as a no-op noted "already absent"', async () => {
    emu.state.fastedgeApps.delete(1234);
    const change = await planChange(h.ctx, absent);
    expect(change).toMatchObject({ action: 'no-op', before: null, notes: ['already absent'] });
    expect(routesSeen(emu)).toEqual([`GET ${ONE}`]);
  });
});

describe('fastedge_app apply of anything but a delete', () => {
  it('refuses an update (a tampered plan) instead of deleting the app', async () => {
    const change = await planChange(h.ctx, absent);
    await expect(fastedgeApp.apply(h.ctx, { ...change, action: 'update' })).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
    expect(emu.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(emu.state.fastedgeApps.has(1234)).toBe(true);
  });
});
