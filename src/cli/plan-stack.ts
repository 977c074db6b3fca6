import type { ApiClient } from '../api/client.js';
import { resolveApiKey } from '../api/auth.js';
import { resolveBaseUrl } from '../api/base-url.js';
import { createApiClient } from '../api/client.js';
import { DEFAULT_TASK_POLL_SCHEDULE, type TaskPollSchedule } from '../api/tasks.js';
import { UsageError } from '../errors.js';
import { createOutageBreaker, createRetryQuota } from '../api/retry.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { hasErrors } from '../config/diagnostics.js';
import { loadStack } from '../config/load-stack.js';
import { sensitiveValues } from '../config/sensitive-fields.js';
import { withSensitiveFiles } from '../config/file-fields.js';
import type { Stack } from '../config/types.js';
import { buildPlan } from '../plan/planner.js';
import { selectTargets } from '../plan/targets.js';
import type { Plan } from '../plan/types.js';
import { createProviderContext } from '../kinds/context.js';
import { ownerSealFromEnv } from '../kinds/owner-seal.js';
import type { ProviderContext, ReadResult } from '../kinds/provider.js';
import { readStack } from '../kinds/read-stack.js';
import { refuseBlockedDestroys } from '../plan/destroy-blockers.js';
import { assessPlan, type AssessOptions } from '../kinds/plan-economics.js';
import { providers } from '../kinds/providers.js';
import { VERSION } from '../version.js';
import { refuseStackReferences } from './fleet-references.js';
import { boundHeapGrowth } from './heap-growth.js';
import type { RunReporter } from './run-reporter.js';

/** Settings shared by plan, apply and drift. */
export interface PlanStackOptions {
  path: string;
  env: NodeJS.ProcessEnv;
  parallelism: number;
  /** --target addresses, or a function of the loaded stack that chooses them. */
  targets: readonly string[] | ((stack: Stack) => readonly string[]);
  signal: AbortSignal;
  taskTimeoutMs?: number;
  /**
   * Called with the valid stack and the base URL it resolves to, before anything is sent (reads
   * included) and awaited: throws to refuse the run (a saved plan made from another stack or for
   * another platform; another apply holds the lock of the stack's name).
   */
  admit?: (stack: Stack, baseUrl: string) => void | Promise<void>;
  /** Where progress, retries and the debug request log go (see createRunReporter); nowhere when absent. */
  reporter?: RunReporter;
  /** `--resend-sensitive` addresses: their sensitive values are sent again (see PlanInput.resendSensitive). */
  resendSensitive?: readonly string[];
  /** Given the values of the stack's sensitive fields once it is loaded, for the output to redact (CliIO.protect). */
  protect?: (values: readonly string[]) => void;
  /** How its `${stack:...}` references are read (apply --stacks, see foreignReader); default: refused (refuseStackReferences). */
  foreign?: ReadAndPlanOptions['foreign'];
  /** The quota check (`--check-quota`) and the prices (`plan --cost`) of the plan (assessPlan); neither when absent. */
  assess?: AssessOptions;
}

/** A stack that could not be used: its diagnostics, and nothing was sent to the API. */
export interface InvalidStack {
  kind: 'invalid';
  diagnostics: Diagnostic[];
  /** The stack files' text (secrets masked), for the diagnostics' code frames. */
  files: ReadonlyMap<string, string>;
}

/** A stack that was read and planned; the caller owns (and closes) the client. */
export interface PlannedStack {
  kind: 'planned';
  stack: Stack;
  plan: Plan;
  api: ApiClient;
  ctx: ProviderContext;
  /** The stack files' text (secrets masked), for the plan's diagnostics. */
  files: ReadonlyMap<string, string>;
}

/**
 * Connects to the platform at `baseUrl` with the key from the environment: one retry quota
 * and one outage breaker for the run (the first refused connection, or 3 s of nothing but
 * failures, stops the whole run), at most --parallelism requests on the wire at once (task polls first in line),
 * the task poll schedule of the environment. Callers resolve `baseUrl` with resolveBaseUrl (a
 * saved plan never chooses it).
 */
export function connect(
  baseUrl: string,
  options: Pick<PlanStackOptions, 'env' | 'signal' | 'taskTimeoutMs' | 'parallelism' | 'reporter'> & { secrets?: readonly string[] },
): { api: ApiClient; ctx: ProviderContext } {
  const reporter = options.reporter;
  const api = createApiClient({
    baseUrl,
    apiKey: resolveApiKey(options.env),
    retryQuota: createRetryQuota(),
    outage: createOutageBreaker(),
    maxConcurrentRequests: options.parallelism,
    ...(options.secrets && options.secrets.length > 0 ? { secrets: options.secrets } : {}),
    ...(reporter ? { onRetry: (event) => reporter.retry(event), onExchange: (event) => reporter.exchange(event) } : {}),
  });
  const ctx = createProviderContext({
    api,
    signal: options.signal,
    taskTimeoutMs: options.taskTimeoutMs,
    pollSchedule: pollScheduleFromEnv(options.env),
    env: options.env,
    seal: ownerSealFromEnv(options.env),
  });
  return { api, ctx };
}

/** Refuses a --parallelism that is not a whole number from 1 to 100. */
export function checkParallelism(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--parallelism must be a whole number from 1 to 100, got ${describeNumber(n)}`);
}

/** A number flag's value in an error: yargs reads a word that is not a number (`--parallelism abc`) as NaN. */
function describeNumber(n: number): string {
  return Number.isNaN(n) ? 'a value that is not a number' : String(n);
}

/**
 * The default of --max-tasks, the platform tasks one apply has running at once (changes that
 * start no task are not counted). At the default --parallelism (10) and 100-200 ms a request,
 * apply starts at most 50-100 tasks a second; for tasks of about 5 s (the platform's suggested
 * poll interval for VM operations) that is 250-500 running at once: 500 lets the request limit,
 * not this one, pace such an apply, and still bounds longer tasks (VM creates, cluster
 * upgrades) and what an interrupt leaves running (docs/commands.md).
 */
export const DEFAULT_MAX_TASKS = 500;

/** The largest --max-tasks. */
export const MAX_MAX_TASKS = 1000;

/** Refuses a --max-tasks that is not a whole number from 1 to MAX_MAX_TASKS. */
export function checkMaxTasks(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_MAX_TASKS) throw new UsageError(`--max-tasks must be a whole number from 1 to ${MAX_MAX_TASKS}, got ${describeNumber(n)}`);
}

/** Name of the variable that sets how often apply prints its "Still ..." lines, in milliseconds. */
export const PROGRESS_INTERVAL_ENV = 'EDGEFORM_PROGRESS_INTERVAL';

/** How often apply says what it is still waiting on, by default: every 10 s, as Terraform does. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * The interval of apply's "Still resizing... [20s elapsed]" lines: DEFAULT_PROGRESS_INTERVAL_MS,
 * or EDGEFORM_PROGRESS_INTERVAL ms (a whole number from 100 to 3600000): shorter for a demo,
 * longer for a quieter CI log.
 */
export function progressIntervalFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[PROGRESS_INTERVAL_ENV];
  if (raw === undefined || raw === '') return DEFAULT_PROGRESS_INTERVAL_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 3_600_000)
    throw new UsageError(`${PROGRESS_INTERVAL_ENV} must be a whole number of milliseconds from 100 to 3600000, got "${raw}"`);
  return ms;
}

/** Name of the variable that caps the wait between task polls, in milliseconds. */
export const POLL_INTERVAL_ENV = 'EDGEFORM_TASK_POLL_INTERVAL';

/**
 * The task poll schedule: DEFAULT_TASK_POLL_SCHEDULE (150 ms, growing with the task's age to
 * 5 s), or with its longest wait set to EDGEFORM_TASK_POLL_INTERVAL ms (and its shortest no
 * longer than that): useful against the emulator, or to poll less often under rate limits.
 */
export function pollScheduleFromEnv(env: NodeJS.ProcessEnv): TaskPollSchedule | undefined {
  const raw = env[POLL_INTERVAL_ENV];
  if (raw === undefined || raw === '') return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 10 || ms > 600_000) throw new UsageError(`${POLL_INTERVAL_ENV} must be a whole number of milliseconds from 10 to 600000, got "${raw}"`);
  return { ...DEFAULT_TASK_POLL_SCHEDULE, initialMs: Math.min(DEFAULT_TASK_POLL_SCHEDULE.initialMs, ms), maxMs: ms };
}

/**
 * The pipeline `plan`, `apply` and `drift` share: parse and validate the stack (nothing is
 * sent when it is invalid), check --target addresses, read the live state, build the plan.
 */
export async function planStack(options: PlanStackOptions): Promise<InvalidStack | PlannedStack> {
  const loaded = await loadStack(options.path, options.env, { onInputRead: boundHeapGrowth });
  // Interrupted while the stack was read: connect to nothing.
  options.signal.throwIfAborted();
  if (!loaded.stack || hasErrors(loaded.diagnostics)) return { kind: 'invalid', diagnostics: loaded.diagnostics, files: loaded.files };
  const stack = loaded.stack;
  // The values of the stack's sensitive fields are redacted like the API key, should the platform
  // echo one, and from everything the run writes.
  const env = withSensitiveFiles(options.env, stack);
  const secrets = sensitiveValues(stack.resources, env);
  options.protect?.(secrets);
  const targeted = typeof options.targets === 'function' ? options.targets(stack) : options.targets;
  const targets = selectTargets(stack, targeted);
  if (hasErrors(targets.diagnostics)) return { kind: 'invalid', diagnostics: [...loaded.diagnostics, ...targets.diagnostics], files: loaded.files };

  const baseUrl = resolveBaseUrl({ env: options.env, stackBaseUrl: stack.provider.base_url });
  await options.admit?.(stack, baseUrl);
  // Interrupted while admitting (waiting on the file system for a lock): connect to nothing.
  options.signal.throwIfAborted();
  const { api, ctx } = connect(baseUrl, { ...options, env, secrets });
  try {
    const plan = await readAndPlanStack(ctx, stack, {
      ...options,
      foreign: options.foreign ?? refuseStackReferences,
      baseUrl: api.baseUrl,
      diagnostics: [...loaded.diagnostics, ...targets.diagnostics],
      ...(targeted.length > 0 ? { selected: targets.selected } : {}),
    });
    return { kind: 'planned', stack, plan, api, ctx, files: loaded.files };
  } catch (error) {
    await api.close();
    throw error;
  }
}

/** Settings of readAndPlanStack. */
export interface ReadAndPlanOptions extends Pick<PlanStackOptions, 'parallelism' | 'reporter' | 'resendSensitive' | 'assess'> {
  /** The platform's origin, as the plan records it (ApiClient.baseUrl). */
  baseUrl: string;
  /** The loader's (and --target's) diagnostics, carried into the plan. */
  diagnostics: Diagnostic[];
  /** --target and what it depends on; absent: every block (and prune). */
  selected?: ReadonlySet<string>;
  /**
   * What the stack's references to other stacks read (`${stack:NAME/TYPE.BLOCK.FIELD}`), by
   * their address (`stack:NAME/TYPE.BLOCK`), given the stack's own reads; with the errors of
   * those it could not read (a located plan error each).
   */
  foreign?: ((stack: Stack, ctx: ProviderContext) => Promise<{ reads: ReadonlyMap<string, ReadResult>; diagnostics: Diagnostic[] }>) | undefined;
  /** Given what was read of the stack's own blocks (a sweep keeps them for the stacks that read this one). */
  keepReads?: (reads: ReadonlyMap<string, ReadResult>) => void;
}

/**
 * Reads a valid stack's live state through `ctx` and builds its plan: the part of the pipeline
 * after loading, shared by one stack's run (planStack) and a sweep of many (stack-sweep.ts).
 */
export async function readAndPlanStack(ctx: ProviderContext, stack: Stack, options: ReadAndPlanOptions): Promise<Plan> {
  // Without --target every block is read and, with prune: true, what the stack owns is listed (--target never prunes).
  const selected = options.selected !== undefined ? { selected: options.selected } : {};
  const reporter = options.reporter;
  const observations = await readStack(ctx, stack, providers, {
    parallelism: options.parallelism,
    ...selected,
    ...(reporter ? { onProgress: (done: number, total: number) => reporter.reading(done, total) } : {}),
  }).finally(() => reporter?.finish());
  options.keepReads?.(observations.reads);
  const foreign = options.foreign ? await options.foreign(stack, ctx) : undefined;
  const plan = buildPlan({
    stack,
    ...selected,
    reads: foreign && foreign.reads.size > 0 ? new Map([...observations.reads, ...foreign.reads]) : observations.reads,
    checks: observations.checks,
    owned: observations.owned,
    planners: providers.resources,
    baseUrl: options.baseUrl,
    createdAt: new Date().toISOString(),
    edgeformVersion: VERSION,
    diagnostics: [...options.diagnostics, ...(foreign?.diagnostics ?? [])],
    ...(options.resendSensitive && options.resendSensitive.length > 0 ? { resendSensitive: new Set(options.resendSensitive) } : {}),
    ...(ctx.seal ? { seal: ctx.seal } : {}),
  });
  const refused = refuseBlockedDestroys(plan, stack, { reads: observations.reads, owned: observations.owned, planners: providers.resources });
  return options.assess ? await assessPlan(ctx, refused, options.assess) : refused;
}

/** `--resend-sensitive ADDR` of plan and apply: a resource whose sensitive values are sent again (to rotate them). */
export const RESEND_SENSITIVE_OPTION = {
  type: 'string',
  array: true,
  requiresArg: true,
  default: [] as string[],
  describe: "Send this resource's sensitive values (an S3 origin's keys) again from the environment, to rotate them (repeatable)",
} as const;

/** `--check-quota` of plan (off by default) and apply (on by default; `--no-check-quota`): the plan held against the account's quotas before anything is sent. */
export const CHECK_QUOTA_OPTION = (byDefault: boolean) =>
  ({
    type: 'boolean',
    default: byDefault,
    describe: "Refuse a plan that would exceed the account's quotas (GET /cloud/v2/client_quotas, check_limits where a flavor decides) before anything is sent",
  }) as const;
