import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { BASE_URL_ENV } from '../api/base-url.js';
import { LOCK_URL_ENV } from '../env.js';
import { createRedactor, secretsFromEnv } from '../api/redact.js';
import { sleep } from '../api/sleep.js';
import { CONFIRM_POLICY, executePlan } from '../apply/executor.js';
import { succeeded, type ApplyOutcome } from '../apply/outcome.js';
import type { Stack } from '../config/types.js';
import { comparePlans, isPlanFileCandidate, parsePlanFile, savedTargets } from '../plan/saved-plan.js';
import { isTargetedPlan, targetedApplyWarning } from '../plan/targets.js';
import { EdgeformError, InterruptedError, PlanFileError, StalePlanError, UsageError } from '../errors.js';
import type { Plan, SavedPlan } from '../plan/types.js';
import { payloadSchemas, type ProviderContext } from '../kinds/provider.js';
import { providers } from '../kinds/providers.js';
import { APPLY_FORMATS, createApplyView, type ApplyFormat, type ApplyView, type RunningAction } from '../render/apply-view.js';
import { askApproval } from './approval.js';
import { defineCommand } from './command.js';
import { ExitCode, type CliIO } from './io.js';
import { ciJobUrl, StackLocks } from './stack-lock.js';
import { createRunReporter } from './run-reporter.js';
import {
  CHECK_QUOTA_OPTION,
  checkMaxTasks,
  checkParallelism,
  DEFAULT_MAX_TASKS,
  MAX_MAX_TASKS,
  planStack,
  progressIntervalFromEnv,
  RESEND_SENSITIVE_OPTION,
  type PlanStackOptions,
} from './plan-stack.js';
import { foreignReader } from './fleet-references.js';
import { checkSweepArgs, SWEEP_OPTIONS } from './sweep-options.js';
import { createFleetApplyView, type FleetApplyOutcome } from '../render/sweep-view.js';

interface ApplyArgs {
  path: string;
  /** `--stacks ROOT` (with --shard, --changed-since): apply every stack under ROOT in dependency order. */
  stacks?: string;
  shard?: string;
  changedSince?: string;
  autoApprove: boolean;
  parallelism: number;
  maxTasks: number;
  taskTimeout?: string;
  target: string[];
  /** `--resend-sensitive` (yargs defaults it to []). */
  resendSensitive?: string[];
  format: ApplyFormat;
  stack?: string;
  lock: boolean;
  /** `--lock-timeout` (yargs defaults it to 0s). */
  lockTimeout?: string;
  /** `--check-quota` (yargs defaults it to true). */
  checkQuota?: boolean;
}

/** `edgeform apply`: carry out a plan, from a stack (after approval) or a saved plan file. */
export const applyCommand = defineCommand<ApplyArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file, directory, or a plan file written by plan --out' })
      .options(SWEEP_OPTIONS)
      .option('auto-approve', { type: 'boolean', default: false, describe: 'Do not ask for confirmation (for pipelines)' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Requests to the platform at the same time' })
      .option('max-tasks', {
        type: 'number',
        default: DEFAULT_MAX_TASKS,
        describe: `Changes that start platform tasks in flight at the same time, so tasks running at once (1 to ${MAX_MAX_TASKS}); changes that start none are not counted`,
      })
      .option('task-timeout', { type: 'string', describe: 'Longest wait for one platform task, e.g. 30m, 90s (default 20m; 60m for k8s upgrades)' })
      .option('target', { type: 'string', array: true, requiresArg: true, default: [] as string[], describe: 'Apply only this address and what it depends on (repeatable)' })
      .option('resend-sensitive', RESEND_SENSITIVE_OPTION)
      .option('check-quota', CHECK_QUOTA_OPTION(true))
      .option('format', { choices: APPLY_FORMATS, default: 'text' as const, describe: 'Progress output: text, or one JSON event per line' })
      .option('lock', {
        type: 'boolean',
        default: true,
        describe:
          "Hold the stack's apply lock (its real path's, a named stack's on its platform, and with EDGEFORM_LOCK_URL that one across machines) while applying; --lock=false when applies are serialized another way",
      })
      .option('lock-timeout', {
        type: 'string',
        default: '0s',
        requiresArg: true,
        describe: 'How long to wait for a lock another apply holds, retrying with backoff, e.g. 5m (default 0s: refuse at once, naming the holder)',
      })
      .option('stack', {
        type: 'string',
        requiresArg: true,
        describe: 'With a saved plan: the stack it was made from (default: the path the plan recorded, inside the working directory)',
      }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    checkMaxTasks(args.maxTasks);
    // A bad EDGEFORM_PROGRESS_INTERVAL is refused before anything is read.
    progressIntervalFromEnv(io.env);
    const taskTimeoutMs = args.taskTimeout === undefined ? undefined : parseDuration(args.taskTimeout);
    // A bad --lock-timeout is refused before anything is read.
    parseDuration(args.lockTimeout ?? '0s', { flag: '--lock-timeout', zero: true });
    const verbsOf = (c: Plan['resource_changes'][number]): [string, string] =>
      c.action === 'create'
        ? ['Creating', 'Created']
        : c.action === 'replace'
          ? ['Replacing', 'Replaced']
          : providers.resources[c.type].verbs[c.action === 'delete' ? 'delete' : 'update'];
    checkSweepArgs('apply', { ...args, path: args.path as string | undefined });
    if (args.stacks !== undefined) {
      if (args.target.length > 0 || args.stack !== undefined) throw new UsageError('--target and --stack go with one stack, not --stacks');
      return await applyFleet({ ...args, stacks: args.stacks }, io, taskTimeoutMs, () => createApplyView(args.format, io, { verbsOf }));
    }
    const view = createApplyView(args.format, io, { verbsOf });
    const interrupts = new ApplyInterrupts(view);
    try {
      const planFile = await readPlanFileIfAny(args.path);
      if (planFile !== undefined) {
        if (args.target.length > 0) throw new UsageError('--target cannot be used with a saved plan; it applies exactly what it contains');
        if ((args.resendSensitive ?? []).length > 0) throw new UsageError('--resend-sensitive cannot be used with a saved plan; give it to edgeform plan, the plan file keeps it');
        return await applySavedPlan(args, io, view, interrupts, taskTimeoutMs, parsePlanFile(planFile, args.path, payloadSchemas(providers.resources)));
      }
      if (args.stack !== undefined) throw new UsageError('--stack is only for a saved plan: give the stack as PATH instead');
      return await applyStack(args, io, view, interrupts, taskTimeoutMs);
    } catch (error) {
      // Interrupted while reading (planning, or checking a saved plan): nothing was changed.
      if (interrupts.abort.signal.aborted) return ExitCode.interrupted;
      // The key refused, the platform unavailable, a stale plan...: the error boundary prints it,
      // and the view says the run did not happen (JSON output still ends with its change_summary;
      // a bug's message and stack stay on stderr).
      view.notRun(
        error instanceof EdgeformError
          ? { code: error.code, message: error.message }
          : { code: 'EDGEFORM_BUG', message: 'an unexpected error occurred; this is a bug in edgeform (see stderr)' },
      );
      throw error;
    } finally {
      interrupts.dispose();
    }
  },
});

/**
 * `apply --stacks ROOT`: every stack of the selection (see loadFleet), one after the other in the
 * order their `${stack:...}` references make, each as `apply PATH` applies it (its plan shown,
 * approved, under its own locks), planned once the stacks it reads are applied, so its
 * references read what they made. A stack that fails (invalid, its plan errored, a change
 * failed, its lock refused) stops the stacks that read it, not the others; an interrupt stops the
 * run. Ends with what was applied, what failed and what was not started: exit 0 when every stack
 * was applied, 130 when interrupted, else 1.
 */
async function applyFleet(args: ApplyArgs & { stacks: string }, io: CliIO, taskTimeoutMs: number | undefined, createView: () => ApplyView): Promise<number> {
  const fleetView = createFleetApplyView(args.format, io);
  const { loadFleet } = await import('./stack-sweep.js');
  const fleet = await loadFleet({ root: args.stacks, env: io.env, shard: args.shard, changedSince: args.changedSince });
  const outcome: FleetApplyOutcome = { applied: [], failed: [], notStarted: [] };
  const failedNames = new Set<string>();
  let interrupted = false;
  for (const item of fleet.stacks) {
    const label = { path: item.path, name: item.name };
    const blockedBy = item.reads.filter((name) => failedNames.has(name));
    if (interrupted || blockedBy.length > 0) {
      outcome.notStarted.push({ ...label, reason: interrupted ? 'interrupted' : `it reads ${blockedBy.map((n) => `"${n}"`).join(', ')}, which did not apply` });
      if (item.name !== null) failedNames.add(item.name);
      continue;
    }
    fleetView.stackStarted(label);
    const view = createView();
    let code: number;
    if (!item.valid || item.stack === undefined) {
      view.invalidStack(item.diagnostics, item.files);
      code = ExitCode.error;
    } else {
      const interrupts = new ApplyInterrupts(view);
      try {
        const foreign = foreignReader(fleet.stacks, { policy: 'apply' });
        code = await applyStack({ ...args, path: item.path }, io, view, interrupts, taskTimeoutMs, foreign);
      } catch (error) {
        if (interrupts.abort.signal.aborted) code = ExitCode.interrupted;
        else if (error instanceof EdgeformError) {
          view.notRun({ code: error.code, message: error.message });
          io.err(`Error: ${error.message}`);
          code = ExitCode.error;
        } else throw error;
      } finally {
        interrupts.dispose();
      }
    }
    if (code === ExitCode.ok) outcome.applied.push(label);
    else {
      if (code === ExitCode.interrupted) interrupted = true;
      outcome.failed.push({ ...label, reason: code === ExitCode.interrupted ? 'interrupted' : 'see its output above' });
      if (item.name !== null) failedNames.add(item.name);
    }
  }
  fleetView.summary(outcome);
  if (interrupted) return ExitCode.interrupted;
  return outcome.failed.length === 0 && outcome.notStarted.length === 0 ? ExitCode.ok : ExitCode.error;
}

async function applyStack(
  args: ApplyArgs,
  io: CliIO,
  view: ApplyView,
  interrupts: ApplyInterrupts,
  taskTimeoutMs: number | undefined,
  foreign?: PlanStackOptions['foreign'],
): Promise<number> {
  const locks = await lockIfAsked(args, args.path, io, interrupts.abort.signal);
  try {
    return await applyStackLocked(args, io, view, interrupts, taskTimeoutMs, locks, foreign);
  } finally {
    await locks?.release();
  }
}

/**
 * Takes the stack's path lock unless --lock=false: two applies of one stack at once could both
 * plan the same create and make it twice. Resolves with the run's locks (undefined without),
 * to which holdNameLock adds the lock of the stack's name once the stack is read.
 */
async function lockIfAsked(args: ApplyArgs, stackPath: string, io: CliIO, signal: AbortSignal): Promise<StackLocks | undefined> {
  if (!args.lock) return undefined;
  const command = createRedactor(secretsFromEnv(io.env))(['edgeform', ...io.argv].map(quoteArg).join(' '));
  const locks = new StackLocks({
    command,
    job: ciJobUrl(io.env),
    warn: (message) => io.err(`Warning: ${message}`),
    lockTimeoutMs: parseDuration(args.lockTimeout ?? '0s', { flag: '--lock-timeout', zero: true }),
    waiting: (message) => io.err(`Waiting: ${message}`),
    signal,
  });
  await locks.holdPath(stackPath);
  return locks;
}

/**
 * For planStack's admit: a named stack's apply also holds the lock of its name on the platform
 * it talks to (and, with EDGEFORM_LOCK_URL, that lock across machines), taken after the stack is
 * read and before anything is read from the platform, so the plan it executes is made under
 * every lock that applies. A lock across machines is keyed by the stack's name: a stack without
 * one is refused rather than applied unlocked.
 */
async function holdNameLock(locks: StackLocks | undefined, stack: Stack, baseUrl: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (locks === undefined) return;
  if (stack.name !== undefined) return locks.holdName(stack.name, baseUrl, env);
  if (env[LOCK_URL_ENV]?.trim()) {
    throw new UsageError(
      `${LOCK_URL_ENV} is set, but the stack has no name: to lock it by across machines; nothing was applied. Add "name: <stack name>" at the top of the stack (the name its applies on every machine share), or pass --lock=false if its applies are serialized another way.`,
    );
  }
}

/** A command-line argument as a shell would need it, for the lock's holder record. */
function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

async function applyStackLocked(
  args: ApplyArgs,
  io: CliIO,
  view: ApplyView,
  interrupts: ApplyInterrupts,
  taskTimeoutMs: number | undefined,
  locks: StackLocks | undefined,
  foreign?: PlanStackOptions['foreign'],
): Promise<number> {
  const result = await planStack({
    path: args.path,
    env: io.env,
    parallelism: args.parallelism,
    targets: args.target,
    ...(foreign ? { foreign } : {}),
    resendSensitive: args.resendSensitive,
    assess: { quota: args.checkQuota !== false, cost: false },
    protect: (values) => io.protect(values),
    signal: interrupts.abort.signal,
    taskTimeoutMs,
    admit: (stack, baseUrl) => holdNameLock(locks, stack, baseUrl, io.env),
    reporter: createRunReporter(io),
  });
  if (result.kind === 'invalid') {
    view.invalidStack(result.diagnostics, result.files);
    return ExitCode.error;
  }
  try {
    const { plan } = result;
    await view.plan(plan, result.files);
    if (plan.errored) {
      view.planErrored(plan);
      return ExitCode.error;
    }
    // Nothing to change: no question; the executor only reports every resource unchanged.
    if (!plan.applyable) return await execute(plan, result.ctx, args, view, interrupts, io.env, args.path);
    if (!args.autoApprove) {
      if (!io.stdin.isTTY) {
        view.approvalUnavailable();
        return ExitCode.error;
      }
      const answer = await askApproval(io, view.promptStream === 'stderr' ? io.stderr : io.stdout, interrupts.abort.signal);
      if (answer !== 'approved') {
        view.cancelled();
        return answer === 'interrupted' ? ExitCode.interrupted : ExitCode.error;
      }
    }
    return await execute(plan, result.ctx, args, view, interrupts, io.env, args.path);
  } finally {
    await result.api.close();
  }
}

/**
 * `apply PLANFILE`: the plan file says what was reviewed, never what is sent. The stack it was
 * made from is read again from the working tree (or --stack) and must have the plan's digest;
 * the platform is the one this run resolves (EDGEFORM_BASE_URL, else that stack's base_url) and
 * must be the plan's; the live state is read and planned again, and only a fresh plan equal to
 * the saved one is executed, so every request body is derived here and now.
 */
async function applySavedPlan(args: ApplyArgs, io: CliIO, view: ApplyView, interrupts: ApplyInterrupts, taskTimeoutMs: number | undefined, saved: SavedPlan): Promise<number> {
  if (!saved.applyable) {
    view.savedPlanEmpty();
    return ExitCode.ok;
  }
  const stackPath = await locatePlannedStack(saved, args.stack, args.path);
  const locks = await lockIfAsked(args, stackPath, io, interrupts.abort.signal);
  try {
    return await applySavedPlanLocked(args, io, view, interrupts, taskTimeoutMs, saved, stackPath, locks);
  } finally {
    await locks?.release();
  }
}

async function applySavedPlanLocked(
  args: ApplyArgs,
  io: CliIO,
  view: ApplyView,
  interrupts: ApplyInterrupts,
  taskTimeoutMs: number | undefined,
  saved: SavedPlan,
  stackPath: string,
  locks: StackLocks | undefined,
): Promise<number> {
  const result = await planStack({
    path: stackPath,
    env: io.env,
    parallelism: args.parallelism,
    signal: interrupts.abort.signal,
    taskTimeoutMs,
    targets: (stack) =>
      savedTargets(
        saved,
        [...stack.resources, ...stack.checks].map((b) => b.address),
      ),
    // What the plan sent again of its sensitive values, the fresh plan sends again too.
    resendSensitive: saved.resource_changes.filter((c) => c.resend_sensitive).map((c) => c.address),
    assess: { quota: args.checkQuota !== false, cost: false },
    protect: (values) => io.protect(values),
    admit: async (stack, baseUrl) => {
      admitSavedPlan(saved, stack, baseUrl, stackPath, io.env);
      await holdNameLock(locks, stack, baseUrl, io.env);
    },
    reporter: createRunReporter(io),
  });
  if (result.kind === 'invalid') {
    view.savedStackInvalid(stackPath, result.diagnostics, result.files);
    return ExitCode.error;
  }
  try {
    const fresh = result.plan;
    if (fresh.errored) {
      view.replanFailed(fresh, result.files);
      throw new StalePlanError('Planning the stack again for the saved plan failed (see above); nothing was applied. Run edgeform plan again.');
    }
    const stale = comparePlans(saved, fresh);
    if (stale.length > 0) {
      const lines = stale.flatMap((s) => [`  ${s.address}:`, ...s.differences.map((d) => `    ${d}`)]);
      const edited = stale.some((s) => s.differences.some((d) => d.includes('plan file')));
      const what = edited ? 'Saved plan does not match what its stack and the platform give now' : 'Saved plan is stale: the platform changed since the plan was made';
      throw new StalePlanError(`${what}. Nothing was applied.\n${lines.join('\n')}\nRun edgeform plan again and review the new plan.`);
    }
    const savedChecks = new Map(saved.checks.map((c) => [c.address, c]));
    for (const check of fresh.checks) {
      const was = savedChecks.get(check.address)?.status;
      if (was !== undefined && was !== check.status) view.checkChanged(check, was);
    }
    return await execute(fresh, result.ctx, args, view, interrupts, io.env, stackPath);
  } finally {
    await result.api.close();
  }
}

/**
 * Refuses a saved plan before anything is sent when the stack on disk is not the one it was
 * made from (digest), or this run would talk to another platform than the plan was read from.
 */
function admitSavedPlan(saved: SavedPlan, stack: Stack, baseUrl: string, stackPath: string, env: NodeJS.ProcessEnv): void {
  if (stack.digest !== saved.stack.digest) {
    throw new StalePlanError(
      `the stack at ${stackPath} is not the stack the saved plan was made from (its digest is ${stack.digest.slice(0, 12)}…, the plan's ${saved.stack.digest.slice(0, 12)}…); nothing was applied. Check out the commit the plan was made from, or run edgeform plan again.`,
    );
  }
  if (baseUrl === saved.base_url) return;
  const source = env[BASE_URL_ENV] ? BASE_URL_ENV : 'the stack and the default';
  throw new StalePlanError(
    `the saved plan was made against ${saved.base_url}, but this run would talk to ${baseUrl} (from ${source}); refusing to apply it elsewhere. To apply it to ${saved.base_url}, set ${BASE_URL_ENV}=${saved.base_url}.`,
  );
}

/**
 * The stack a saved plan is applied with: --stack when given; else the path the plan recorded,
 * which must lie inside the working directory (the checkout the pipeline reviewed). A plan file
 * can be edited, so it never chooses a file elsewhere on the machine, whose provider.base_url
 * would decide where the key is sent.
 */
async function locatePlannedStack(saved: SavedPlan, explicit: string | undefined, planFile: string): Promise<string> {
  if (explicit !== undefined) return explicit;
  const sources = saved.stack.sources;
  const dirs = new Set(sources.map((s) => dirname(s)));
  if (sources.length > 1 && dirs.size > 1) throw new PlanFileError(`${planFile} is a corrupt plan file: its stack sources are not one file or one directory`);
  const [recorded] = sources.length === 1 ? sources : dirs;
  if (recorded === undefined) throw new PlanFileError(`${planFile} is a corrupt plan file: it names no stack source`);
  const cwd = await realpath(process.cwd());
  const where = await realpath(resolve(cwd, recorded)).catch(() => null);
  if (where === null) {
    throw new StalePlanError(
      `the stack the saved plan was made from (${recorded}) is not in this working directory; run apply where plan ran, or name the stack with --stack PATH`,
    );
  }
  const inside = relative(cwd, where);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new StalePlanError(
      `the saved plan names a stack outside this working directory (${recorded}); apply reads the stack only from the working tree. Run apply where plan ran, or name the stack with --stack PATH`,
    );
  }
  return recorded;
}

async function execute(
  plan: Plan,
  ctx: ProviderContext,
  args: ApplyArgs,
  view: ApplyView,
  interrupts: ApplyInterrupts,
  env: NodeJS.ProcessEnv,
  stackPath: string,
): Promise<number> {
  const running = new Map<string, RunningAction>();
  interrupts.executing(() => [...running.values()]);
  const heartbeat = setInterval(() => view.tick(), progressIntervalFromEnv(env));
  heartbeat.unref();
  let outcome: ApplyOutcome;
  try {
    outcome = await executePlan({
      plan,
      providers: providers.resources,
      ctx,
      maxTasks: args.maxTasks,
      stop: interrupts.stop.signal,
      confirm: { ...CONFIRM_POLICY, sleep },
      hooks: {
        onStart(change) {
          running.set(change.address, { address: change.address, taskIds: [] });
          view.onStart?.(change);
        },
        onProgress(change, message, taskIds) {
          running.set(change.address, { address: change.address, taskIds: [...taskIds] });
          view.onProgress?.(change, message, taskIds);
        },
        onPaused(change, destroyed) {
          // A replace between its destroy and its create runs nothing: an interrupt waits for none of it.
          running.delete(change.address);
          view.onPaused?.(change, destroyed);
        },
        onFinish(change, result) {
          running.delete(change.address);
          view.onFinish?.(change, result);
        },
        onFollowUpStart(change) {
          running.set(change.address, { address: change.address, taskIds: [] });
          view.onFollowUpStart?.(change);
        },
        onFollowUpFinish(change, result) {
          running.delete(change.address);
          view.onFollowUpFinish?.(change, result);
        },
      },
    });
  } finally {
    clearInterval(heartbeat);
  }
  view.summary(outcome, isTargetedPlan(plan) ? [targetedApplyWarning(stackPath)] : []);
  if (outcome.interrupted) return ExitCode.interrupted;
  return succeeded(outcome) ? ExitCode.ok : ExitCode.error;
}

/**
 * Two-stage interrupts: the first SIGINT/SIGTERM stops new actions and lets running ones
 * finish (`stop`); the second abandons them at once (`abort`), listing their task ids.
 */
class ApplyInterrupts {
  readonly stop = new AbortController();
  readonly abort = new AbortController();
  /** The running actions, once the executor runs; undefined while planning or reading. */
  private running?: () => RunningAction[];
  private readonly handler = () => this.onSignal();

  constructor(private readonly view: ApplyView) {
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  /** The executor starts: interrupts from now on stop new actions, then abandon running ones. */
  executing(running: () => RunningAction[]): void {
    this.running = running;
  }

  private onSignal(): void {
    if (!this.running) {
      // Still planning or reading: nothing was changed yet, so stop at once.
      this.view.interruptedBeforeChanges();
      this.stop.abort();
      this.abort.abort(new InterruptedError('interrupted before any change was made'));
      return;
    }
    if (!this.stop.signal.aborted) {
      this.stop.abort();
      this.view.interruptRequested(this.running());
      return;
    }
    if (!this.abort.signal.aborted) {
      this.view.abortRequested(this.running());
      this.abort.abort(new InterruptedError('interrupted twice'));
    }
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

/** The text of PATH when apply should read it as a saved plan (see isPlanFileCandidate), else undefined. */
async function readPlanFileIfAny(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return undefined;
  const bytes = await readFile(path);
  return isPlanFileCandidate(path, bytes) ? bytes.toString('utf8') : undefined;
}

/** "90s", "30m", "1h", "1500ms" or plain seconds, as milliseconds. */
export function parseDuration(text: string, options: { flag: string; zero?: boolean } = { flag: '--task-timeout' }): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`${options.flag}: "${text}" is not a duration such as 90s, 30m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(match[1]) * unit;
  if (ms <= 0 && !options.zero) throw new UsageError(`${options.flag} must be more than zero`);
  return ms;
}
