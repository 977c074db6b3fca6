/**
 * Apply's reads of many resources of one group go out together: the reads before acting and the
 * confirming re-reads of a wave of actions become list requests (or single GETs, whichever takes
 * fewer), and an instance is asked which flavors it may move to once a run. The guarantees stay:
 * a resource changed since the plan is refused, a lock is waited on, a lagging read is re-read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import type { Sleep } from '../../../src/api/sleep.js';
import { CONFIRM_POLICY, executePlan, type ConfirmPolicy } from '../../../src/apply/executor.js';
import { createApiClient } from '../../../src/api/client.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import { providers } from '../../../src/kinds/providers.js';
import { demoFixtures, planYaml, writesSeen } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';

const FLAVORS = ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'];
const vmId = (n: number) => `2b000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ONE = '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}';
const LIST = '/cloud/v1/instances/{project_id}/{region_id}';
const FLAVOR_ROUTE = `${ONE}/available_flavors`;

let emu: TestEmulator | undefined;
let api: ApiClient | undefined;
closeAfterEach(() => [api, emu]);

/** `count` instances on the first flavor, a stack resizing them all to the second, and a context on the emulator's clock. */
async function resizeWorld(count: number, options: { taskDurationMs?: number; readLagMs?: number; before?: (e: TestEmulator) => Promise<void> } = {}) {
  const fixtures = demoFixtures();
  const blocks: string[] = [];
  for (let n = 1; n <= count; n++) {
    fixtures.instances.push({ id: vmId(n), name: `vm-${n}`, status: 'ACTIVE', flavor_id: FLAVORS[0], available_flavors: FLAVORS });
    blocks.push(`  vm_${n}: { type: cloud_instance, instance_id: ${vmId(n)}, flavor_id: ${FLAVORS[1]} }`);
  }
  const e = await startTestEmulator({ taskDurationMs: options.taskDurationMs ?? 2000, readLagMs: options.readLagMs ?? 0, fixtures });
  emu = e;
  await options.before?.(e);
  const advance: Sleep = async (ms) => void e.clock.advance(ms);
  api = createApiClient({ baseUrl: e.url, apiKey: e.apiKey, maxConcurrentRequests: 10 });
  const ctx = createProviderContext({ api, sleep: advance, now: () => e.clock.now() });
  const plan = await planYaml(ctx, e.url, `version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${blocks.join('\n')}\n`);
  const confirm: ConfirmPolicy = { ...CONFIRM_POLICY, sleep: advance };
  return { emu: e, ctx, plan, confirm };
}

/** Requests by route since index `from` of the request log. */
function routesSince(e: TestEmulator, from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of e.requests.slice(from)) counts.set(`${r.method} ${r.route}`, (counts.get(`${r.method} ${r.route}`) ?? 0) + 1);
  return counts;
}

describe('apply reads the resources of a group together', () => {
  it('resizes 50 instances with one changeflavor each, reading them before and after with a few list requests and no flavor list after the plan', async () => {
    const { emu, ctx, plan, confirm } = await resizeWorld(50);
    const afterPlan = emu.requests.length;

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm });

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(50).fill('applied'));
    const routes = routesSince(emu, afterPlan);
    expect(routes.get(`POST ${ONE}/changeflavor`)).toBe(50);
    expect(routes.get(`GET ${FLAVOR_ROUTE}`)).toBeUndefined();
    expect(routes.get(`GET ${ONE}`)).toBeUndefined();
    // One list read before acting, one (or a few, as the poller notices the tasks) to confirm.
    expect(routes.get(`GET ${LIST}`)).toBeGreaterThanOrEqual(2);
    expect(routes.get(`GET ${LIST}`)).toBeLessThanOrEqual(6);
    for (let n = 1; n <= 50; n++) expect(emu.state.instances.get(vmId(n))!.flavor_id).toBe(FLAVORS[1]);
  });

  it('still refuses, sending nothing for it, an instance resized by someone else since the plan, while the others of its list are resized', async () => {
    const { emu, ctx, plan, confirm } = await resizeWorld(5);
    emu.state.instances.get(vmId(3))!.flavor_id = FLAVORS[2]!;

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm });

    expect(outcome.resources.map((r) => `${r.address} ${r.status}`)).toEqual([
      'cloud_instance.vm_1 applied',
      'cloud_instance.vm_2 applied',
      'cloud_instance.vm_3 failed',
      'cloud_instance.vm_4 applied',
      'cloud_instance.vm_5 applied',
    ]);
    expect(outcome.resources[2]!.error).toContain(`flavor_id: "${FLAVORS[0]}" when planned, now "${FLAVORS[2]}"`);
    expect(writesSeen(emu)).not.toContain(`POST /cloud/v1/instances/1/76/${vmId(3)}/changeflavor`);
    expect(emu.state.instances.get(vmId(3))!.flavor_id).toBe(FLAVORS[2]);
  });

  it('waits for a lock a list answer shows: a resize already under way to the planned flavor is not sent again', async () => {
    let lockId = '';
    const { emu, ctx, plan, confirm } = await resizeWorld(3, {
      before: async (e) => {
        const held = await e.call('POST', `/cloud/v1/instances/1/76/${vmId(2)}/changeflavor`, { body: { flavor_id: FLAVORS[1] } });
        lockId = (held.body.tasks as string[])[0]!;
      },
    });
    expect(plan.resource_changes[1]).toMatchObject({ action: 'update', lock_task_id: lockId });

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm });

    expect(outcome.resources.map((r) => r.status)).toEqual(['applied', 'unchanged', 'applied']);
    expect(outcome.resources[1]!.taskIds).toEqual([lockId]);
    expect([...emu.state.tasks.values()].filter((t) => t.resource_id === vmId(2)).map((t) => t.id)).toEqual([lockId]);
  });

  it('re-reads a wave of resizes together until the new flavors show after the read lag, asking no instance for its flavors again', async () => {
    const { emu, ctx, plan, confirm } = await resizeWorld(4, { taskDurationMs: 0, readLagMs: 1500 });
    const afterPlan = emu.requests.length;

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm });

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(4).fill('applied'));
    const routes = routesSince(emu, afterPlan);
    expect(routes.get(`GET ${FLAVOR_ROUTE}`)).toBeUndefined();
    // Alone, each resize reads once before and three times after (at 0, 0.5 and 1.5 s): 16 reads.
    const reads = (routes.get(`GET ${LIST}`) ?? 0) + (routes.get(`GET ${ONE}`) ?? 0);
    expect(reads).toBeLessThanOrEqual(8);
  });

  it('a flavor withdrawn since the plan is refused by the platform: the resize fails with its answer and is sent once', async () => {
    const { emu, ctx, plan, confirm } = await resizeWorld(2);
    emu.state.instances.get(vmId(1))!.available_flavors = [FLAVORS[0]!];

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm });

    expect(outcome.resources.map((r) => r.status)).toEqual(['failed', 'applied']);
    expect(outcome.resources[0]!.error).toContain(`Flavor ${FLAVORS[1]} is not available for instance ${vmId(1)}`);
    expect(emu.state.instances.get(vmId(1))!.flavor_id).toBe(FLAVORS[0]);
  });
});
