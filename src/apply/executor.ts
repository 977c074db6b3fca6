import { ChangedSincePlanError, EdgeformError, InconsistentResultError, OutcomeUnknownError, RunFatalError, StoppedError, TaskFailedError, type StaleLock } from '../errors.js';
import { canonicalJson } from '../plan/fingerprint.js';
import { describeStaleness } from '../plan/saved-plan.js';
import type { FieldChange, Plan, ResourceChange } from '../plan/types.js';
import { urgentClient, watchWrites, type WriteWatch } from '../kinds/context.js';
import { isRefusal } from '../kinds/shared.js';
import { bindProvider, type BoundProvider, type FinishedTask, type Observation, type ProviderContext, type ProviderRegistry } from '../kinds/provider.js';
import { runFollowUps } from './follow-ups.js';
import type { ApplyOutcome, FollowUpOutcome, ResourceOutcome, RunError } from './outcome.js';
import { matchesPlanned, matchesPlannedChange, replanResolved, resolveChange } from './resolve-references.js';
import { createApplyWalk, type ApplyWalk, type WalkStep } from './walk.js';

/**
 * Reads after a lock task of another type than the provider's own update finished, before
 * going on (~3 s with CONFIRM_POLICY): such a task is not this change, so only its own
 * read lag is waited out. A lock task of the provider's own type may be this very change,
 * abandoned by an earlier run, and gets the full confirm policy.
 */
const LOCK_SETTLE_READS = 4;

/** What the executor reports while it works; the text and JSON views implement these. */
export interface ApplyHooks {
  onStart?(change: ResourceChange): void;
  onProgress?(change: ResourceChange, message: string, taskIds: readonly string[]): void;
  onFinish?(change: ResourceChange, outcome: ResourceOutcome): void;
  /**
   * A replace's destroy is done (`destroyed`, its outcome) and its create waits for what it
   * depends on: nothing of it runs until its create starts (an onProgress), and it is reported
   * once, by onFinish, when that is done.
   */
  onPaused?(change: ResourceChange, destroyed: ResourceOutcome): void;
  /**
   * A run-fatal error (the key refused, the platform unavailable) stopped the run: called once,
   * when it first happens; no action starts after it, running ones end on their own.
   */
  onRunError?(error: RunError): void;
  /** A change's follow-up (its `follow_up`: a CDN purge) starts, once every change has ended; its progress comes through onProgress. */
  onFollowUpStart?(change: ResourceChange): void;
  /** A change's follow-up ended (or was skipped, or not started). */
  onFollowUpFinish?(change: ResourceChange, outcome: FollowUpOutcome): void;
}

/** How the executor re-reads a resource after acting, until it shows the planned result. */
export interface ConfirmPolicy {
  attempts: number;
  delayMs: (attempt: number) => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The re-reads apply makes to confirm a change (and to let reads catch up after a lock task of
 * its own kind): 12 reads, 0.5 s more apart each time up to 3 s (about 25 s in all), since the
 * platform's reads can lag a finished task. The caller adds how to sleep (the wall clock, or a
 * test's clock).
 */
export const CONFIRM_POLICY: Readonly<Pick<ConfirmPolicy, 'attempts' | 'delayMs'>> = Object.freeze({
  attempts: 12,
  delayMs: (attempt: number) => Math.min(500 * attempt, 3000),
});

export interface ExecuteOptions {
  plan: Plan;
  providers: ProviderRegistry['resources'];
  /** The context actions run in; aborting its signal stops everything at once. */
  ctx: ProviderContext;
  /**
   * Most actions whose change starts platform tasks running at once (--max-tasks): each holds a
   * task slot from its first read to its end (BoundProvider.startsTasks), so this bounds the
   * run's tasks in flight. An action that starts no task (a DNS record set, a FastEdge app) holds
   * none and never waits for one. Requests are bounded apart from it, by the context's client
   * (--parallelism): an action waiting on its task holds no request slot.
   */
  maxTasks: number;
  /**
   * Aborted on the first interrupt: no new action starts; running ones finish what they sent.
   * An action still waiting on a lock (or re-reading after it) ends at once, not started; a
   * multi-step change stops between steps and ends `stopped`.
   */
  stop?: AbortSignal;
  hooks?: ApplyHooks;
  confirm: ConfirmPolicy;
}

/**
 * Runs exactly the actions of a plan, walking its dependency graph with at most `maxTasks`
 * actions that start platform tasks at once (those that start none are not counted): a ready
 * change that needs a task slot while none is free waits for one, in the order it became ready,
 * and the changes behind it that need none go on.
 * A resource starts only when everything it depends on has finished successfully and every
 * check it depends on passed (checks are not run again: the plan's result counts); dependants
 * of a failure or of a check that did not pass are skipped (naming the root cause once);
 * independent branches go on; a no-op is unchanged whatever it depends on. A replace is two
 * steps, as Terraform runs it (see applySteps): its destroy, after the destroys of what depends
 * on it, and its create, after its destroy and what it depends on; each address is still
 * reported once, when both are done (`onPaused` between them), and a replace whose create is
 * skipped before its destroy started is not destroyed. Before acting, the
 * executor re-reads the resource and waits for a platform lock (`task_id`); right before an
 * update or a replace's destroy is sent, a fresh plan of the resource must still be the planned
 * change (see assertStillPlanned), else nothing is sent. A first interrupt during the lock wait or the reads
 * ends the resource not started; after acting, it re-reads until the planned result shows. Once
 * the platform acknowledged a change, a failing confirming read leaves it applied with a warning
 * and its dependants go on. A RunFatalError (the key refused, the platform unavailable) stops the
 * run: no further action starts, the rest are not started, and `runError` names it (an action
 * that had sent nothing yet, or nothing that reached the platform, ends not started; one whose
 * request may have taken effect failed). A replace whose destroy was done when the run stopped
 * (an interrupt, a run-fatal error) ends `stopped`, `destroyed`: the next plan creates it.
 */
export async function executePlan(options: ExecuteOptions): Promise<ApplyOutcome> {
  const { plan, hooks = {} } = options;
  const walk = createApplyWalk(plan);
  // The state each resource was left in (its last read), for the references of its dependants.
  const states = new Map<string, Readonly<Record<string, unknown>>>();
  // The desired attributes each change ran with (references resolved), for its follow-up.
  const ran = new Map<string, Record<string, unknown>>();
  const abort = options.ctx.signal;
  // The keys of the steps running now.
  const running = new Set<string>();
  const wakeup = createWakeup();
  const report = createReporter(walk, hooks, running);
  let runError: RunError | undefined;
  const stopRun = (error: RunFatalError) => {
    if (runError !== undefined) return;
    runError = { code: error.code, message: error.message };
    hooks.onRunError?.(runError);
  };
  // The reads that confirm changes go ahead of queued writes (see urgentClient): one client for the run, made when first needed.
  let urgent: ProviderContext['api'] | undefined;
  const confirming = () => (urgent ??= urgentClient(options.ctx.api));
  const slots = createTaskSlots(options.maxTasks, (step) => options.providers[step.change.type].startsTasks?.(actionOf(step)) ?? true);
  const start = (step: WalkStep) => {
    if (!slots.take(step)) return;
    const change = step.change;
    const acting = step.phase === 'destroy' ? ({ ...change, action: 'delete' } as ResourceChange) : step.phase === 'create' ? createStepOf(change) : change;
    // A change reading what this apply made: its references resolved now that their blocks are done
    // (a replace's destroy needs none of them: it only acts on the old resource).
    const ready =
      step.phase !== 'destroy' && acting.references
        ? resolveChange(acting, (address) => states.get(address), options.providers, options.plan.stack.name ?? null, options.ctx.seal)
        : { change: acting };
    if ('error' in ready) {
      slots.release(step);
      report.settleStep(step, { address: change.address, action: change.action, status: 'failed', taskIds: [], error: `${change.address}: ${ready.error}` });
      return;
    }
    running.add(step.key);
    if (step.phase !== 'destroy') ran.set(change.address, ready.change.desired as Record<string, unknown>);
    wakeup.watch(
      runAction(step, ready.change, options, confirming, stopRun, (state) => states.set(change.address, state)),
      (outcome) => {
        running.delete(step.key);
        slots.release(step);
        report.settleStep(step, outcome);
      },
    );
  };

  await checkReplaces(walk, options, report, stopRun);
  for (;;) {
    if (!abort.aborted && !options.stop?.aborted && runError === undefined) {
      slots.startWaiting(start);
      startReadySteps(walk, report, start);
    }
    if (running.size === 0) break;
    await wakeup.next();
  }

  const followUps = await runFollowUps({
    changes: plan.resource_changes,
    providers: options.providers,
    ctx: options.ctx,
    outcomes: walk.outcomes,
    desired: (address) => ran.get(address),
    state: (address) => states.get(address),
    stopped: () => abort.aborted || options.stop?.aborted === true || runError !== undefined,
    onRunError: stopRun,
    onStart: (change) => hooks.onFollowUpStart?.(change),
    onProgress: (change, message) => hooks.onProgress?.(change, message, []),
    onFinish: (change, outcome) => hooks.onFollowUpFinish?.(change, outcome),
  });
  return {
    resources: plan.resource_changes.map((c) =>
      report.outcomeAtEnd(c, options.stop?.aborted === true || abort.aborted ? 'the interrupt came' : `the run stopped (${runError?.code ?? 'an error'})`),
    ),
    ...(followUps.length === 0 ? {} : { followUps }),
    interrupted: options.stop?.aborted === true || abort.aborted,
    aborted: abort.aborted,
    ...(runError === undefined ? {} : { runError }),
  };
}

/**
 * Before anything is sent, each replace's checks of its create (ResourceProvider.beforeReplace:
 * its payload, an instance's flavor in its region): one that fails fails the replace before its
 * destroy, and skips what waits for its create, whose destroys then never start either, so a
 * chain of replacements destroys nothing when one of its creates would be refused for a reason
 * known now. A RunFatalError stops the run (the replace is not started).
 */
async function checkReplaces(walk: ApplyWalk, options: ExecuteOptions, report: Reporter, stopRun: (error: RunFatalError) => void): Promise<void> {
  const stack = options.plan.stack.name ?? null;
  const replaces = options.plan.resource_changes.filter((c) => c.action === 'replace');
  const failures = await Promise.all(
    replaces.map(async (change) => {
      try {
        await bindProvider(options.providers, change, stack, options.ctx.seal).beforeReplace(options.ctx);
        return undefined;
      } catch (error) {
        return { change, error };
      }
    }),
  );
  for (const failure of failures) {
    if (failure === undefined) continue;
    const { change, error } = failure;
    const fatal = error instanceof RunFatalError;
    if (fatal) stopRun(error);
    const message = error instanceof Error ? error.message : String(error);
    report.settleStep(walk.stepsOf(change.address)[0]!, {
      address: change.address,
      action: change.action,
      status: fatal ? 'not-started' : 'failed',
      taskIds: [],
      ...(fatal ? {} : { error: message }),
    });
  }
}

/** The change a replace's create step carries out: a create of the block, from the replace's create plan. */
function createStepOf(change: ResourceChange): ResourceChange {
  return { ...change, action: 'create' } as ResourceChange;
}

/**
 * One pass over the steps that are ready, in declaration order: a no-op is unchanged, a step
 * whose dependency failed or whose check did not pass is skipped, any other step starts (or
 * waits for a task slot, see createTaskSlots).
 */
function startReadySteps(walk: ApplyWalk, report: Reporter, start: (step: WalkStep) => void): void {
  walk.startPass();
  for (;;) {
    const step = walk.nextReady();
    if (step === undefined) return;
    const { change } = step;
    const state = walk.dependenciesState(step.key);
    // A no-op has nothing to skip: it is unchanged before any gate applies (a failing check it
    // depends on must not fail the run), while its dependants still see the gate.
    if (change.action === 'no-op') {
      if (typeof state === 'object') walk.gate(step.key, state.rootCause);
      report.settleStep(step, { address: change.address, action: change.action, status: 'unchanged', taskIds: [] });
    } else if (typeof state === 'object') {
      report.settleStep(step, { address: change.address, action: change.action, status: 'skipped', taskIds: [], skippedBecause: state.rootCause });
    } else {
      start(step);
    }
  }
}

/** How the steps' outcomes become each address's one outcome, reported once (see createReporter). */
interface Reporter {
  /**
   * The one place a step finishes: records its outcome; a failure (or a skip) skips every step
   * that depends on it, naming the root cause once (a no-op among them stays unchanged, and its
   * own dependants are skipped all the same), and a replace whose create is skipped before its
   * destroy started is not destroyed either; recording releases the steps that waited for it.
   * An address is reported (onFinish) once its outcome is decided.
   */
  settleStep(step: WalkStep, outcome: ResourceOutcome): void;
  /**
   * The address's outcome at the end of the run: a replace whose destroy was done and whose
   * create never started is `stopped` (reported now; `why` it never started); anything else
   * undecided is not started.
   */
  outcomeAtEnd(change: ResourceChange, why: string): ResourceOutcome;
}

/** The reporter of one run (see Reporter); `running` holds the keys of the steps running now. */
function createReporter(walk: ApplyWalk, hooks: ApplyHooks, running: ReadonlySet<string>): Reporter {
  const reported = new Set<string>();
  const reportIfDecided = (change: ResourceChange) => {
    if (reported.has(change.address)) return;
    const outcome = addressOutcome(walk, change);
    if (outcome === undefined) return;
    reported.add(change.address);
    hooks.onFinish?.(change, outcome);
  };
  /** Skips the undecided dependants of `key` (and the destroys of replaces whose creates are skipped). */
  const skipDependants = (key: string, root: string) => {
    const touched: ResourceChange[] = [];
    const work = [key];
    for (let from = work.pop(); from !== undefined; from = work.pop()) {
      for (const dependant of walk.undecidedDependants(from)) {
        if (walk.outcomes.has(dependant.key) || running.has(dependant.key)) continue;
        const { change } = dependant;
        if (change.action === 'no-op') walk.gate(dependant.key, root);
        walk.record(
          dependant.key,
          change.action === 'no-op'
            ? { address: change.address, action: change.action, status: 'unchanged', taskIds: [] }
            : { address: change.address, action: change.action, status: 'skipped', taskIds: [], skippedBecause: root },
        );
        touched.push(change);
        // A replacement that will not be created is not destroyed either (unless its destroy already runs).
        const destroy = dependant.phase === 'create' ? walk.stepsOf(change.address)[0] : undefined;
        if (destroy !== undefined && !walk.outcomes.has(destroy.key) && !running.has(destroy.key)) {
          walk.record(destroy.key, { address: change.address, action: change.action, status: 'skipped', taskIds: [], skippedBecause: root });
          work.push(destroy.key);
        }
      }
    }
    for (const change of touched) reportIfDecided(change);
  };
  return {
    settleStep(step, outcome) {
      walk.record(step.key, outcome);
      const done = outcome.status === 'applied' || outcome.status === 'unchanged';
      if (step.phase === 'destroy' && done && !walk.outcomes.has(step.change.address)) {
        hooks.onPaused?.(step.change, outcome);
      } else {
        reportIfDecided(step.change);
      }
      if (outcome.status === 'failed' || outcome.status === 'skipped') skipDependants(step.key, outcome.skippedBecause ?? step.change.address);
    },
    outcomeAtEnd(change, why) {
      const decided = addressOutcome(walk, change);
      if (decided !== undefined) return decided;
      const [destroy] = walk.stepsOf(change.address);
      const destroyed = walk.stepsOf(change.address).length === 2 ? walk.outcomes.get(destroy!.key) : undefined;
      if (destroyed?.status !== 'applied') return { address: change.address, action: change.action, status: 'not-started', taskIds: [] };
      const outcome = mergeReplace(change, destroyed, { address: change.address, action: 'create', status: 'not-started', taskIds: [], error: why });
      hooks.onFinish?.(change, outcome);
      return outcome;
    },
  };
}

/**
 * The outcome of an address once it is decided, else undefined: a change's own; for a replace,
 * its destroy's when that did not succeed, else both steps' (see mergeReplace) once its create is decided.
 */
function addressOutcome(walk: ApplyWalk, change: ResourceChange): ResourceOutcome | undefined {
  const steps = walk.stepsOf(change.address);
  if (steps.length === 1) return walk.outcomes.get(steps[0]!.key);
  const destroyed = walk.outcomes.get(steps[0]!.key);
  if (destroyed === undefined) return undefined;
  if (destroyed.status !== 'applied' && destroyed.status !== 'unchanged') return { ...destroyed, action: change.action };
  const created = walk.outcomes.get(steps[1]!.key);
  return created === undefined ? undefined : mergeReplace(change, destroyed, created);
}

/**
 * A replace's one outcome from its two steps, its destroy done (applied, or already gone): applied
 * when its create was made; when it was not (failed, skipped, never started), `destroyed` says
 * the old resource is gone, and a create that never started after a destroy is `stopped`.
 */
function mergeReplace(change: ResourceChange, destroyed: ResourceOutcome, created: ResourceOutcome): ResourceOutcome {
  const gone = destroyed.status === 'applied';
  const warnings = [...(destroyed.warnings ?? []), ...(created.warnings ?? [])];
  const base = {
    address: change.address,
    action: change.action,
    taskIds: [...destroyed.taskIds, ...created.taskIds],
    elapsedMs: (destroyed.elapsedMs ?? 0) + (created.elapsedMs ?? 0),
    ...(warnings.length === 0 ? {} : { warnings }),
    ...(created.id === undefined ? {} : { id: created.id }),
    ...(created.identity === undefined ? {} : { identity: created.identity }),
  };
  const half = gone ? { destroyed: true as const } : {};
  switch (created.status) {
    case 'applied':
      return { ...base, status: 'applied' };
    case 'unchanged':
      return { ...base, status: gone ? 'applied' : 'unchanged' };
    case 'not-started':
      return gone
        ? {
            ...base,
            ...half,
            status: 'stopped',
            error: `the old ${change.type} was destroyed, and ${created.error ?? 'the run stopped'} before its replacement was created: the next apply creates it`,
          }
        : { ...base, status: 'not-started' };
    case 'failed':
      return {
        ...base,
        ...half,
        status: 'failed',
        error: gone ? `the old ${change.type} was destroyed; creating its replacement failed: ${created.error ?? 'unknown error'}` : (created.error ?? 'unknown error'),
      };
    case 'skipped':
      return { ...base, ...half, status: 'skipped', ...(created.skippedBecause === undefined ? {} : { skippedBecause: created.skippedBecause }) };
    default:
      return { ...base, ...half, status: created.status, ...(created.error === undefined ? {} : { error: created.error }) };
  }
}

/** The task slots of one apply (see createTaskSlots). */
interface TaskSlots {
  /** Whether `step` may start now: true when it needs no slot or takes a free one; false when it now waits for one. */
  take(step: WalkStep): boolean;
  /** Gives back the slot `step` holds, if it holds one. */
  release(step: WalkStep): void;
  /** Starts the steps waiting for a slot, in the order they came, while slots are free. */
  startWaiting(start: (step: WalkStep) => void): void;
}

/** What a step carries out: a replace's destroy deletes, its create creates; any other step is its change. */
function actionOf(step: WalkStep): ResourceChange['action'] {
  return step.phase === 'destroy' ? 'delete' : step.phase === 'create' ? 'create' : step.change.action;
}

/**
 * --max-tasks: at most `max` actions that start platform tasks (`startsTasks`) at once. A ready
 * step that needs a slot while none is free, or while others wait for one, waits in line (in
 * the order it became ready: no step overtakes another for a slot); a step that needs none
 * starts at once whatever the line holds. The line is a queue read from its head, O(1) a step.
 */
function createTaskSlots(max: number, startsTasks: (step: WalkStep) => boolean): TaskSlots {
  const holding = new Set<string>();
  const line: WalkStep[] = [];
  let head = 0;
  let draining = false;
  return {
    take(step) {
      if (!startsTasks(step)) return true;
      const waiting = head < line.length && !draining;
      if (waiting || holding.size >= max) {
        line.push(step);
        return false;
      }
      holding.add(step.key);
      return true;
    },
    release(step) {
      holding.delete(step.key);
    },
    startWaiting(start) {
      draining = true;
      try {
        while (head < line.length && holding.size < max) start(line[head++]!);
      } finally {
        draining = false;
      }
      if (head === line.length) {
        line.length = 0;
        head = 0;
      }
    },
  };
}

/** A wait of the walk's loop for the next action to end. */
interface Wait {
  readonly promise: Promise<void>;
  settled: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * How the walk's loop waits for an action to end, as `await Promise.race(running actions)`
 * would, in as many microtask turns (so actions that end together are taken up together, as
 * before), at O(1) an action instead of a reaction added to every running action each time.
 * An action that rejects (a bug, or a hook that threw) rejects the wait it ends, or the next.
 */
function createWakeup(): { watch<T>(action: Promise<T>, onEnd: (result: T) => void): void; next(): Promise<void> } {
  let current: Wait = openWait();
  let failure: { error: unknown } | null = null;
  return {
    watch(action, onEnd) {
      action
        .then((result) => {
          // The wait the loop is in when the action ends (the race it would have been part of).
          const wait = current;
          onEnd(result);
          return wait;
        })
        .then(
          (wait) => {
            if (!wait.settled) wait.resolve();
          },
          (error: unknown) => {
            if (!current.settled) current.reject(error);
            else failure ??= { error };
          },
        );
    },
    next() {
      if (failure !== null) return Promise.reject(failure.error);
      current = openWait();
      return current.promise;
    },
  };
}

function openWait(): Wait {
  let handlers!: { resolve: () => void; reject: (error: unknown) => void };
  const promise = new Promise<void>((resolve, reject) => (handlers = { resolve, reject }));
  const wait: Wait = {
    promise,
    settled: false,
    resolve: () => {
      wait.settled = true;
      handlers.resolve();
    },
    reject: (error) => {
      wait.settled = true;
      handlers.reject(error);
    },
  };
  return wait;
}

/**
 * One step: wait for a lock, act, confirm. `acting` is what the provider carries out: the
 * change itself (its references resolved), or for a replace's steps a delete of the old
 * resource (checked against the planned replace first, see assertStillPlanned) or a create of
 * the new one; the outcome and the hooks name the planned change (`step.change`). Never throws;
 * failures become outcomes, and a RunFatalError is also handed to `stopRun`.
 */
async function runAction(
  step: WalkStep,
  acting: ResourceChange,
  options: ExecuteOptions,
  confirming: () => ProviderContext['api'],
  stopRun: (error: RunFatalError) => void,
  leftAt: (state: Readonly<Record<string, unknown>>) => void,
): Promise<ResourceOutcome> {
  const stack = options.plan.stack.name ?? null;
  const planned = step.change;
  let change = acting;
  let provider = bindProvider(options.providers, change, stack, options.ctx.seal);
  const hooks = options.hooks ?? {};
  const stop = options.stop;
  const taskIds: string[] = [];
  const started = Date.now();
  const ctx: ProviderContext = {
    ...options.ctx,
    stopping: stop,
    async waitForTasks(ids, wait) {
      for (const id of ids) if (!taskIds.includes(id)) taskIds.push(id);
      return options.ctx.waitForTasks(ids, wait);
    },
    progress(message, detail) {
      for (const id of detail?.taskIds ?? []) if (!taskIds.includes(id)) taskIds.push(id);
      hooks.onProgress?.(planned, message, taskIds);
    },
  };
  // A replace started with its destroy; its create goes on from there.
  if (step.phase === 'create') hooks.onProgress?.(planned, `creating the new ${planned.type}`, taskIds);
  else hooks.onStart?.(planned);
  const result = (status: ResourceOutcome['status'], error?: unknown, warnings: string[] = [], made?: Observation): ResourceOutcome => {
    if (made?.exists) leftAt(made.state);
    return outcomeOf(status, error, warnings, made);
  };
  const outcomeOf = (status: ResourceOutcome['status'], error?: unknown, warnings: string[] = [], made?: Observation): ResourceOutcome => ({
    address: planned.address,
    action: planned.action,
    status,
    taskIds,
    elapsedMs: Date.now() - started,
    ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
    ...(status === 'failed' && isRefusal(error) ? { refused: true as const } : {}),
    ...(warnings.length === 0 ? {} : { warnings }),
    ...(made === undefined ? {} : createdIdentity(provider, change, made)),
  });
  let sent = false;
  let writes: WriteWatch | null = null;
  try {
    const observed = await provider.read(ctx);
    let current = observed;
    const lockTaskId = observed.exists ? observed.lockTaskId : undefined;
    if (lockTaskId) {
      const lock = await waitForLock(ctx, lockTaskId, stop, provider.taskTimeoutMs);
      if (lock.kind === 'stopped') return result('not-started');
      // A finished lock task of the provider's own kind may have made this very change (an
      // earlier, abandoned run), and reads can lag it: re-read with the full policy before
      // deciding to send anything. Another kind of task only gets a few reads for its own lag.
      const ownKind = lock.kind === 'finished' && provider.taskType !== undefined && lock.tasks.some((t) => t.task_type === provider.taskType);
      const attempts = lock.kind !== 'finished' ? 1 : ownKind ? options.confirm.attempts : Math.min(options.confirm.attempts, LOCK_SETTLE_READS);
      const settled = await readUntilDone(provider, change, ctx, { ...options.confirm, attempts }, stop);
      if (settled === 'stopped') return result('not-started');
      // Sensitive values sent again never show: a resource that is otherwise done still gets them.
      if (settled.done && !change.resend_sensitive) return result('unchanged', undefined, [], settled.observed);
      current = settled.observed;
    } else if (!change.resend_sensitive && isDone(provider, change, observed)) {
      // A create already made (by an earlier run that was interrupted after sending it).
      return result('unchanged', undefined, [], observed);
    }
    // A first interrupt that came during the lock wait or the reads: nothing was sent yet.
    if (stop?.aborted) return result('not-started');
    const lock: StaleLock | null = lockTaskId ? { taskId: lockTaskId, seen: 'at-apply' } : change.lock_task_id ? { taskId: change.lock_task_id, seen: 'at-plan' } : null;
    if (step.phase === 'destroy') {
      // The old resource is destroyed only while a fresh plan is still the planned replace.
      assertStillPlanned(bindProvider(options.providers, planned, stack, options.ctx.seal), planned, current, lock);
    } else if (change.action === 'update' || change.action === 'replace') {
      assertStillPlanned(provider, change, current, lock);
      // Values the plan knew only after apply (references) are known now: send what they resolved to.
      if (change.references && current.exists) {
        change = replanResolved(change, provider.plan(current.state), options.providers, stack, options.ctx.seal);
        provider = bindProvider(options.providers, change, stack, options.ctx.seal);
      }
    }
    // Something matching the block's identity appeared since the plan and is not what the
    // stack declares: creating another would make the identity ambiguous; updating it was not reviewed.
    if (change.action === 'create' && current.exists) {
      const foundBy = current.foundBy ?? change.identity ?? 'its identity';
      throw new ChangedSincePlanError(
        { address: change.address, differences: [`it was planned for create, but a ${change.type} matching ${foundBy} exists now with other values`] },
        null,
      );
    }
    sent = true;
    // Whether a write of this action may have taken effect: a request refused before it reached
    // the platform leaves the resource as it was, so the action did not start.
    const applying = watchWrites(() => provider.apply(ctx));
    writes = applying.watch;
    const applied = await applying.done;
    const acknowledged = applied !== 'unacknowledged';
    // A write answered with the resource as the platform stored it (ApplyResult `observed`, a
    // synchronous API): that answer confirms the change when it shows the planned result.
    const answered = typeof applied === 'object' && isDone(provider, change, applied.observed) ? applied.observed : undefined;
    const confirmed = answered ?? (await confirm(provider, change, { ...ctx, api: confirming() }, options.confirm, acknowledged));
    // The change stands even when the platform went down during that read (a run-fatal error):
    // the run stops only if another action then needs the platform (its first request meets the
    // same error), so a run whose last change is merely unconfirmed still succeeds.
    const warning = confirmed instanceof EdgeformError ? confirmed : null;
    return result('applied', undefined, warning === null ? [] : [describeUnconfirmed(warning)], warning === null ? (confirmed as Observation) : undefined);
  } catch (error) {
    if (options.ctx.signal.aborted) return result('aborted', error);
    // A multi-step change the first interrupt stopped between steps: interrupted, not failed.
    if (sent && stop?.aborted && error instanceof StoppedError) return result('stopped', error);
    if (error instanceof RunFatalError) {
      stopRun(error);
      // Nothing was sent, or nothing that reached the platform (a refused connection): the run
      // stopped before this change took effect, and the run's error says why. The next run does it.
      if (!sent || (writes !== null && writes.writes > 0 && !writes.mayHaveActed)) return result('not-started');
    }
    return result('failed', error);
  }
}

/** A created or replaced resource's id (BoundProvider.idOf: a record set's ZONE/NAME/TYPE) and identity, from the read that found it. */
function createdIdentity(provider: BoundProvider, change: ResourceChange, observed: Observation): Pick<ResourceOutcome, 'id' | 'identity'> {
  if ((change.action !== 'create' && change.action !== 'replace') || !observed.exists) return {};
  const id = provider.idOf(observed.state);
  const identity = observed.foundBy ?? change.identity;
  return { ...(id === undefined || id === null ? {} : { id: String(id) }), ...(identity === undefined ? {} : { identity }) };
}

/** The warning of an acknowledged change whose confirming read failed. */
function describeUnconfirmed(error: EdgeformError): string {
  return `the platform acknowledged the change, but the read that confirms it failed: ${error.message}. Run edgeform plan to check it.`;
}

/** How the wait for a lock ended. */
type LockWait = { kind: 'finished'; tasks: FinishedTask[] } | { kind: 'failed' } | { kind: 'stopped' };

/**
 * Waits for the task holding a resource's lock. That task is not this change: when it ends in
 * ERROR the lock is released all the same, so the change goes on from a fresh read (the
 * failure is reported as progress, not as this resource's failure). The first interrupt
 * (`stop`) ends the wait at once: the lock task runs on, and nothing was sent. `timeoutMs` is the
 * kind's task timeout.
 */
async function waitForLock(ctx: ProviderContext, taskId: string, stop: AbortSignal | undefined, timeoutMs: number | undefined): Promise<LockWait> {
  ctx.progress(`waiting for the platform task that holds the lock [task ${taskId}]`, { taskIds: [taskId] });
  if (stop?.aborted) return { kind: 'stopped' };
  try {
    return { kind: 'finished', tasks: await ctx.waitForTasks([taskId], { ...(stop ? { signal: stop } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }) }) };
  } catch (error) {
    if (stop?.aborted && !ctx.signal.aborted) return { kind: 'stopped' };
    if (!(error instanceof TaskFailedError)) throw error;
    ctx.progress(`the lock is released: ${error.message}; going on with the planned change`);
    return { kind: 'failed' };
  }
}

/**
 * Right before an update is sent (the resource is known not to be done yet): a fresh plan of
 * the resource (the provider's pure plan) must have exactly the planned changes (same fields,
 * same from and to values) and end at the same `after`, or be progress the provider recognises
 * along the planned change (a k8s upgrade whose first step was already made). Anything else (a
 * field now changing from another value, other fields, another result, a plan error, the
 * resource gone) throws ChangedSincePlanError: a resize from a flavor the plan never showed is
 * not what was approved.
 */
function assertStillPlanned(provider: BoundProvider, change: ResourceChange, observed: Observation, lock: StaleLock | null): void {
  if (!observed.exists) throw new ChangedSincePlanError(describeStaleness(change, null), lock);
  const fresh = provider.plan(observed.state);
  const planned = new Set(change.changes.map(changeKey));
  // A change with pending references planned KNOWN_AFTER_APPLY where their values now stand.
  const unplanned = change.references
    ? fresh.changes.filter((c) => !change.changes.some((p) => matchesPlannedChange(p, c)))
    : fresh.changes.filter((c) => !planned.has(changeKey(c)));
  // A replace ends at a new resource (its `after` is the create plan's, ids known after apply):
  // the fresh plan must still be a replace, with the planned changes.
  const sameResult =
    change.action === 'replace'
      ? fresh.action === 'replace'
      : change.references
        ? matchesPlanned(change.after, fresh.after)
        : canonicalJson(fresh.after) === canonicalJson(change.after);
  const progressed = provider.isProgressOf(fresh);
  if (fresh.errors.length === 0 && sameResult && (unplanned.length === 0 || progressed)) return;
  const differences = describeStaleness(change, fresh.before).differences;
  for (const e of fresh.errors) differences.push(`now: ${e.summary}`);
  if (differences.length === 0) {
    if (unplanned.length > 0) differences.push(`a fresh plan also changes ${unplanned.map((c) => c.path.join('.')).join(', ')}`);
    if (!sameResult) differences.push(`a fresh plan ends at ${JSON.stringify(fresh.after)}, the plan at ${JSON.stringify(change.after)}`);
  }
  throw new ChangedSincePlanError({ address: change.address, differences }, lock);
}

/** A change as the user saw it in the plan: the field, and where it goes from and to. */
const changeKey = (c: FieldChange) => canonicalJson([c.path, c.op, c.before ?? null, c.after ?? null]);

/** Whether an observation already shows what the change wants. */
function isDone(provider: BoundProvider, change: ResourceChange, observed: Observation): boolean {
  if (change.action === 'delete') return !observed.exists;
  if (!observed.exists) return false;
  return provider.isSettled(observed.state);
}

/** The last observation of a series of re-reads, and whether it shows the planned result. */
type Settled = { done: boolean; observed: Observation };

/**
 * Re-reads (up to the policy's attempts) until the planned result shows; returns the last
 * observation, or 'stopped' when `stop` aborted before the next read (its waits end at once).
 */
function readUntilDone(provider: BoundProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy): Promise<Settled>;
function readUntilDone(provider: BoundProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy, stop: AbortSignal | undefined): Promise<Settled | 'stopped'>;
async function readUntilDone(provider: BoundProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy, stop?: AbortSignal): Promise<Settled | 'stopped'> {
  const signal = stop ? AbortSignal.any([ctx.signal, stop]) : ctx.signal;
  let observed: Observation = { exists: false };
  for (let attempt = 0; attempt < Math.max(1, policy.attempts); attempt++) {
    if (attempt > 0) {
      if (stop?.aborted) return 'stopped';
      try {
        await policy.sleep(policy.delayMs(attempt), signal);
      } catch (error) {
        if (stop?.aborted && !ctx.signal.aborted) return 'stopped';
        throw error;
      }
      if (stop?.aborted) return 'stopped';
    }
    observed = await provider.read(ctx);
    if (isDone(provider, change, observed)) return { done: true, observed };
  }
  return { done: false, observed };
}

/**
 * Re-reads until the planned result shows (the platform's reads can lag a finished task).
 * Resolves with the observation that shows it; throws InconsistentResultError when the reads worked but
 * show another result, or OutcomeUnknownError when the platform never acknowledged the request
 * (its answer was lost) and the reads do not show it took effect. When a read fails, the change stands if the platform acknowledged it:
 * resolves with that read's error (for a warning); otherwise the error is thrown.
 */
async function confirm(provider: BoundProvider, change: ResourceChange, ctx: ProviderContext, policy: ConfirmPolicy, acknowledged: boolean): Promise<EdgeformError | Observation> {
  let settled: Settled;
  try {
    settled = await readUntilDone(provider, change, ctx, policy);
  } catch (error) {
    if (acknowledged && !ctx.signal.aborted && error instanceof EdgeformError) return error;
    throw error;
  }
  if (settled.done) return settled.observed;
  const seen = settled.observed.exists ? provider.summarize(settled.observed.state) : null;
  // The request's answer was lost: that it shows nothing is no inconsistency, only an unknown outcome.
  if (!acknowledged) {
    throw new OutcomeUnknownError(
      seen === null
        ? `${change.address}: no ${change.type} matching ${change.identity ?? 'its identity'} exists after the request`
        : `${change.address} still does not show the planned result after the request (observed: ${JSON.stringify(seen)})`,
    );
  }
  throw new InconsistentResultError({ address: change.address, planned: change.after, observed: seen });
}
