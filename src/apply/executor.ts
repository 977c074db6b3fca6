import { EdgeformError } from '../errors.js';
import { buildGraph, transitiveDependants } from '../plan/graph.js';
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
 * A resource starts only when everything it depends on has finished successfully; dependants
 * of a failure are skipped (naming the root cause once); independent branches go on. Before
 * acting, the executor re-reads the resource and waits for a platform lock (`task_id`); after
 * acting, it re-reads until the planned result shows.
 */
export async function executePlan(options: ExecuteOptions): Promise<ApplyOutcome> {
  const { plan, hooks = {} } = options;
  const changes = new Map(plan.resource_changes.map((c) => [c.address, c]));
  const graph = buildGraph(plan.resource_changes.map((c) => ({ address: c.address, dependsOn: c.depends_on })));
  const outcomes = new Map<string, ResourceOutcome>();
  const running = new Map<string, Promise<void>>();
  const abort = options.ctx.signal;

  const ready = (address: string) => (graph.dependencies.get(address) ?? []).every((d) => {
    const o = outcomes.get(d);
    return o !== undefined && (o.status === 'applied' || o.status === 'unchanged');
  });
  const blockedBy = (address: string): string | undefined => {
    for (const dep of graph.dependencies.get(address) ?? []) {
      const o = outcomes.get(dep);
      if (o && o.status !== 'applied' && o.status !== 'unchanged') return o.skippedBecause ?? dep;
    }
    return undefined;
  };

  const finish = (change: ResourceChange, outcome: ResourceOutcome) => {
    outcomes.set(change.address, outcome);
    hooks.onFinish?.(change, outcome);
    if (outcome.status === 'failed' || outcome.status === 'skipped') {
      for (const dependant of transitiveDependants(graph, change.address)) {
        if (outcomes.has(dependant)) continue;
        const d = changes.get(dependant)!;
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
        const cause = blockedBy(change.address);
        if (cause) {
          finish(change, { address: change.address, action: change.action, status: 'skipped', taskIds: [], skippedBecause: cause });
          continue;
        }
        if (!ready(change.address)) continue;
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
    if (observed.exists && observed.lockTaskId) {
      const finished = await waitForLock(ctx, observed.lockTaskId);
      // A finished lock task may have made this very change (an earlier, abandoned run), and
      // reads can lag it: re-read a few times before deciding to send anything. Only a few:
      // when the lock was someone else's change, the resource will never look done.
      const attempts = finished ? Math.min(options.confirm.attempts, LOCK_SETTLE_READS) : 1;
      const settled = await readUntilDone(provider, change, ctx, { ...options.confirm, attempts });
      if (settled.done) return result('unchanged');
    } else if (isDone(provider, change, observed)) {
      return result('unchanged');
    }
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
