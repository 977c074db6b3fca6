import { EdgeformError } from '../errors.js';
import { fingerprint } from '../plan/fingerprint.js';
import { buildGraph, transitiveDependants } from '../plan/graph.js';
import { observedFields } from '../plan/planner.js';
import { describeStaleness, StalePlanError, type StaleResource } from '../plan/saved-plan.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { resourceProvider, type DynamicResourceProvider, type Observation, type ProviderContext, type ProviderRegistry } from '../providers/provider.js';
import type { ApplyOutcome, ResourceOutcome } from './outcome.js';

/** The re-read after an action found something other than the planned result. */
export class InconsistentResultError extends EdgeformError {
  constructor(address: string, planned: unknown, observed: unknown) {
    super(
      'EDGEFORM_INCONSISTENT_RESULT',
      `inconsistent result after apply: ${address} still does not show the planned result.\n  planned:  ${JSON.stringify(planned)}\n  observed: ${JSON.stringify(observed)}`,
    );
  }
}

/**
 * A platform task that held a resource's lock changed the resource's observed fields, so the
 * planned action (e.g. a tags merge patch) was computed from a state that is gone: it is not
 * sent. A stale plan for one resource, hence `EDGEFORM_STALE_PLAN`.
 */
export class ChangedWhileLockedError extends StalePlanError {
  readonly address: string;
  readonly lockTaskId: string;
  /** How the observed fields differ from the plan's `before`, one human line each. */
  readonly differences: readonly string[];
  constructor(stale: StaleResource, lockTaskId: string) {
    super(
      [
        `${stale.address} changed while platform task ${lockTaskId} held its lock, so the planned change was not sent:`,
        ...stale.differences.map((d) => `  ${d}`),
        'Run edgeform plan again and review the new plan.',
      ].join('\n'),
    );
    this.address = stale.address;
    this.lockTaskId = lockTaskId;
    this.differences = stale.differences;
  }
}

/** Reads after a lock task finished before concluding it was not this change (~3 s with the CLI's policy). */
const LOCK_SETTLE_READS = 4;

/** What the executor reports while it works; the text and JSON views implement these. */
export interface ApplyHooks {
  onStart?(change: ResourceChange): void;
  onProgress?(change: ResourceChange, message: string, taskIds: readonly string[]): void;
  onFinish?(change: ResourceChange, outcome: ResourceOutcome): void;
}

/** How the executor re-reads a resource after acting, until it shows the planned result. */
export interface ConfirmPolicy {
  attempts: number;
  delayMs: (attempt: number) => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface ExecuteOptions {
  plan: Plan;
  providers: ProviderRegistry['resources'];
  /** The context actions run in; aborting its signal stops everything at once. */
  ctx: ProviderContext;
  parallelism: number;
  /** Aborted on the first interrupt: no new action starts; running ones finish. */
  stop?: AbortSignal;
  hooks?: ApplyHooks;
  confirm: ConfirmPolicy;
}

/**
 * Runs exactly the actions of a plan, walking its dependency graph with bounded parallelism.
 * A resource starts only when everything it depends on has finished successfully and every
 * check it depends on passed (checks are not run again: the plan's result counts); dependants
 * of a failure or of a check that did not pass are skipped (naming the root cause once);
 * independent branches go on. Before acting, the executor re-reads the resource and waits for
 * a platform lock (`task_id`), and sends nothing when the lock's task changed what the plan saw
 * or a first interrupt came meanwhile; after acting, it re-reads until the planned result shows.
 */
export async function executePlan(options: ExecuteOptions): Promise<ApplyOutcome> {
  const { plan, hooks = {} } = options;
  const changes = new Map(plan.resource_changes.map((c) => [c.address, c]));
  // Checks are nodes of the graph too: never executed, they gate their dependants with the
  // result the plan evaluated (a check that did not pass is a root cause, like a failure).
  const checks = new Map(plan.checks.map((c) => [c.address, c]));
  const graph = buildGraph([...plan.resource_changes, ...plan.checks].map((n) => ({ address: n.address, dependsOn: n.depends_on })));
  const outcomes = new Map<string, ResourceOutcome>();
  const running = new Map<string, Promise<void>>();
  const abort = options.ctx.signal;

  /** Whether a node is done and good ('ok'), not yet ('pending'), or will never be (its root cause). */
  const stateOf = (address: string): 'ok' | 'pending' | { rootCause: string } => {
    const check = checks.get(address);
    if (check) {
      if (check.status !== 'pass') return { rootCause: address };
      return dependenciesState(address);
    }
    const o = outcomes.get(address);
    if (o === undefined) return 'pending';
    if (o.status === 'applied' || o.status === 'unchanged') return 'ok';
    return { rootCause: o.skippedBecause ?? address };
  };
  const dependenciesState = (address: string): 'ok' | 'pending' | { rootCause: string } => {
    let pending = false;
    for (const dep of graph.dependencies.get(address) ?? []) {
      const state = stateOf(dep);
      if (typeof state === 'object') return state;
      if (state === 'pending') pending = true;
    }
    return pending ? 'pending' : 'ok';
  };

  const finish = (change: ResourceChange, outcome: ResourceOutcome) => {
    outcomes.set(change.address, outcome);
    hooks.onFinish?.(change, outcome);
    if (outcome.status === 'failed' || outcome.status === 'skipped') {
      for (const dependant of transitiveDependants(graph, change.address)) {
        const d = changes.get(dependant);
        if (!d || outcomes.has(dependant)) continue;
        const root = outcome.skippedBecause ?? change.address;
        const skipped: ResourceOutcome = { address: dependant, action: d.action, status: 'skipped', taskIds: [], skippedBecause: root };
        outcomes.set(dependant, skipped);
        hooks.onFinish?.(d, skipped);
      }
    }
  };

  for (;;) {
    if (!abort.aborted && !options.stop?.aborted) {
      for (const change of plan.resource_changes) {
        if (running.size >= options.parallelism) break;
        if (outcomes.has(change.address) || running.has(change.address)) continue;
        const state = dependenciesState(change.address);
        if (typeof state === 'object') {
          finish(change, { address: change.address, action: change.action, status: 'skipped', taskIds: [], skippedBecause: state.rootCause });
          continue;
        }
        if (state === 'pending') continue;
        if (change.action === 'no-op') {
          finish(change, { address: change.address, action: change.action, status: 'unchanged', taskIds: [] });
          continue;
        }
        running.set(
          change.address,
          runAction(change, options).then((outcome) => {
            running.delete(change.address);
            finish(change, outcome);
          }),
        );
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }

  for (const change of plan.resource_changes) {
    if (!outcomes.has(change.address)) outcomes.set(change.address, { address: change.address, action: change.action, status: 'not-started', taskIds: [] });
  }
  return {
    resources: plan.resource_changes.map((c) => outcomes.get(c.address)!),
    interrupted: options.stop?.aborted === true || abort.aborted,
    aborted: abort.aborted,
  };
}

/** One update or delete: wait for a lock, act, confirm. Never throws; failures become outcomes. */
async function runAction(change: ResourceChange, options: ExecuteOptions): Promise<ResourceOutcome> {
  const provider = resourceProvider(options.providers, change.type);
  const hooks = options.hooks ?? {};
  const taskIds: string[] = [];
  const started = Date.now();
  const ctx: ProviderContext = {
    ...options.ctx,
    stopping: options.stop,
    async waitForTasks(ids, wait) {
      for (const id of ids) if (!taskIds.includes(id)) taskIds.push(id);
      await options.ctx.waitForTasks(ids, wait);
    },
    progress(message, detail) {
      for (const id of detail?.taskIds ?? []) if (!taskIds.includes(id)) taskIds.push(id);
      hooks.onProgress?.(change, message, taskIds);
    },
  };
  hooks.onStart?.(change);
  const result = (status: ResourceOutcome['status'], error?: unknown): ResourceOutcome => ({
    address: change.address,
    action: change.action,
    status,
    taskIds,
    elapsedMs: Date.now() - started,
    ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
  });
  try {
    const observed = await provider.read(ctx, change.desired);
    let current = observed;
    const lockTaskId = observed.exists ? observed.lockTaskId : undefined;
    if (lockTaskId) {
      const finished = await waitForLock(ctx, lockTaskId);
      // A finished lock task may have made this very change (an earlier, abandoned run), and
      // reads can lag it: re-read a few times before deciding to send anything. Only a few:
      // when the lock was someone else's change, the resource will never look done.
      const attempts = finished ? Math.min(options.confirm.attempts, LOCK_SETTLE_READS) : 1;
      const settled = await readUntilDone(provider, change, ctx, { ...options.confirm, attempts });
      if (settled.done) return result('unchanged');
      current = settled.observed;
    } else if (isDone(provider, change, observed)) {
      return result('unchanged');
    }
    // A first interrupt that came during the lock wait or the reads: nothing was sent yet.
    if (options.stop?.aborted) return result('not-started');
    if (lockTaskId) assertUnchangedSincePlan(provider, change, current, lockTaskId);
    await provider.apply(ctx, change);
    await confirm(provider, change, ctx, options.confirm);
    return result('applied');
  } catch (error) {
    if (options.ctx.signal.aborted) return result('aborted', error);
    return result('failed', error);
  }
}

/**
 * Waits for the task holding a resource's lock. That task is not this change: when it ends in
 * ERROR the lock is released all the same, so the change goes on from a fresh read (the
 * failure is reported as progress, not as this resource's failure).
 */
async function waitForLock(ctx: ProviderContext, taskId: string): Promise<boolean> {
  ctx.progress(`waiting for the platform task that holds the lock [task ${taskId}]`, { taskIds: [taskId] });
  try {
    await ctx.waitForTasks([taskId]);
    return true;
  } catch (error) {
    // The stable code of the API's TaskFailedError (apply/ does not import api/).
    if (!(error instanceof EdgeformError) || error.code !== 'EDGEFORM_TASK_FAILED') throw error;
    ctx.progress(`the lock is released: ${error.message}; going on with the planned change`);
    return false;
  }
}

/**
 * Throws ChangedWhileLockedError when the resource's observed fields are no longer those the
 * plan was made from: the planned payload would act on a state that is gone.
 */
function assertUnchangedSincePlan(provider: DynamicResourceProvider, change: ResourceChange, observed: Observation, lockTaskId: string): void {
  const fresh = observedFields(provider, change.desired, observed);
  if (fingerprint(fresh) !== change.fingerprint) throw new ChangedWhileLockedError(describeStaleness(change, fresh), lockTaskId);
}

/** Whether an observation already shows what the change wants. */
function isDone(provider: DynamicResourceProvider, change: ResourceChange, observed: Observation): boolean {
  if (change.action === 'delete') return !observed.exists;
  if (!observed.exists) return false;
  const again = provider.plan(change.desired, observed.state);
  return again.action === 'no-op' && again.errors.length === 0;
}

/** Re-reads (up to the policy's attempts) until the planned result shows; returns the last observation. */
async function readUntilDone(provider: DynamicResourceProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy): Promise<{ done: boolean; observed: Observation }> {
  let observed: Observation = { exists: false };
  for (let attempt = 0; attempt < Math.max(1, policy.attempts); attempt++) {
    if (attempt > 0) await policy.sleep(policy.delayMs(attempt), ctx.signal);
    observed = await provider.read(ctx, change.desired);
    if (isDone(provider, change, observed)) return { done: true, observed };
  }
  return { done: false, observed };
}

/** Re-reads until the planned result shows (the platform's reads can lag a finished task). */
async function confirm(provider: DynamicResourceProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy): Promise<void> {
  const { done, observed } = await readUntilDone(provider, change, ctx, policy);
  if (done) return;
  const seen = observed.exists ? provider.summarize(observed.state) : null;
  throw new InconsistentResultError(change.address, change.after, seen);
}
