import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import { executePlan, type ApplyHooks, type ConfirmPolicy, type ExecuteOptions } from '../../../src/apply/executor.js';
import { countOutcome, succeeded, type ApplyOutcome } from '../../../src/apply/outcome.js';
import type { EmulatorOptions } from '../../../src/emulator/index.js';
import { startTask } from '../../../src/emulator/tasks.js';
import type { Plan } from '../../../src/plan/types.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { connectTo, driveTasks, extraFipBlocks, extraFipId, planYaml, withExtraFloatingIps, writesSeen } from '../../helpers/apply.js';
import { DEMO, startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { waitFor } from '../../helpers/wait.js';

const HEADER = 'version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n';
const WEB_IP = `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge } }\n`;
const WEB_VM = `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }\n`;
const CLUSTER_AFTER_VM = '  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.30.6, depends_on: [cloud_instance.web_vm] }\n';
/** Two upgrade steps from the demo cluster's v1.29.8: v1.30.6, then v1.31.3. */
const CLUSTER_LATEST = '  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.31.3 }\n';
const UPGRADE_POST = 'POST /cloud/v2/k8s/clusters/1/76/prod-eu/upgrade';
const RESIZE_POST = `POST /cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;

/** Confirmation re-reads that never wait on the wall clock. */
const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };

/** Records starts and finishes as "start A" and "finish A status", and the task ids each action reported. */
function recordingHooks(): ApplyHooks & { events: string[]; running: Set<string>; maxRunning: number; taskIds: Map<string, readonly string[]> } {
  const hooks = {
    events: [] as string[],
    running: new Set<string>(),
    maxRunning: 0,
    taskIds: new Map<string, readonly string[]>(),
    onProgress(change: { address: string }, _message: string, taskIds: readonly string[]) {
      hooks.taskIds.set(change.address, [...taskIds]);
    },
    onStart(change: { address: string }) {
      hooks.events.push(`start ${change.address}`);
      hooks.running.add(change.address);
      hooks.maxRunning = Math.max(hooks.maxRunning, hooks.running.size);
    },
    onFinish(change: { address: string }, outcome: { status: string }) {
      hooks.events.push(`finish ${change.address} ${outcome.status}`);
      hooks.running.delete(change.address);
    },
  };
  return hooks;
}

const userTagsOf = (emu: TestEmulator, id: string) =>
  Object.fromEntries(
    emu.state.floatingIps
      .get(id)!
      .tags.filter((t) => !t.read_only)
      .map((t) => [t.key, t.value]),
  );
const taskOf = (emu: TestEmulator, resourceId: string) => [...emu.state.tasks.values()].filter((t) => t.resource_id === resourceId);

/**
 * Locks the demo floating IP with a task of another type than the provider's own update (the
 * platform runs several kinds of task on an IP; the emulator's routes start only
 * update_floating_ip): detaches it from its port, leaving the tags alone.
 */
function lockFipWithPortTask(emu: TestEmulator): string {
  const task = startTask(
    emu.state,
    {
      taskType: 'detach_floating_ip',
      kind: 'floating_ip',
      resourceId: DEMO.fip,
      projectId: 1,
      regionId: 76,
      effect: { type: 'update_floating_ip', port: { port_id: null, fixed_ip_address: null } },
      data: { port_id: null },
      requestId: 'test-detach',
    },
    emu.clock.now(),
    2000,
  );
  return task.id;
}

describe('executePlan against the emulator', () => {
  let emu: TestEmulator | undefined;
  let api: ApiClient | undefined;

  closeAfterEach(() => [api, emu]);

  async function setUp(options: EmulatorOptions, yaml: string, abort?: AbortController): Promise<{ emu: TestEmulator; ctx: ProviderContext; plan: Plan }> {
    emu = await startTestEmulator(options);
    const connected = connectTo(emu, abort?.signal);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + yaml);
    emu.requests.length = 0;
    return { emu, ctx: connected.ctx, plan };
  }

  const execute = (options: Pick<ExecuteOptions, 'plan' | 'ctx'> & Partial<ExecuteOptions>): Promise<ApplyOutcome> =>
    executePlan({ providers: providers.resources, maxTasks: 10, confirm: quickConfirm, ...options });

  /**
   * Starts an emulator, takes a platform lock with `lock` (which returns the lock task id),
   * plans `yaml` and starts executing it; resolves once the executor polls the lock task.
   */
  async function executeBehindLock(options: EmulatorOptions, lock: (emu: TestEmulator) => Promise<string>, yaml: string, extra: Partial<ExecuteOptions> = {}) {
    emu = await startTestEmulator(options);
    const lockId = await lock(emu);
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + yaml);
    emu.requests.length = 0;
    const run = execute({ plan, ctx: connected.ctx, ...extra });
    await waitFor(() => emu!.requests.some((r) => r.path === `/cloud/v1/tasks/${lockId}`), { what: 'a poll of the lock task' });
    return { emu, lockId, plan, run };
  }

  /** A lock taken by another client's request (its first task). */
  const foreign = (method: string, path: string, body: unknown) => async (e: TestEmulator) => (await e.call(method, path, { body })).body.tasks[0] as string;
  const FIP_V2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
  const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;
  const clockConfirm = (attempts: number): ConfirmPolicy => ({ attempts, delayMs: () => 1000, sleep: async (ms) => emu!.clock.advance(ms) });

  it('starts a dependant only after the task of its dependency finished', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000 }, WEB_VM + CLUSTER_AFTER_VM);
    const hooks = recordingHooks();
    const run = execute({ plan, ctx, hooks });

    const resize = await waitFor(() => taskOf(emu, DEMO.instance)[0], { what: 'the resize task' });
    await waitFor(() => emu.requests.filter((r) => r.path === `/cloud/v1/tasks/${resize.id}`).length >= 3, { what: 'polls of the running resize' });
    expect(emu.requests.filter((r) => r.path.includes('/k8s/'))).toEqual([]);
    expect(hooks.events).toEqual(['start cloud_instance.web_vm']);

    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(hooks.events).toEqual([
      'start cloud_instance.web_vm',
      'finish cloud_instance.web_vm applied',
      'start cloud_k8s_cluster.cluster',
      'finish cloud_k8s_cluster.cluster applied',
    ]);
    const firstClusterRequest = emu.requests.findIndex((r) => r.path.includes('/k8s/'));
    const lastResizePoll = emu.requests.findLastIndex((r) => r.path === `/cloud/v1/tasks/${resize.id}`);
    expect(firstClusterRequest).toBeGreaterThan(lastResizePoll);
    expect(emu.requests[firstClusterRequest]!.time).toBeGreaterThanOrEqual(resize.finish_at);
  });

  it('fails a resource whose task ends in ERROR, skips its dependants naming the root cause, and completes an independent branch', async () => {
    const alertsAfterCluster =
      '  alerts: { type: iam_reseller_notification_setting, reseller_id: 7, notification_settings_id: 3, notification_type: failed_login, email: sec@example.com, enabled: true, depends_on: [cloud_k8s_cluster.cluster] }\n';
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0 }, WEB_IP + WEB_VM + CLUSTER_AFTER_VM + alertsAfterCluster);
    emu.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found for flavor g2-standard-4-8');
    const hooks = recordingHooks();

    const outcome = await execute({ plan, ctx, hooks });

    const [fipTask] = taskOf(emu, DEMO.fip);
    const [vmTask] = taskOf(emu, DEMO.instance);
    const byAddress = Object.fromEntries(outcome.resources.map((r) => [r.address, r]));
    expect(outcome.resources.map((r) => r.address)).toEqual(plan.resource_changes.map((c) => c.address));
    expect(byAddress).toEqual({
      'cloud_floating_ip.web_ip': { address: 'cloud_floating_ip.web_ip', action: 'update', status: 'applied', taskIds: [fipTask!.id], elapsedMs: expect.any(Number) },
      'cloud_instance.web_vm': {
        address: 'cloud_instance.web_vm',
        action: 'update',
        status: 'failed',
        taskIds: [vmTask!.id],
        elapsedMs: expect.any(Number),
        error: `task ${vmTask!.id} (resize_vm) failed: No valid host was found for flavor g2-standard-4-8`,
      },
      'cloud_k8s_cluster.cluster': { address: 'cloud_k8s_cluster.cluster', action: 'update', status: 'skipped', taskIds: [], skippedBecause: 'cloud_instance.web_vm' },
      'iam_reseller_notification_setting.alerts': {
        address: 'iam_reseller_notification_setting.alerts',
        action: 'update',
        status: 'skipped',
        taskIds: [],
        skippedBecause: 'cloud_instance.web_vm',
      },
    });
    expect(outcome).toMatchObject({ interrupted: false, aborted: false });
    expect(hooks.events.filter((e) => e.startsWith('finish')).sort()).toEqual([
      'finish cloud_floating_ip.web_ip applied',
      'finish cloud_instance.web_vm failed',
      'finish cloud_k8s_cluster.cluster skipped',
      'finish iam_reseller_notification_setting.alerts skipped',
    ]);
    expect([...writesSeen(emu)].sort()).toEqual([`PATCH /cloud/v2/floatingips/1/76/${DEMO.fip}`, `POST /cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`]);
  });

  it('skips a resource that depends on a failing check, and its dependants, naming the check; a passing check lets its dependant run', async () => {
    const yaml =
      `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge }, depends_on: [streaming_video_subtitles.tour_subtitles] }\n` +
      `  media_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fipDown}, tags_policy: merge, tags: { team: media }, depends_on: [cloud_floating_ip.web_ip] }\n` +
      `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8, depends_on: [streaming_video_subtitles.keynote_subtitles] }\n` +
      'checks:\n' +
      '  tour_subtitles: { type: streaming_video_subtitles, video_id: 9877, languages: [eng, ger] }\n' +
      '  keynote_subtitles: { type: streaming_video_subtitles, video_id: 9876, languages: [eng, ger] }\n';
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0 }, yaml);
    expect(plan.checks.map((c) => [c.address, c.status])).toEqual([
      ['streaming_video_subtitles.tour_subtitles', 'fail'],
      ['streaming_video_subtitles.keynote_subtitles', 'pass'],
    ]);
    const warningsOf = (address: string) => plan.resource_changes.find((c) => c.address === address)!.warnings;
    expect(warningsOf('cloud_floating_ip.web_ip')).toEqual(['depends on check streaming_video_subtitles.tour_subtitles, which is failing; apply will skip this resource']);
    expect(warningsOf('cloud_instance.web_vm')).toEqual([]);
    const hooks = recordingHooks();

    const outcome = await execute({ plan, ctx, hooks });

    expect(outcome.resources.map(({ address, status, skippedBecause }) => ({ address, status, skippedBecause }))).toEqual([
      { address: 'cloud_floating_ip.web_ip', status: 'skipped', skippedBecause: 'streaming_video_subtitles.tour_subtitles' },
      { address: 'cloud_floating_ip.media_ip', status: 'skipped', skippedBecause: 'streaming_video_subtitles.tour_subtitles' },
      { address: 'cloud_instance.web_vm', status: 'applied', skippedBecause: undefined },
    ]);
    expect(hooks.events.filter((e) => e.startsWith('start'))).toEqual(['start cloud_instance.web_vm']);
    expect(writesSeen(emu)).toEqual([`POST /cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`]);
  });

  it('reports a no-op that depends on a failing check unchanged (nothing to skip), and still skips what depends on it', async () => {
    const yaml =
      `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: staging, owner: alice, team: edge }, depends_on: [streaming_video_subtitles.tour_subtitles] }\n` +
      `  media_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fipDown}, tags_policy: merge, tags: { team: media }, depends_on: [cloud_floating_ip.web_ip] }\n` +
      'checks:\n' +
      '  tour_subtitles: { type: streaming_video_subtitles, video_id: 9877, languages: [eng, ger] }\n';
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0 }, yaml);
    expect(plan.checks.map((c) => c.status)).toEqual(['fail']);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['no-op', 'update']);

    const outcome = await execute({ plan, ctx });

    expect(outcome.resources.map(({ address, status, skippedBecause }) => ({ address, status, skippedBecause }))).toEqual([
      { address: 'cloud_floating_ip.web_ip', status: 'unchanged', skippedBecause: undefined },
      { address: 'cloud_floating_ip.media_ip', status: 'skipped', skippedBecause: 'streaming_video_subtitles.tour_subtitles' },
    ]);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('reports a no-op that depends on a failed resource unchanged, and skips what depends on it naming the failure', async () => {
    const yaml =
      WEB_VM +
      `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: staging, owner: alice, team: edge }, depends_on: [cloud_instance.web_vm] }\n` +
      `  media_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fipDown}, tags_policy: merge, tags: { team: media }, depends_on: [cloud_floating_ip.web_ip] }\n`;
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0 }, yaml);
    emu.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found');

    const outcome = await execute({ plan, ctx });

    expect(outcome.resources.map(({ address, status, skippedBecause }) => ({ address, status, skippedBecause }))).toEqual([
      { address: 'cloud_instance.web_vm', status: 'failed', skippedBecause: undefined },
      { address: 'cloud_floating_ip.web_ip', status: 'unchanged', skippedBecause: undefined },
      { address: 'cloud_floating_ip.media_ip', status: 'skipped', skippedBecause: 'cloud_instance.web_vm' },
    ]);
    expect(writesSeen(emu)).toEqual([RESIZE_POST]);
  });

  it('reports every resource unchanged when only no-ops depend on a failing check', async () => {
    const yaml =
      `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: staging, owner: alice, team: edge }, depends_on: [streaming_video_subtitles.tour_subtitles] }\n` +
      'checks:\n' +
      '  tour_subtitles: { type: streaming_video_subtitles, video_id: 9877, languages: [eng, ger] }\n';
    const { ctx, plan } = await setUp({ taskDurationMs: 0 }, yaml);

    const outcome = await execute({ plan, ctx });

    expect(outcome.resources).toEqual([{ address: 'cloud_floating_ip.web_ip', action: 'no-op', status: 'unchanged', taskIds: [] }]);
    expect(succeeded(outcome)).toBe(true);
  });

  it('waits for the task holding a floating IP lock before patching it', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
    // Someone detaches the IP from its port: a lock task that leaves the tags the plan saw alone.
    const foreign = await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { port_id: null } });
    const lockId = foreign.body.tasks[0] as string;
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_IP);
    expect(plan.resource_changes[0]!.lock_task_id).toBe(lockId);
    emu.requests.length = 0;
    const hooks = recordingHooks();
    const run = execute({ plan, ctx: connected.ctx, hooks });

    await waitFor(() => emu!.requests.filter((r) => r.path === `/cloud/v1/tasks/${lockId}`).length >= 3, { what: 'polls of the lock task' });
    expect(writesSeen(emu)).toEqual([]);

    emu.clock.advance(2000);
    const lockFinishedAt = emu.clock.now();
    const outcome = await driveTasks(emu, run);

    const patches = emu.requests.filter((r) => r.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect(patches[0]!.time).toBeGreaterThanOrEqual(lockFinishedAt);
    const ours = taskOf(emu, DEMO.fip).find((t) => t.id !== lockId)!;
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied', taskIds: [lockId, ours.id] })]);
    expect(emu.state.floatingIps.get(DEMO.fip)!.tags).toEqual([
      { key: 'env', value: 'prod', read_only: false },
      { key: 'team', value: 'edge', read_only: false },
      { key: 'managed-by', value: 'platform', read_only: true },
    ]);
  });

  it('fails, sending nothing, when the task holding the lock changed what the plan saw (the planned patch is stale)', async () => {
    const { emu, lockId, plan, run } = await executeBehindLock({ taskDurationMs: 2000 }, foreign('PATCH', FIP_V2, { tags: { other: 'x' } }), WEB_IP);
    expect(plan.resource_changes[0]!.payload).toEqual({ tags_patch: { env: 'prod', owner: null } });
    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed', taskIds: [lockId] })]);
    expect(outcome.resources[0]!.error).toBe(
      [
        `cloud_floating_ip.web_ip changed while platform task ${lockId} held its lock, so the planned change was not sent:`,
        '  tags: {"env":"staging","owner":"alice","team":"edge"} when planned, now {"env":"staging","other":"x","owner":"alice","team":"edge"}',
        'Run edgeform plan again and review the new plan.',
      ].join('\n'),
    );
    expect(writesSeen(emu)).toEqual([]);
    expect(taskOf(emu, DEMO.fip).map((t) => t.id)).toEqual([lockId]);
  });

  it('goes on with its change when the task holding the lock ends in ERROR', async () => {
    const failingLock = async (e: TestEmulator) => {
      e.state.setNextTaskError('floating_ip', DEMO.fip, 'Port binding failed');
      return foreign('PATCH', FIP_V2, { tags: { owner: 'bob' } })(e);
    };
    const { emu, lockId, run } = await executeBehindLock({ taskDurationMs: 2000 }, failingLock, WEB_IP);
    const outcome = await driveTasks(emu, run);

    const ours = taskOf(emu, DEMO.fip).find((t) => t.id !== lockId)!;
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied', taskIds: [lockId, ours.id] })]);
    expect(writesSeen(emu)).toEqual([`PATCH /cloud/v2/floatingips/1/76/${DEMO.fip}`]);
    expect(emu.state.floatingIps.get(DEMO.fip)!.tags.filter((t) => !t.read_only)).toEqual([
      { key: 'env', value: 'prod', read_only: false },
      { key: 'team', value: 'edge', read_only: false },
    ]);
  });

  it('sends no second resize when the task holding the lock made the planned change, even while reads lag', async () => {
    const { emu, lockId, plan, run } = await executeBehindLock({ taskDurationMs: 2000, readLagMs: 1500 }, foreign('POST', RESIZE, { flavor_id: 'g2-standard-4-8' }), WEB_VM, {
      confirm: clockConfirm(5),
    });
    expect(plan.resource_changes[0]).toMatchObject({ action: 'update', lock_task_id: lockId });
    emu.clock.advance(2000);
    const outcome = await run;

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'unchanged', taskIds: [lockId] })]);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('after a lock held by a task of another kind, re-reads only a few times and then sends its own change', async () => {
    const { emu, lockId, run } = await executeBehindLock({ taskDurationMs: 2000 }, async (e) => lockFipWithPortTask(e), WEB_IP, { confirm: clockConfirm(12) });
    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    const patch = emu.requests.findIndex((r) => r.method === 'PATCH');
    const lockDone = emu.requests.findIndex((r) => r.path === `/cloud/v1/tasks/${lockId}`);
    const settleReads = emu.requests.slice(lockDone, patch).filter((r) => r.method === 'GET' && r.path === `/cloud/v1/floatingips/1/76/${DEMO.fip}`);
    expect(settleReads).toHaveLength(4);
    expect(userTagsOf(emu, DEMO.fip)).toEqual({ env: 'prod', team: 'edge' });
  });

  it('after a lock held by a resize to another flavor, settles with the full policy, then refuses: a resize from a flavor the plan never showed is not what was approved', async () => {
    const { emu, lockId, run } = await executeBehindLock({ taskDurationMs: 2000 }, foreign('POST', RESIZE, { flavor_id: 'g2-standard-8-16' }), WEB_VM, {
      confirm: clockConfirm(12),
    });
    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed', taskIds: [lockId] })]);
    expect(outcome.resources[0]!.error).toContain('changed while platform task');
    expect(outcome.resources[0]!.error).toContain('flavor_id: "g2-standard-2-4" when planned, now "g2-standard-8-16"');
    const lockDone = emu.requests.findIndex((r) => r.path === `/cloud/v1/tasks/${lockId}`);
    const settleReads = emu.requests.slice(lockDone).filter((r) => r.method === 'GET' && r.path === `/cloud/v1/instances/1/76/${DEMO.instance}`);
    // A resize_vm lock may be this very change, abandoned by an earlier run: the full policy.
    expect(settleReads.length).toBeGreaterThanOrEqual(12);
    expect(writesSeen(emu)).toEqual([]);
    expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-8-16');
  });

  it('after a lock held by an upgrade step toward its target, goes on from there to the target (the planned result still holds)', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + CLUSTER_LATEST);
    expect(plan.resource_changes[0]).toMatchObject({ action: 'update', lock_task_id: null, payload: { upgrade_path: ['v1.30.6', 'v1.31.3'] } });
    // Step 1 of this very change, left running by a run interrupted twice (or anyone's upgrade).
    const foreign = await emu.call('POST', '/cloud/v2/k8s/clusters/1/76/prod-eu/upgrade', { body: { version: 'v1.30.6' } });
    const lockId = foreign.body.tasks[0] as string;
    emu.requests.length = 0;
    const run = execute({ plan, ctx: connected.ctx });

    await waitFor(() => emu!.requests.some((r) => r.path === `/cloud/v1/tasks/${lockId}`), { what: 'a poll of the lock task' });
    const outcome = await driveTasks(emu, run);

    const ours = taskOf(emu, `1/76/${DEMO.cluster}`).filter((t) => t.id !== lockId);
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied', taskIds: [lockId, ...ours.map((t) => t.id)] })]);
    expect(writesSeen(emu)).toEqual([UPGRADE_POST]);
    expect(ours.map((t) => t.data)).toEqual([{ version: 'v1.31.3' }]);
    expect(emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!.version).toBe('v1.31.3');
  });

  it('fails, sending nothing, when a lock seen at plan time ended before apply and changed what the plan saw', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
    const foreign = await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { other: 'x' } } });
    const lockId = foreign.body.tasks[0] as string;
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_IP);
    expect(plan.resource_changes[0]).toMatchObject({ lock_task_id: lockId, payload: { tags_patch: { env: 'prod', owner: null } } });
    emu.clock.advance(2000);
    expect(emu.state.floatingIps.get(DEMO.fip)!.task_id).toBeNull();
    emu.requests.length = 0;

    const outcome = await driveTasks(emu, execute({ plan, ctx: connected.ctx }));

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed', taskIds: [] })]);
    expect(outcome.resources[0]!.error).toBe(
      [
        `cloud_floating_ip.web_ip changed since the plan was made (platform task ${lockId} held its lock then), so the planned change was not sent:`,
        '  tags: {"env":"staging","owner":"alice","team":"edge"} when planned, now {"env":"staging","other":"x","owner":"alice","team":"edge"}',
        'Run edgeform plan again and review the new plan.',
      ].join('\n'),
    );
    expect(writesSeen(emu)).toEqual([]);
    expect(userTagsOf(emu, DEMO.fip)).toEqual({ env: 'staging', other: 'x', owner: 'alice', team: 'edge' });
  });

  it('after a lock held by a task of its own kind, settles with the full confirm policy: no second resize while reads lag', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000, readLagMs: 8000 });
    const foreign = await emu.call('POST', `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    const lockId = foreign.body.tasks[0] as string;
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_VM);
    expect(plan.resource_changes[0]).toMatchObject({ action: 'update', lock_task_id: lockId });
    const confirm: ConfirmPolicy = { attempts: 12, delayMs: () => 1000, sleep: async (ms) => emu!.clock.advance(ms) };
    const run = execute({ plan, ctx: connected.ctx, confirm });

    await waitFor(() => emu!.requests.some((r) => r.path === `/cloud/v1/tasks/${lockId}`), { what: 'a poll of the lock task' });
    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'unchanged', taskIds: [lockId] })]);
    expect(writesSeen(emu)).toEqual([RESIZE_POST]);
    expect(taskOf(emu, DEMO.instance).map((t) => t.id)).toEqual([lockId]);
  });

  it('runs at most --max-tasks actions at once, and does reach that many', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000, fixtures: withExtraFloatingIps(8) }, extraFipBlocks(8));
    const hooks = recordingHooks();
    const run = execute({ plan, ctx, hooks, maxTasks: 3 });

    await waitFor(() => emu.state.pendingTasks.length === 3, { what: 'three held tasks' });
    expect(hooks.running.size).toBe(3);
    expect(hooks.events.filter((e) => e.startsWith('start'))).toHaveLength(3);

    const outcome = await driveTasks(emu, run);
    expect(hooks.maxRunning).toBe(3);
    expect(outcome.resources.map((r) => r.status)).toEqual(Array(8).fill('applied'));
  });

  it('never makes a change that starts no task wait for a task slot: app deletes go on while floating IP updates hold every slot and wait for one', async () => {
    const apps = '  legacy: { type: fastedge_app, app_id: 1234, ensure: absent }\n  router: { type: fastedge_app, app_id: 1300, ensure: absent }\n';
    // The floating IPs come first in the stack, so a scan that stopped at the first change without a slot would hold the apps back.
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000, fixtures: withExtraFloatingIps(3) }, extraFipBlocks(3) + apps);
    const hooks = recordingHooks();
    const run = execute({ plan, ctx, hooks, maxTasks: 1 });

    // One floating IP holds the one slot; both app deletes are done meanwhile; the other floating IPs wait.
    await waitFor(() => emu.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith('/fastedge/v1/apps/')).length === 2 && emu.state.pendingTasks.length === 1, {
      what: 'both app deletes while one task is held',
    });
    expect(writesSeen(emu).filter((w) => w.startsWith('PATCH'))).toEqual([`PATCH /cloud/v2/floatingips/1/76/${extraFipId(1)}`]);

    const outcome = await driveTasks(emu, run);
    expect(outcome.resources.map((r) => `${r.address} ${r.status}`)).toEqual([
      'cloud_floating_ip.ip_1 applied',
      'cloud_floating_ip.ip_2 applied',
      'cloud_floating_ip.ip_3 applied',
      'fastedge_app.legacy applied',
      'fastedge_app.router applied',
    ]);
    // The floating IPs took the slot one after another, in the stack's order.
    expect(writesSeen(emu).filter((w) => w.startsWith('PATCH'))).toEqual([1, 2, 3].map((i) => `PATCH /cloud/v2/floatingips/1/76/${extraFipId(i)}`));
    expect(hooks.events.filter((e) => e.startsWith('start')).slice(0, 3)).toEqual(['start cloud_floating_ip.ip_1', 'start fastedge_app.legacy', 'start fastedge_app.router']);
  });

  it('re-reads until a resize shows after the read lag of a finished task', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0, readLagMs: 1500 }, WEB_VM);
    const confirm: ConfirmPolicy = { attempts: 5, delayMs: () => 1000, sleep: async (ms) => emu.clock.advance(ms) };

    const outcome = await execute({ plan, ctx, confirm });

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    const post = emu.requests.findIndex((r) => r.method === 'POST');
    const confirmReads = emu.requests.slice(post).filter((r) => r.method === 'GET' && r.path === `/cloud/v1/instances/1/76/${DEMO.instance}`);
    expect(confirmReads.map((r) => r.time - emu.requests[post]!.time)).toEqual([0, 1000, 2000]);
  });

  it('fails with "inconsistent result after apply" when the re-read never shows the planned result', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 0, readLagMs: 60_000 }, WEB_VM);
    const confirm: ConfirmPolicy = { attempts: 3, delayMs: () => 1000, sleep: async (ms) => emu.clock.advance(ms) };

    const outcome = await execute({ plan, ctx, confirm });

    const [resize] = taskOf(emu, DEMO.instance);
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed', taskIds: [resize!.id] })]);
    expect(outcome.resources[0]!.error).toContain('inconsistent result after apply: cloud_instance.web_vm');
    expect(outcome.resources[0]!.error).toContain('"flavor_id":"g2-standard-2-4"');
  });

  it('after a stop starts nothing new, lets running actions finish, and leaves the rest not started', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000, fixtures: withExtraFloatingIps(4) }, extraFipBlocks(4));
    const stop = new AbortController();
    const run = execute({ plan, ctx, maxTasks: 2, stop: stop.signal });

    await waitFor(() => emu.state.pendingTasks.length === 2, { what: 'two held tasks' });
    stop.abort();
    emu.clock.advance(2000);
    const outcome = await run;

    expect(outcome.resources.map((r) => `${r.address} ${r.status}`)).toEqual([
      'cloud_floating_ip.ip_1 applied',
      'cloud_floating_ip.ip_2 applied',
      'cloud_floating_ip.ip_3 not-started',
      'cloud_floating_ip.ip_4 not-started',
    ]);
    expect(outcome).toMatchObject({ interrupted: true, aborted: false });
    expect(writesSeen(emu)).toEqual([`PATCH /cloud/v2/floatingips/1/76/${extraFipId(1)}`, `PATCH /cloud/v2/floatingips/1/76/${extraFipId(2)}`]);
  });

  it('after a stop that came while it waited on a lock, sends nothing and reports the resource not started', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
    const foreign = await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { owner: 'bob' } } });
    const lockId = foreign.body.tasks[0] as string;
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_IP);
    const stop = new AbortController();
    const run = execute({ plan, ctx: connected.ctx, stop: stop.signal });

    await waitFor(() => emu!.requests.filter((r) => r.path === `/cloud/v1/tasks/${lockId}`).length >= 2, { what: 'polls of the lock task' });
    stop.abort();
    emu.clock.advance(2000);
    const outcome = await driveTasks(emu, run);

    expect(outcome.resources).toEqual([expect.objectContaining({ address: 'cloud_floating_ip.web_ip', status: 'not-started', taskIds: [lockId] })]);
    expect(outcome).toMatchObject({ interrupted: true, aborted: false });
    expect(emu.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([`/cloud/v2/floatingips/1/76/${DEMO.fip}`]);
    expect(taskOf(emu, DEMO.fip).map((t) => t.id)).toEqual([lockId]);
  });

  it('a stop during the wait on a lock ends the wait at once: not started, nothing sent, the lock task left running', async () => {
    emu = await startTestEmulator({ taskDurationMs: 3_600_000 });
    const foreign = await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { port_id: null } });
    const lockId = foreign.body.tasks[0] as string;
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_IP);
    emu.requests.length = 0;
    const stop = new AbortController();
    const hooks = recordingHooks();
    let settled = false;
    const run = execute({ plan, ctx: connected.ctx, stop: stop.signal, hooks }).finally(() => {
      settled = true;
    });

    await waitFor(() => emu!.requests.filter((r) => r.path === `/cloud/v1/tasks/${lockId}`).length >= 2, { what: 'polls of the lock task' });
    const clockAtStop = emu.clock.now();
    stop.abort();
    await waitFor(() => settled, { what: 'execute to resolve without the lock task finishing' });
    const outcome = await run;

    expect(emu.clock.now()).toBe(clockAtStop);
    expect(outcome.resources).toEqual([expect.objectContaining({ address: 'cloud_floating_ip.web_ip', status: 'not-started', taskIds: [lockId] })]);
    expect(outcome).toMatchObject({ interrupted: true, aborted: false });
    expect(hooks.events).toEqual(['start cloud_floating_ip.web_ip', 'finish cloud_floating_ip.web_ip not-started']);
    expect(writesSeen(emu)).toEqual([]);
    expect(emu.state.pendingTasks.map((t) => t.id)).toEqual([lockId]);
  });

  it('a stop during the settle reads after a lock sends nothing and reports the resource not started', async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
    const lockId = lockFipWithPortTask(emu);
    const connected = connectTo(emu);
    api = connected.api;
    const plan = await planYaml(connected.ctx, emu.url, HEADER + WEB_IP);
    emu.requests.length = 0;
    const stop = new AbortController();
    let reads = 0;
    // The second settle read's wait is where the interrupt comes.
    const confirm: ConfirmPolicy = {
      attempts: 12,
      delayMs: () => 1000,
      sleep: async (ms) => {
        if (++reads === 2) stop.abort();
        emu!.clock.advance(ms);
      },
    };
    const run = execute({ plan, ctx: connected.ctx, stop: stop.signal, confirm });

    await waitFor(() => emu!.requests.some((r) => r.path === `/cloud/v1/tasks/${lockId}`), { what: 'a poll of the lock task' });
    emu.clock.advance(2000);
    const outcome = await run;

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'not-started', taskIds: [lockId] })]);
    const settleReads = emu.requests.filter((r) => r.method === 'GET' && r.path === `/cloud/v1/floatingips/1/76/${DEMO.fip}`);
    expect(settleReads.length).toBeLessThanOrEqual(3);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('reports a k8s upgrade stopped between steps by the interrupt as stopped, not failed', async () => {
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000 }, CLUSTER_LATEST);
    const stop = new AbortController();
    const run = execute({ plan, ctx, stop: stop.signal });

    await waitFor(() => emu.state.pendingTasks.length === 1, { what: 'the first upgrade step' });
    stop.abort();
    const outcome = await driveTasks(emu, run);

    const [step1] = taskOf(emu, `1/76/${DEMO.cluster}`);
    expect(outcome.resources).toEqual([expect.objectContaining({ address: 'cloud_k8s_cluster.cluster', status: 'stopped', taskIds: [step1!.id] })]);
    expect(outcome.resources[0]!.error).toContain('stopped at v1.30.6 on the way to v1.31.3 because of the interrupt');
    expect(outcome).toMatchObject({ interrupted: true, aborted: false });
    expect(countOutcome(outcome)).toMatchObject({ changed: 0, failed: 0, stopped: 1, notStarted: 0, aborted: 0 });
    expect(writesSeen(emu)).toEqual([UPGRADE_POST]);
    expect(emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!.version).toBe('v1.30.6');
  });

  it('on abort reports the running actions as aborted with their task ids', async () => {
    const abort = new AbortController();
    const { emu, ctx, plan } = await setUp({ taskDurationMs: 2000, fixtures: withExtraFloatingIps(4) }, extraFipBlocks(4), abort);
    const stop = new AbortController();
    const hooks = recordingHooks();
    const run = execute({ plan, ctx, maxTasks: 2, stop: stop.signal, hooks });

    // Abort once the executor knows both task ids (the answers to both PATCHes arrived).
    await waitFor(() => hooks.taskIds.size === 2, { what: 'both actions waiting on their tasks' });
    stop.abort();
    abort.abort(new Error('interrupted twice'));
    const outcome = await run;

    const [task1] = taskOf(emu, extraFipId(1));
    const [task2] = taskOf(emu, extraFipId(2));
    expect(outcome.resources.map(({ address, status, taskIds }) => ({ address, status, taskIds }))).toEqual([
      { address: 'cloud_floating_ip.ip_1', status: 'aborted', taskIds: [task1!.id] },
      { address: 'cloud_floating_ip.ip_2', status: 'aborted', taskIds: [task2!.id] },
      { address: 'cloud_floating_ip.ip_3', status: 'not-started', taskIds: [] },
      { address: 'cloud_floating_ip.ip_4', status: 'not-started', taskIds: [] },
    ]);
    expect(outcome).toMatchObject({ interrupted: true, aborted: true });
    expect(emu.state.pendingTasks.map((t) => t.id).sort()).toEqual([task1!.id, task2!.id].sort());
  });
});
