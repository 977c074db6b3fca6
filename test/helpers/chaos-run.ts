import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { runCli } from '../../cmd/run-cli.js';
import type { RetryQuota, RetryPolicy } from '../../src/api/retry.js';
import { executePlan } from '../../src/apply/executor.js';
import type { ApplyOutcome } from '../../src/apply/outcome.js';
import { INJECTED_TASK_ERROR, type FaultSettings } from '../../src/emulator/index.js';
import { RESOURCE_TYPES } from '../../src/kinds/registry.js';
import type { Plan } from '../../src/plan/types.js';
import { providers } from '../../src/kinds/providers.js';
import { connectTo, driveTasks, emulatorEnv, planYaml } from './apply.js';
import { captureStream } from './capture.js';
import { CHAOS_S3_ENV, chaosWorld, compareWithMutations, countStatuses, createChaosContext } from './chaos.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { writeStackFiles } from './stack-files.js';

/**
 * One chaos run and its contract, shared by test/integration/apply/chaos.test.ts (with the retry
 * quota `edgeform apply` uses) and chaos-harness.test.ts (with retries unconstrained).
 */

/** The rates of issue 8: 10% 503, 5% 429, dropped connections before and after the change, failing tasks, jitter. */
export const FULL_CHAOS: Partial<FaultSettings> = { failRate: 0.1, rateLimitRate: 0.05, dropBeforeRate: 0.02, dropAfterRate: 0.02, taskFailRate: 0.05, jitterMs: 2 };

export /** The title of a chaos run at FULL_CHAOS. */
const FULL_CHAOS_TITLE = `${chaosWorld().size} resources of every kind at 10% 503, 5% 429, 2% dropped before and 2% after the change, 5% failing tasks`;

/** The fault seeds every chaos run is made with. */
export const SEEDS = [1, 2, 3];

/** What one chaos run found: the first apply's report against the emulator's record, then the re-run and the plan after it. */
export interface ChaosResult {
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

/**
 * Plans the 200-resource chaos world with faults off, applies the plan through the executor
 * with the given faults on (every wait moves the emulator clock, none the wall clock), lets
 * every task still running settle, compares the report with the emulator's mutation log, then
 * re-runs `edgeform apply` with faults off and `edgeform plan --detailed-exitcode` (in-process CLI).
 */
async function runChaos(
  track: (emu: TestEmulator) => void,
  seed: number,
  faults: Partial<FaultSettings>,
  retries: { retryQuota: RetryQuota; retryPolicy?: Partial<RetryPolicy> },
): Promise<ChaosResult> {
  const world = chaosWorld();
  const stackPath = join(writeStackFiles({ 'stack.yaml': world.yaml }), 'stack.yaml');
  const emu = await startTestEmulator({ fixtures: world.fixtures, taskDurationMs: 2000, seed });
  track(emu);
  const planner = connectTo(emu);
  const plan = await planYaml(planner.ctx, emu.url, world.yaml, CHAOS_S3_ENV).finally(() => planner.api.close());
  // The world is what it claims: its resources (world.size), every kind, updates, deletes and no-ops.
  expect(plan.resource_changes).toHaveLength(world.size);
  const actions = new Set(plan.resource_changes.map((c) => `${c.type} ${c.action}`));
  for (const kind of [
    'cloud_floating_ip',
    'cloud_instance',
    'cloud_k8s_cluster',
    'iam_reseller_notification_setting',
    'streaming_video_subtitle',
    'dns_rrset',
    'cdn_resource',
    'cdn_rule',
    'cloud_volume',
    'cloud_lb_listener',
    'cloud_lb_pool',
    'cloud_lb_l7policy',
  ])
    expect(actions).toContain(`${kind} update`);
  for (const kind of [
    'fastedge_app',
    'streaming_player',
    'cloud_quota_limit_request',
    'streaming_video_subtitle',
    'dns_rrset',
    'cdn_resource',
    'cdn_rule',
    'cloud_instance',
    'cloud_volume',
  ])
    expect(actions).toContain(`${kind} delete`);
  for (const kind of ['cloud_instance']) expect(actions).toContain(`${kind} create`);
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

  const env = { ...emulatorEnv(emu), ...CHAOS_S3_ENV, NO_COLOR: '1' };
  const cli = async (args: string[]) => {
    const stdout = captureStream();
    const stderr = captureStream();
    const code = await driveTasks(emu, runCli(args, { env, stdout, stderr }));
    return { code, output: `${stdout.text()}\n${stderr.text()}` };
  };
  const rerun = await cli(['apply', stackPath, '--auto-approve']);
  const finalPlan = await cli(['plan', stackPath, '--detailed-exitcode']);
  // The S3 origin's keys (sensitive) are never printed, whatever failed on the way.
  for (const value of Object.values(CHAOS_S3_ENV)) expect(`${rerun.output}${finalPlan.output}`).not.toContain(value);
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
export function expectContractHeld(r: ChaosResult): void {
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

/**
 * Registers the closing of each run's emulator after each test of the calling file; returns
 * runChaos for that file's tests.
 */
export function useChaosRuns(): (seed: number, faults: Partial<FaultSettings>, retries: { retryQuota: RetryQuota; retryPolicy?: Partial<RetryPolicy> }) => Promise<ChaosResult> {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });
  return (seed, faults, retries) =>
    runChaos(
      (started) => {
        emu = started;
      },
      seed,
      faults,
      retries,
    );
}
