import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
/**
 * Chaos: a generated stack of 200 resources over every kind is applied while the emulator
 * answers 503 and 429, drops connections before and after making changes, delays answers and
 * fails tasks, all drawn from a seed. The emulator's mutation log is the ground truth apply's
 * report is held to.
 *
 * The plan is made with faults off: what is under test is apply's honesty (a read that fails
 * under faults makes the plan errored and nothing is applied, covered elsewhere). The faults a
 * request meets are fixed by the seed (keyed by method, path and the request's count, see
 * docs/emulator.md), but which requests are sent still depends on platform time: parallel waits
 * all move the one emulator clock, so a read may come just before or just after a task
 * finished. The tests therefore assert the contract, which must hold for every interleaving,
 * never one exact outcome; nothing waits on the wall clock.
 */
import { runCli } from '../../../cmd/run-cli.js';
import { createRetryQuota, type RetryQuota, type RetryPolicy } from '../../../src/api/retry.js';
import { executePlan } from '../../../src/apply/executor.js';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import { INJECTED_TASK_ERROR, type FaultSettings, type MutationLogEntry } from '../../../src/emulator/index.js';
import { RESOURCE_TYPES } from '../../../src/kinds/registry.js';
import type { Plan } from '../../../src/plan/types.js';
import { providers } from '../../../src/kinds/providers.js';
import { connectTo, driveTasks, emulatorEnv, planYaml } from '../../helpers/apply.js';
import { captureStream } from '../../helpers/capture.js';
import { chaosWorld, compareWithMutations, countStatuses, createChaosContext } from '../../helpers/chaos.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { change, plan as planOf } from '../../helpers/plan.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** The rates of issue 8: 10% 503, 5% 429, dropped connections before and after the change, failing tasks, jitter. */
const FULL_CHAOS: Partial<FaultSettings> = { failRate: 0.1, rateLimitRate: 0.05, dropBeforeRate: 0.02, dropAfterRate: 0.02, taskFailRate: 0.05, jitterMs: 2 };

const FULL_CHAOS_TITLE = '200 resources of every kind at 10% 503, 5% 429, 2% dropped before and 2% after the change, 5% failing tasks';

const SEEDS = [1, 2, 3];

/** What one chaos run found: the first apply's report against the emulator's record, then the re-run and the plan after it. */
interface ChaosResult {
  plan: Plan;
  outcome: ApplyOutcome;
  /** Disagreements between the first apply's report and the mutations it caused. */
  reportProblems: string[];
  /** Disagreements between the plan and every mutation of both applies (each change exactly once in all). */
  convergeProblems: string[];
  /** Exit code and output of `edgeform apply --auto-approve` with faults off. */
  rerun: { code: number; output: string };
  /** Exit code and output of `edgeform plan --detailed-exitcode` afterwards. */
  finalPlan: { code: number; output: string };
  /** What the faults did during the first apply, to prove they happened. */
  injected: { status503: number; status429: number; dropped: number; failedTasks: number };
}

describe('apply under chaos: the report matches what the platform did', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  /**
   * Plans the 200-resource chaos world with faults off, applies the plan through the executor
   * with the given faults on (every wait moves the emulator clock, none the wall clock), lets
   * every task still running settle, compares the report with the emulator's mutation log, then
   * re-runs `edgeform apply` with faults off and `edgeform plan --detailed-exitcode` (in-process CLI).
   */
  async function runChaos(seed: number, faults: Partial<FaultSettings>, retries: { retryQuota: RetryQuota; retryPolicy?: Partial<RetryPolicy> }): Promise<ChaosResult> {
    const world = chaosWorld();
    const stackPath = join(writeStackFiles({ 'stack.yaml': world.yaml }), 'stack.yaml');
    emu = await startTestEmulator({ fixtures: world.fixtures, taskDurationMs: 2000, seed });
    const planner = connectTo(emu);
    const plan = await planYaml(planner.ctx, emu.url, world.yaml).finally(() => planner.api.close());
    // The world is what it claims: 200 resources, every kind, updates, deletes and no-ops.
    expect(plan.resource_changes).toHaveLength(200);
    const actions = new Set(plan.resource_changes.map((c) => `${c.type} ${c.action}`));
    for (const kind of ['cloud_floating_ip', 'cloud_instance', 'cloud_k8s_cluster', 'iam_reseller_notification_setting', 'streaming_video_subtitle'])
      expect(actions).toContain(`${kind} update`);
    for (const kind of ['fastedge_app', 'streaming_player', 'cloud_quota_limit_request', 'streaming_video_subtitle']) expect(actions).toContain(`${kind} delete`);
    for (const kind of RESOURCE_TYPES) expect(actions).toContain(`${kind} no-op`);

    emu.requests.length = 0;
    emu.faults.set(faults);
    emu.faults.reseed(seed);
    const chaos = createChaosContext(emu, retries);
    let outcome: ApplyOutcome;
    try {
      outcome = await executePlan({ plan, providers: providers.resources, ctx: chaos.ctx, maxTasks: 10, confirm: chaos.confirm });
    } finally {
      await chaos.api.close();
    }
    emu.faults.clear();
    // A task still running when apply ended makes its change later: it counts too.
    emu.clock.advance(3_600_000);
    const injected = {
      status503: emu.requests.filter((r) => r.status === 503).length,
      status429: emu.requests.filter((r) => r.status === 429).length,
      dropped: emu.requests.filter((r) => r.status === 0).length,
      failedTasks: [...emu.state.tasks.values()].filter((t) => t.planned_error === INJECTED_TASK_ERROR).length,
    };
    const reportProblems = compareWithMutations(plan, outcome, emu.mutations);

    const env = { ...emulatorEnv(emu), NO_COLOR: '1' };
    const cli = async (args: string[]) => {
      const stdout = captureStream();
      const stderr = captureStream();
      const code = await driveTasks(emu!, runCli(args, { env, stdout, stderr }));
      return { code, output: `${stdout.text()}\n${stderr.text()}` };
    };
    const rerun = await cli(['apply', stackPath, '--auto-approve']);
    const finalPlan = await cli(['plan', stackPath, '--detailed-exitcode']);
    // Over both applies, every planned change was made exactly once, and nothing else.
    const converged: ApplyOutcome = {
      resources: plan.resource_changes.map((c) => ({ address: c.address, action: c.action, status: c.action === 'no-op' ? 'unchanged' : 'applied', taskIds: [] })),
      interrupted: false,
      aborted: false,
    };
    const convergeProblems = compareWithMutations(plan, converged, emu.mutations);
    return { plan, outcome, reportProblems, convergeProblems, rerun, finalPlan, injected };
  }

  /** The whole contract of one chaos run. */
  function expectContractHeld(r: ChaosResult): void {
    // The faults did happen (a test whose faults never fire cannot fail).
    expect(r.injected.status503).toBeGreaterThan(0);
    expect(r.injected.status429).toBeGreaterThan(0);
    expect(r.injected.dropped).toBeGreaterThan(0);
    expect(r.injected.failedTasks).toBeGreaterThan(0);
    const counts = countStatuses(r.outcome);
    expect(counts.applied).toBeGreaterThan(0);
    expect(counts.failed).toBeGreaterThan(0);
    // Apply's report is what the platform did: applied = changed exactly once; failed, skipped,
    // not started = not changed (at most part of a multi-step upgrade); unchanged = untouched.
    expect(r.reportProblems).toEqual([]);
    // With faults off, apply again converges: exit 0, and over both runs every planned change
    // was made exactly once (nothing done twice: no second resize, upgrade step or delete).
    expect(r.rerun.code, r.rerun.output).toBe(0);
    expect(r.convergeProblems).toEqual([]);
    // Nothing left to do: plan --detailed-exitcode exits 0.
    expect(r.finalPlan.code, r.finalPlan.output).toBe(0);
    expect(r.finalPlan.output).toContain('No changes.');
  }

  // Enabled once the retry quota lands (issue 8, points 6 and 7). With today's run-wide budget
  // of 20 retries these rates exhaust it early, and every later 429, 503 or dropped read fails
  // at once: seeds 1, 2, 3 end with about 45, 54, 56 resources failed, and 4, 8-9, 12 of them
  // (the count moves with the order requests spend the shared budget in) are "reported failed,
  // but the emulator did <the change>": resizes, upgrades, tags, settings and deletes that were
  // acknowledged and made, whose confirmation read met the exhausted budget. That is the
  // `reportProblems` assertion; the re-run, the convergence check and the final plan pass today.
  describe('with the retry quota `edgeform apply` uses', () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: ${FULL_CHAOS_TITLE}`, async () => {
        expectContractHeld(await runChaos(seed, FULL_CHAOS, { retryQuota: createRetryQuota() }));
      });
    }
  });

  // The same run with the retry budget and the attempts per request raised through the client's
  // options, so that retries are never what fails: proves the harness, and that the report
  // matches the platform whenever retries suffice.
  describe('with retries unconstrained (the harness, at the same fault rates)', () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: ${FULL_CHAOS_TITLE}`, async () => {
        const unconstrained = { retryQuota: createRetryQuota({ capacity: 1_000_000_000 }), retryPolicy: { maxAttempts: 8 } };
        expectContractHeld(await runChaos(seed, FULL_CHAOS, unconstrained));
      });
    }
  });
});

describe('compareWithMutations: the chaos oracle finds every kind of false report', () => {
  const fip = change({ address: 'cloud_floating_ip.ip', action: 'update', desired: { floating_ip_id: 'f1' }, after: { floating_ip_id: 'f1', tags: { env: 'prod' } } });
  const vm = change({ address: 'cloud_instance.vm', action: 'update', desired: { instance_id: 'i1' }, after: { instance_id: 'i1', flavor_id: 'big' } });
  const cluster = change({
    address: 'cloud_k8s_cluster.c',
    action: 'update',
    desired: { project_id: 1, region_id: 76, cluster_name: 'c' },
    after: { cluster_name: 'c', version: 'v1.31.3' },
    payload: { upgrade_path: ['v1.30.6', 'v1.31.3'] },
  });
  const app = change({ address: 'fastedge_app.app', action: 'delete', desired: { app_id: 7 } });
  const kept = change({ address: 'streaming_player.p', action: 'no-op', desired: { player_id: 5 } });
  const thePlan = planOf([fip, vm, cluster, app, kept]);
  const report = (statuses: Record<string, string>): ApplyOutcome => ({
    resources: thePlan.resource_changes.map((c) => ({ address: c.address, action: c.action, status: (statuses[c.address] ?? 'applied') as never, taskIds: [] })),
    interrupted: false,
    aborted: false,
  });
  const m = (kind: MutationLogEntry['kind'], id: string, what: string, after: Record<string, unknown> = {}): MutationLogEntry => ({
    time: 0,
    kind,
    id,
    change: what,
    after,
    taskId: null,
  });
  const allDone = [
    m('floating_ip', 'f1', 'update_floating_ip', { tags: { env: 'prod' } }),
    m('instance', 'i1', 'resize_vm', { flavor_id: 'big' }),
    m('k8s_cluster', '1/76/c', 'upgrade_k8s_cluster_v2', { version: 'v1.30.6' }),
    m('k8s_cluster', '1/76/c', 'upgrade_k8s_cluster_v2', { version: 'v1.31.3' }),
    m('fastedge_app', '7', 'delete'),
  ];
  const unchangedPlayer = { 'streaming_player.p': 'unchanged' };

  it('finds nothing when every reported change was made once and nothing else', () => {
    expect(compareWithMutations(thePlan, report(unchangedPlayer), allDone)).toEqual([]);
  });

  it('finds a change made twice, a reported change never made, and a change made elsewhere', () => {
    const problems = compareWithMutations(thePlan, report(unchangedPlayer), [...allDone.slice(0, 4), allDone[1]!, m('streaming_player', '9', 'delete')]);
    expect(problems).toEqual([
      'cloud_instance.vm: reported applied, but the emulator did resize_vm {"flavor_id":"big"} ; resize_vm {"flavor_id":"big"}; the plan expects resize_vm {"flavor_id":"big"}',
      'fastedge_app.app: reported applied, but the emulator did nothing; the plan expects delete {}',
      'streaming_player 9: not in the plan, but the emulator did delete {}',
    ]);
  });

  it('finds a change made although the report says failed or skipped, and allows a part of a multi-step upgrade', () => {
    const statuses = { ...unchangedPlayer, 'cloud_instance.vm': 'failed', 'cloud_floating_ip.ip': 'skipped', 'cloud_k8s_cluster.c': 'failed' };
    expect(
      compareWithMutations(
        thePlan,
        report(statuses),
        allDone.filter((x) => x.kind !== 'k8s_cluster' || x.after.version === 'v1.30.6'),
      ),
    ).toEqual([
      'cloud_floating_ip.ip: reported skipped, but the emulator did update_floating_ip {"tags":{"env":"prod"}}',
      'cloud_instance.vm: reported failed, but the emulator did resize_vm {"flavor_id":"big"}',
    ]);
    expect(
      compareWithMutations(
        thePlan,
        report(statuses),
        allDone.filter((x) => x.kind !== 'instance' && x.kind !== 'floating_ip'),
      ),
    ).toEqual(['cloud_k8s_cluster.c: reported failed, but the emulator did upgrade_k8s_cluster_v2 {"version":"v1.30.6"} ; upgrade_k8s_cluster_v2 {"version":"v1.31.3"}']);
  });

  it('finds a change made to a resource reported unchanged', () => {
    expect(compareWithMutations(thePlan, report(unchangedPlayer), [...allDone, m('streaming_player', '5', 'delete')])).toEqual([
      'streaming_player.p: reported unchanged, but the emulator did delete {}',
    ]);
  });
});
