import { describe, expect, it } from 'vitest';
import type { ResourceBlock } from '../../../src/config/types.js';
import { AmbiguousIdentityError } from '../../../src/errors.js';
import { cloudFloatingIp } from '../../../src/kinds/cloud-floating-ip/provider.js';
import type { ResourceRef } from '../../../src/kinds/provider.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { providers } from '../../../src/kinds/providers.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { buildPlan } from '../../../src/plan/planner.js';
import { KNOWN_AFTER_APPLY, type Plan, type ResourceChange } from '../../../src/plan/types.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { routesSeen, useProviderHarness, type ProviderHarness, desiredOf } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';
import { startLoopbackServer } from '../../helpers/loopback-server.js';
import { createApiClient } from '../../../src/api/client.js';
import { createProviderContext } from '../../../src/kinds/context.js';

const LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const ONE = '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const STACK = 'prod';
const WEB: ResourceRef = { address: 'cloud_floating_ip.web', stack: STACK };

const desired = desiredOf<ResourceAttributes['cloud_floating_ip']>({ project_id: 1, region_id: 76, tags: { env: 'prod' }, tags_policy: 'authoritative', ensure: 'present' });

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

/** Puts a floating IP carrying these tags straight into the emulator (as an earlier run's create would have); returns its id. */
async function seed(tags: Record<string, string>): Promise<string> {
  const res = await emu.call('POST', '/cloud/v1/floatingips/1/76', { body: { tags } });
  expect(res.status).toBe(200);
  emu.clock.advance(60_000);
  return [...emu.state.floatingIps.values()].find((f) => f.creator_task_id === res.body.tasks[0])!.id;
}
const owned = (address: string, stack = STACK) => ({ 'edgeform-stack': stack, 'edgeform-address': address });

/** The user and ownership tags of a floating IP in the emulator. */
const tagsOf = (id: string) => Object.fromEntries(emu.state.floatingIps.get(id)!.tags.map((t) => [t.key, t.value]));
const fipsTagged = (address: string) => [...emu.state.floatingIps.values()].filter((f) => f.tags.some((t) => t.key === 'edgeform-address' && t.value === address));

/** Reads and plans blocks as stack "prod" through the real read path and planner. */
async function planAs(blocks: ResourceBlock[], options: { prune?: boolean; name?: string } = {}): Promise<Plan> {
  const stack = { ...stackOf(blocks), name: options.name ?? STACK, prune: options.prune ?? false };
  const observations = await readStack(h.ctx, stack, providers, { parallelism: 4 });
  return buildPlan({
    stack,
    reads: observations.reads,
    checks: observations.checks,
    owned: observations.owned,
    planners: providers.resources,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0-test',
  });
}
async function changeOf(attributes: ResourceAttributes['cloud_floating_ip'], name = 'web'): Promise<ResourceChange<'cloud_floating_ip'>> {
  const plan = await planAs([resource('cloud_floating_ip', name, attributes)]);
  if (plan.errored) throw new Error(plan.diagnostics.map((d) => d.summary).join('; '));
  return plan.resource_changes.find((c) => c.address === `cloud_floating_ip.${name}`) as ResourceChange<'cloud_floating_ip'>;
}

describe('cloud_floating_ip found by its ownership tags', () => {
  it('reads a block without id as absent when no floating IP carries its stack and address, with one filtered list request', async () => {
    await seed(owned('cloud_floating_ip.web', 'staging'));
    await seed(owned('cloud_floating_ip.other'));
    emu.requests.length = 0;
    expect(await cloudFloatingIp.read(h.ctx, desired(), WEB)).toEqual({ exists: false });
    expect(routesSeen(emu)).toEqual([`GET ${LIST}`]);
    expect(h.sent[h.sent.length - 1]!.query).toMatchObject({ tag_key_value: JSON.stringify(owned('cloud_floating_ip.web')) });
  });

  it('finds the one floating IP carrying edgeform-stack and edgeform-address, and says so', async () => {
    const id = await seed(owned('cloud_floating_ip.web'));
    const observed = await cloudFloatingIp.read(h.ctx, desired(), WEB);
    expect(observed).toMatchObject({ exists: true, foundBy: 'ownership tags of stack "prod"', state: { floating_ip_id: id } });
  });

  it('refuses two floating IPs carrying the same ownership tags, naming both ids', async () => {
    const a = await seed(owned('cloud_floating_ip.web'));
    const b = await seed(owned('cloud_floating_ip.web'));
    const error = await cloudFloatingIp.read(h.ctx, desired(), WEB).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousIdentityError);
    expect([...(error as AmbiguousIdentityError).candidates].sort()).toEqual([a, b].sort());
    expect((error as Error).message).toContain('set floating_ip_id in the block to pick one');
  });
});

describe('cloud_floating_ip create', () => {
  it('plans a create whose request carries the user tags and the two ownership tags, with the id known after apply', () => {
    const plan = cloudFloatingIp.create!.plan(desired({ tags: { env: 'prod', gone: null } }), WEB);
    expect(plan).toMatchObject({
      action: 'create',
      after: { floating_ip_id: KNOWN_AFTER_APPLY, project_id: 1, region_id: 76, tags: { env: 'prod' } },
      payload: { tags: { env: 'prod', 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web' } },
      errors: [],
    });
    expect(JSON.stringify(plan.changes)).not.toContain('edgeform-');
    expect(cloudFloatingIp.create!.identity(desired(), WEB)).toBe('ownership tags of stack "prod"');
    expect(cloudFloatingIp.create!.identity(desired({ floating_ip_id: DEMO.fip }), WEB)).toBeNull();
  });

  it('refuses to plan a create without the stack name (the tags could never find it again)', () => {
    expect(cloudFloatingIp.create!.plan(desired(), { address: 'cloud_floating_ip.web', stack: null }).errors).toHaveLength(1);
  });

  it('sends one POST with the ownership tags, waits on its task, reports the created id; a fresh plan then finds it and is a no-op', async () => {
    const change = await changeOf(desired());
    expect(change).toMatchObject({ action: 'create', identity: 'ownership tags of stack "prod"' });
    await cloudFloatingIp.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/cloud/v1/floatingips/1/76', body: { tags: { env: 'prod', 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web' } } },
    ]);
    const [made] = fipsTagged('cloud_floating_ip.web');
    expect(made?.task_id).toBeNull();
    expect(h.progress).toContain(`created floating IP ${made!.id}`);
    const again = await changeOf(desired());
    expect(again).toMatchObject({ action: 'no-op', identity: 'ownership tags of stack "prod"', before: { floating_ip_id: made!.id, tags: { env: 'prod' } } });
  });

  it('a create whose answer was lost after the platform acted is never sent twice: it finds the IP by its tags and waits on its create task', async () => {
    emu.faults.dropNext({ method: 'POST', path: LIST, when: 'after' });
    const change = await changeOf(desired());
    const result = await cloudFloatingIp.apply(h.ctx, change);
    expect(result).toBe('unacknowledged');
    expect(routesSeen(emu, (r) => r === LIST).filter((r) => r.startsWith('POST'))).toEqual([`POST ${LIST}`]);
    expect(fipsTagged('cloud_floating_ip.web')).toHaveLength(1);
    expect(fipsTagged('cloud_floating_ip.web')[0]!.task_id).toBeNull();
  });

  it('a create whose request never reached the platform fails without a second POST when nothing carries its tags', async () => {
    emu.faults.failNext({ method: 'POST', path: LIST, status: 502 });
    const change = await changeOf(desired());
    await expect(cloudFloatingIp.apply(h.ctx, change)).rejects.toMatchObject({ status: 502 });
    expect(h.sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(fipsTagged('cloud_floating_ip.web')).toHaveLength(0);
  });
});

describe('cloud_floating_ip update and delete of a block found by its tags', () => {
  it('patches the tags of the IP its identity found, never its ownership tags, even with authoritative tags {}', async () => {
    const id = await seed({ ...owned('cloud_floating_ip.web'), env: 'dev', team: 'edge' });
    const change = await changeOf(desired({ tags: {} }));
    expect(change.action).toBe('update');
    expect(change.changes.map((c) => c.path.join('.'))).toEqual(['tags.env', 'tags.team']);
    expect(change.payload).toEqual({ tags_patch: { env: null, team: null } });
    await cloudFloatingIp.apply(h.ctx, change);
    expect(tagsOf(id)).toEqual(owned('cloud_floating_ip.web'));
    expect((await changeOf(desired({ tags: {} }))).action).toBe('no-op');
  });

  it('ensure: absent without id deletes what the tags find (DELETE once, waiting on its task), and then plans a no-op', async () => {
    const id = await seed(owned('cloud_floating_ip.web'));
    const change = await changeOf(desired({ ensure: 'absent' }));
    expect(change).toMatchObject({ action: 'delete', before: { floating_ip_id: id } });
    await cloudFloatingIp.apply(h.ctx, change);
    expect(routesSeen(emu, (r) => r === ONE).filter((r) => r.startsWith('DELETE'))).toEqual([`DELETE ${ONE}`]);
    expect(emu.state.floatingIps.has(id)).toBe(false);
    expect((await changeOf(desired({ ensure: 'absent' }))).action).toBe('no-op');
  });

  it('a delete of an IP already gone (404) is done', async () => {
    const change = await changeOf(desired({ floating_ip_id: DEMO.fipDown, ensure: 'absent' }));
    emu.state.floatingIps.delete(DEMO.fipDown);
    await expect(cloudFloatingIp.apply(h.ctx, change)).resolves.toBeUndefined();
  });

  it('a delete whose answer was lost finds the IP locked by its delete task, waits, and sends no second DELETE', async () => {
    const change = await changeOf(desired({ floating_ip_id: DEMO.fipDown, ensure: 'absent' }));
    emu.faults.dropNext({ method: 'DELETE', path: ONE, when: 'after' });
    await cloudFloatingIp.apply(h.ctx, change);
    expect(routesSeen(emu, (r) => r === ONE).filter((r) => r.startsWith('DELETE'))).toEqual([`DELETE ${ONE}`]);
    expect(emu.state.floatingIps.has(DEMO.fipDown)).toBe(false);
  });
});

describe('cloud_floating_ip apply of an action it does not have', () => {
  it('refuses a replace (no field forces one) and a delete turned into a create without its payload, sending nothing', async () => {
    const change = await changeOf(desired({ floating_ip_id: DEMO.fip }));
    const before = h.sent.length;
    await expect(cloudFloatingIp.apply(h.ctx, { ...change, action: 'replace' })).rejects.toMatchObject({
      code: 'EDGEFORM_PLAN_PAYLOAD',
      message: expect.stringContaining('replace'),
    });
    const { payload: _payload, ...bare } = change;
    await expect(cloudFloatingIp.apply(h.ctx, { ...bare, action: 'create' })).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
    expect(h.sent.slice(before)).toEqual([]);
  });
});

describe('cloud_floating_ip prune listing', () => {
  it('lists every IP carrying ownership tags (of any stack) in the places the blocks name, with the stack and address its tags name, ready to delete', async () => {
    const a = await seed(owned('cloud_floating_ip.a'));
    const b = await seed(owned('cloud_floating_ip.b'));
    const c = await seed(owned('cloud_floating_ip.c', 'staging'));
    await seed({ env: 'prod' });
    const listed = await cloudFloatingIp.ownership!.list(h.ctx, [desired(), desired({ floating_ip_id: DEMO.fip })]);
    expect(listed.map((r) => [r.stack, r.address, r.place, r.desired.floating_ip_id, r.desired.ensure]).sort()).toEqual(
      [
        [STACK, 'cloud_floating_ip.a', '1/76', a, 'absent'],
        [STACK, 'cloud_floating_ip.b', '1/76', b, 'absent'],
        ['staging', 'cloud_floating_ip.c', '1/76', c, 'absent'],
      ].sort(),
    );
    // One place (project 1, region 76): one list request.
    expect(h.sent.filter((r) => r.path === '/cloud/v1/floatingips/1/76')).toHaveLength(1);
  });

  it("prune plans the destroy of a tagged IP no block declares, first, and leaves untagged and other stacks' IPs alone", async () => {
    const gone = await seed(owned('cloud_floating_ip.old'));
    await seed(owned('cloud_floating_ip.old', 'staging'));
    const plan = await planAs([resource('cloud_floating_ip', 'web', desired())], { prune: true });
    expect(plan.errored).toBe(false);
    expect(plan.resource_changes.map((c) => [c.address, c.action, c.pruned ?? false])).toEqual([
      ['cloud_floating_ip.old', 'delete', true],
      ['cloud_floating_ip.web', 'create', false],
    ]);
    expect(plan.resource_changes[0]!.before).toMatchObject({ floating_ip_id: gone });
  });
});

describe('cloud_floating_ip against a platform that ignores the tag filter', () => {
  const item = (id: string, tags: Record<string, string>) => ({
    id,
    floating_ip_address: '203.0.113.50',
    status: 'DOWN',
    task_id: null,
    tags: Object.entries(tags).map(([key, value]) => ({ key, value, read_only: false })),
  });
  const MINE = '11111111-1111-4111-8111-111111111111';
  const OTHER = '22222222-2222-4222-8222-222222222222';
  const UNTAGGED = '33333333-3333-4333-8333-333333333333';

  it('takes only the items that carry the tags: the block finds its own IP, the ownership listing only tagged ones', async () => {
    // Answers every floating IP of the project whatever the query says.
    const results = [item(OTHER, owned('cloud_floating_ip.web', 'staging')), item(UNTAGGED, { env: 'prod' }), item(MINE, owned('cloud_floating_ip.web'))];
    const server = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ count: results.length, results }));
    });
    const api = createApiClient({ baseUrl: server.url, apiKey: 'k$ey', random: () => 0 });
    try {
      const ctx = createProviderContext({ api });
      expect(await cloudFloatingIp.read(ctx, desired(), WEB)).toMatchObject({ exists: true, state: { floating_ip_id: MINE } });
      const listed = await cloudFloatingIp.ownership!.list(ctx, [desired()]);
      expect(listed.map((r) => [r.stack, r.desired.floating_ip_id])).toEqual([
        ['staging', OTHER],
        [STACK, MINE],
      ]);
    } finally {
      await api.close();
      await server.close();
    }
  });
});
