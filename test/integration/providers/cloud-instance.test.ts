import { describe, expect, it } from 'vitest';
import { ApiConnectionError, InternalServerError } from '../../../src/api/errors.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { cloudInstance } from '../../../src/kinds/cloud-instance/provider.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, routesSeen, type ProviderHarness, useProviderHarness, desiredOf } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const ONE = '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}';
const CHANGEFLAVOR = `${ONE}/changeflavor`;
const MISSING = '00000000-0000-4000-8000-000000000000';

const desired = desiredOf<ResourceAttributes['cloud_instance']>({ project_id: 1, region_id: 76, instance_id: DEMO.instance, flavor_id: 'g2-standard-4-8', ensure: 'present' });

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

describe('cloud_instance read', () => {
  it('observes name, status, flavor and the flavors a resize may move to', async () => {
    expect(await cloudInstance.read(h.ctx, desired(), REF)).toEqual({
      exists: true,
      state: {
        instance_id: DEMO.instance,
        name: 'web-1',
        status: 'ACTIVE',
        flavor_id: 'g2-standard-2-4',
        tags: [],
        attached_volume_ids: [],
        ssh_key_name: 'demo-key',
        fixed_ip_address: '10.0.0.5',
        floating_ip_address: '203.0.113.10',
        available_flavors: ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'],
      },
      lockTaskId: null,
    });
  });

  it('does not ask for available flavors when the flavor already matches', async () => {
    const observed = await cloudInstance.read(h.ctx, desired({ flavor_id: 'g2-standard-2-4' }), REF);
    expect(observed).toMatchObject({ exists: true, state: { flavor_id: 'g2-standard-2-4' } });
    expect(routesSeen(emu)).toEqual([`GET ${ONE}`]);
  });

  it('asks an instance once a run which flavors it may move to from its flavor, and again once it has another flavor', async () => {
    await cloudInstance.read(h.ctx, desired(), REF);
    expect((await cloudInstance.read(h.ctx, desired(), REF)).exists).toBe(true);
    emu.state.instances.get(DEMO.instance)!.flavor_id = 'g2-standard-8-16';
    expect(await cloudInstance.read(h.ctx, desired(), REF)).toMatchObject({
      state: { flavor_id: 'g2-standard-8-16', available_flavors: ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'] },
    });
    expect(routesSeen(emu)).toEqual([`GET ${ONE}`, `GET ${ONE}/available_flavors`, `GET ${ONE}`, `GET ${ONE}`, `GET ${ONE}/available_flavors`]);
  });

  it('answers an instance the platform does not know (404) as not existing', async () => {
    expect(await cloudInstance.read(h.ctx, desired({ instance_id: MISSING }), REF)).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the instance', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await cloudInstance.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 429, retryAfter: 3 });
    expect((await cloudInstance.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([3000]);
  });

  it('plans a flavor the instance cannot move to as an error listing the ones it can', async () => {
    const plan = await planBlocks(h.ctx, [resource('cloud_instance', 'web_vm', desired({ flavor_id: 'g2-standard-32-64' }))]);
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics[0]?.summary).toContain('flavor "g2-standard-32-64" is not available for instance web-1');
    expect(plan.diagnostics[0]?.detail).toBe('Flavors this instance can be resized to: g2-standard-2-4, g2-standard-4-8, g2-standard-8-16.');
  });
});

describe('cloud_instance apply', () => {
  it('resizes with one changeflavor POST, waits on its task, and the instance ends on the new flavor', async () => {
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    expect(change.action).toBe('update');
    await cloudInstance.apply(h.ctx, change);

    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`, body: { flavor_id: 'g2-standard-4-8' } },
    ]);
    expect(h.pollDelays.length).toBeGreaterThan(0);
    const vm = emu.state.instances.get(DEMO.instance)!;
    expect(vm.flavor_id).toBe('g2-standard-4-8');
    expect(vm.task_id).toBeNull();
    expect((await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()))).action).toBe('no-op');
  });

  it('never re-sends a dropped changeflavor: it re-reads and waits on the task found in task_id', async () => {
    emu.faults.dropNext({ method: 'POST', path: CHANGEFLAVOR, when: 'after' });
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    await cloudInstance.apply(h.ctx, change);

    expect(routesSeen(emu, (r) => r === CHANGEFLAVOR)).toEqual([`POST ${CHANGEFLAVOR}`]);
    const resizes = [...emu.state.tasks.values()].filter((t) => t.task_type === 'resize_vm');
    expect(resizes).toHaveLength(1);
    expect(h.progress.some((p) => p.includes(`waiting on the task found on the resource [task ${resizes[0]!.id}]`))).toBe(true);
    expect(emu.requests.some((r) => r.path === `/cloud/v1/tasks/${resizes[0]!.id}`)).toBe(true);
    expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
  });

  it('reports a changeflavor dropped before it reached the platform without sending it twice', async () => {
    emu.faults.dropNext({ method: 'POST', path: CHANGEFLAVOR, when: 'before' });
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    await expect(cloudInstance.apply(h.ctx, change)).rejects.toBeInstanceOf(ApiConnectionError);
    expect(routesSeen(emu, (r) => r === CHANGEFLAVOR)).toEqual([`POST ${CHANGEFLAVOR}`]);
    expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-2-4');
  });
});

describe('cloud_instance apply after a 5xx answer (outcome unknown)', () => {
  for (const status of [502, 500, 504]) {
    it(`never re-sends a changeflavor answered ${status}: it re-reads, finds nothing started, and fails with the original error`, async () => {
      const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
      emu.requests.length = 0;
      emu.faults.failNext({ method: 'POST', path: CHANGEFLAVOR, status });
      const error = await cloudInstance.apply(h.ctx, change).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status, method: 'POST' });
      expect(routesSeen(emu, (r) => r === CHANGEFLAVOR || r === ONE)).toEqual([`POST ${CHANGEFLAVOR}`, `GET ${ONE}`]);
      expect(h.retryDelays).toEqual([]);
      expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-2-4');
    });
  }
});

describe('cloud_instance apply when another task holds the lock during recovery', () => {
  it('never re-sends a changeflavor answered 502: it waits on the lock the re-read found and sends nothing more', async () => {
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    const foreign = await emu.call('POST', `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`, { body: { flavor_id: 'g2-standard-8-16' } });
    const [foreignTask] = foreign.body.tasks as string[];
    emu.faults.failNext({ method: 'POST', path: CHANGEFLAVOR, status: 502 });
    await cloudInstance.apply(h.ctx, change).catch(() => undefined);
    expect(h.sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(h.sent).toContainEqual({ method: 'GET', path: `/cloud/v1/tasks/${foreignTask!}` });
    expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-8-16');
  });
});

describe('provider harness', () => {
  it('records requests made through the convenience methods too (task polls go through api.get)', async () => {
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    await cloudInstance.apply(h.ctx, change);
    const taskId = [...emu.state.tasks.values()].find((t) => t.task_type === 'resize_vm')!.id;
    expect(h.sent).toContainEqual({ method: 'GET', path: `/cloud/v1/tasks/${taskId}` });
  });
});

describe('cloud_instance apply of a change without its payload', () => {
  it('refuses a change without flavor_id and sends nothing', async () => {
    const change = await planChange(h.ctx, resource('cloud_instance', 'web_vm', desired()));
    const { payload: _, ...broken } = change;
    await expect(cloudInstance.apply(h.ctx, broken)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('flavor_id') });
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([]);
  });
});
