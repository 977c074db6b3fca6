import { describe, expect, it } from 'vitest';
import { fastedgeApp } from '../../../src/kinds/fastedge-app/provider.js';
import { bindProvider } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { KNOWN_AFTER_APPLY, type ResourceChange } from '../../../src/plan/types.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, routesSeen, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { REF } from '../../helpers/ref.js';
import { resource } from '../../helpers/stack.js';

const APPS = '/fastedge/v1/apps';

type App = ResourceAttributes['fastedge_app'];
const block = (attributes: Partial<App>, name = 'edge') => resource('fastedge_app', name, { ensure: 'present', ...attributes } as App);

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const apply = (change: ResourceChange) => bindProvider(providers.resources, change, REF.stack).apply(h.ctx);
const appsNamed = (name: string) => [...emu.state.fastedgeApps.values()].filter((a) => a.name === name);

describe('fastedge_app read by name', () => {
  it("finds the app through the app list's name filter in one request (never the deprecated by-name lookup) and says which identity matched", async () => {
    expect(await fastedgeApp.read(h.ctx, { name: 'edge-router', ensure: 'present' }, REF)).toEqual({
      exists: true,
      state: { app_id: 1300, name: 'edge-router', binary: 502, status: 1, comment: '', url: 'https://edge-router.fastedge.app' },
      foundBy: 'name "edge-router"',
    });
    expect(h.sent).toEqual([{ method: 'GET', path: APPS, query: { name: 'edge-router', limit: 1000, offset: 0, ordering: 'id' } }]);
  });

  it('takes only the app with exactly the name: the filter is a partial, case-insensitive match', async () => {
    expect(await fastedgeApp.read(h.ctx, { name: 'router', ensure: 'present' }, REF)).toEqual({ exists: false });
    expect(routesSeen(emu)).toEqual([`GET ${APPS}`]);
  });

  it('answers a name no app has as not existing', async () => {
    expect(await fastedgeApp.read(h.ctx, { name: 'nothing-here', ensure: 'present' }, REF)).toEqual({ exists: false });
    expect(routesSeen(emu)).toEqual([`GET ${APPS}`]);
  });

  it('reads the app itself when the block found by name declares env (the list items lack it)', async () => {
    expect(await fastedgeApp.read(h.ctx, { name: 'edge-router', env: {}, ensure: 'present' }, REF)).toMatchObject({ exists: true, state: { app_id: 1300 } });
    expect(routesSeen(emu)).toEqual([`GET ${APPS}`, 'GET /fastedge/v1/apps/{app_id}']);
  });

  it('reads env and rsp_headers from the app itself when the block declares them (the list items lack them)', async () => {
    const plan = await planBlocks(h.ctx, [block({ app_id: 1300, env: { UPSTREAM: 'https://origin.example.com' } }), block({ app_id: 1234 }, 'legacy')]);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['no-op', 'no-op']);
    expect(routesSeen(emu)).toEqual([`GET ${APPS}`, 'GET /fastedge/v1/apps/{app_id}']);
  });
});

describe('fastedge_app create', () => {
  const desired = { name: 'new-edge', binary: 777, env: { MODE: 'prod' }, rsp_headers: { 'X-Edge': '1' }, status: 1, comment: 'made by edgeform' } as const;

  it('plans a create for a name no app has: every declared field added, the id known after apply', async () => {
    const change = await planChange(h.ctx, block(desired));
    expect(change).toMatchObject({
      action: 'create',
      before: null,
      after: { app_id: KNOWN_AFTER_APPLY, ...desired },
      payload: { body: desired },
      identity: 'name "new-edge"',
    });
  });

  it('creates the app with one POST of the declared fields, after which the plan is a no-op found by name', async () => {
    const change = await planChange(h.ctx, block(desired));
    await expect(apply(change)).resolves.toBeUndefined();
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([{ method: 'POST', path: APPS, body: desired }]);
    const [app] = appsNamed('new-edge');
    expect(app).toMatchObject({ binary: 777, env: { MODE: 'prod' }, rsp_headers: { 'X-Edge': '1' }, status: 1, comment: 'made by edgeform' });
    expect(await planChange(h.ctx, block(desired))).toMatchObject({ action: 'no-op', identity: 'name "new-edge"', before: { app_id: app!.id } });
  });

  it('sends only the declared fields: an app without status starts as the platform decides (a draft)', async () => {
    await apply(await planChange(h.ctx, block({ name: 'bare-app', binary: 9 })));
    expect(h.sent.find((r) => r.method === 'POST')?.body).toEqual({ name: 'bare-app', binary: 9 });
    expect(appsNamed('bare-app')[0]?.status).toBe(0);
  });

  it('refuses to plan a create without binary, which the platform needs', async () => {
    const plan = await planBlocks(h.ctx, [block({ name: 'no-binary' })]);
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics.map((d) => d.summary)).toEqual(['fastedge_app.edge: creating a fastedge_app needs binary (the id of the WebAssembly binary it runs)']);
  });

  it('never sends the POST twice when its answer is lost: apply reports it unacknowledged and exactly one app exists', async () => {
    emu.faults.dropNext({ method: 'POST', path: APPS, when: 'after' });
    const change = await planChange(h.ctx, block(desired));
    await expect(apply(change)).resolves.toBe('unacknowledged');
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(appsNamed('new-edge')).toHaveLength(1);
  });

  it('fails on a refusal that proves nothing was created (400), with the platform message', async () => {
    const change = await planChange(h.ctx, block(desired));
    emu.state.fastedgeApps.set(5000, { ...emu.state.fastedgeApps.get(1300)!, id: 5000, name: 'new-edge' });
    await expect(apply(change)).rejects.toThrow(/app name "new-edge" is already taken/);
  });
});

describe('fastedge_app update', () => {
  it('diffs only the declared fields, env per variable, and PATCHes only the fields that differ', async () => {
    const change = await planChange(h.ctx, block({ name: 'edge-router', env: { UPSTREAM: 'https://origin.example.com', DEBUG: '1' }, comment: 'router' }));
    expect(change).toMatchObject({ action: 'update', identity: 'name "edge-router"', unchanged_elements: { env: 1 } });
    expect(change.changes).toEqual([
      { path: ['comment'], op: 'update', before: '', after: 'router' },
      { path: ['env', 'DEBUG'], op: 'add', after: '1' },
    ]);
    await apply(change);
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([
      { method: 'PATCH', path: '/fastedge/v1/apps/1300', body: { comment: 'router', env: { UPSTREAM: 'https://origin.example.com', DEBUG: '1' } } },
    ]);
    expect(emu.state.fastedgeApps.get(1300)).toMatchObject({ comment: 'router', env: { UPSTREAM: 'https://origin.example.com', DEBUG: '1' }, binary: 502, status: 1 });
  });

  it('renames an app adopted by id in place (PATCH name); nothing forces a replacement', async () => {
    const change = await planChange(h.ctx, block({ app_id: 1234, name: 'renamed-app', status: 2 }));
    expect(change.action).toBe('update');
    expect(change.changes.every((c) => c.forces_replacement === undefined)).toBe(true);
    await apply(change);
    expect(emu.state.fastedgeApps.get(1234)).toMatchObject({ name: 'renamed-app', status: 2 });
  });

  it('removes env variables the block no longer lists (the declared map is the whole map)', async () => {
    const change = await planChange(h.ctx, block({ app_id: 1300, env: {} }));
    expect(change.changes).toEqual([{ path: ['env', 'UPSTREAM'], op: 'remove', before: 'https://origin.example.com' }]);
    await apply(change);
    expect(emu.state.fastedgeApps.get(1300)!.env).toEqual({});
  });
});

describe('fastedge_app delete by name', () => {
  it('deletes the app its name finds (ensure: absent without app_id), and then plans a no-op', async () => {
    const change = await planChange(h.ctx, block({ name: 'legacy-app', ensure: 'absent' }));
    expect(change).toMatchObject({ action: 'delete', before: { app_id: 1234, name: 'legacy-app', status: 1 }, identity: 'name "legacy-app"' });
    await apply(change);
    expect(emu.state.fastedgeApps.has(1234)).toBe(false);
    expect((await planChange(h.ctx, block({ name: 'legacy-app', ensure: 'absent' }))).action).toBe('no-op');
  });
});
