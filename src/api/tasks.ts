/**
 * Waiting on cloud tasks. Cloud writes answer `{"tasks": [uuid, ...]}`; the work is done only
 * when the task reads FINISHED (or failed when it reads ERROR).
 *
 * One poller serves every wait of a run. Tasks waited on at the same time in the same project
 * and region are read together: one `GET /cloud/v1/tasks` per group per tick, filtered by the
 * project, the region and the creation time of the oldest task still waited on, answers for
 * all of them; `GET /cloud/v1/tasks/{id}` reads a task alone (the only one of its group, one
 * whose project is not known, or one the list did not show). Each task wants its next poll
 * after a wait that grows with the time it has been waited on (see taskPollDelay), and a group
 * is read as soon as one of its tasks wants it, so a batch of young tasks is read every
 * ~150 ms for one request per tick, whatever its size. Waiting holds no request slot.
 *
 * A poll that fails transiently does not fail the wait (the task runs on whether or not we can
 * read it): the next poll of the schedule tries again, and MAX_CONSECUTIVE_POLL_FAILURES in a
 * row end it. A list the platform refuses (or answers with something unusable) is not tried
 * again for that project and region: its tasks are read one by one instead.
 */
import { z } from 'zod';
import { RunFatalError, TaskFailedError, TaskPollError, TaskTimeoutError, must } from '../errors.js';
import type { ApiClient, Query } from './client.js';
import { toOneLine } from './error-body.js';
import { ApiConnectionError, ApiError } from './errors.js';
import { DEFAULT_RETRY_POLICY, RETRYABLE_STATUSES } from './retry.js';
import { apiPath } from './path.js';
import { abortReason, sleep as realSleep, type Sleep } from './sleep.js';

/** The states of a cloud task: NEW → RUNNING → FINISHED | ERROR. */
const TASK_STATES = ['NEW', 'RUNNING', 'FINISHED', 'ERROR'] as const;

/** A cloud task's lifecycle state: NEW → RUNNING → FINISHED | ERROR. */
export type TaskState = (typeof TASK_STATES)[number];

/**
 * The fields of a task answer that edgeform reads (TaskSerializer; other fields pass through).
 * A state outside the four is refused rather than waited on until the timeout. Where the task
 * runs and when it was created only steer the polling (which list shows it): a value of another
 * type is read as absent, which costs at most a poll of the task by id.
 */
const taskAnswer = z.looseObject({
  id: z.string().optional(),
  state: z.enum(TASK_STATES),
  task_type: z.string().optional(),
  error: z.string().nullish(),
  project_id: z.number().int().nullish().catch(null),
  region_id: z.number().int().nullish().catch(null),
  created_on: z.string().nullish().catch(null),
});

/**
 * A page of `GET /cloud/v1/tasks` (TaskCollectionSerializer). Each entry is checked only when it
 * is a task being waited on (with the task schema): other tasks of the project are none of
 * edgeform's business, and an entry that does not fit is read again by id.
 */
const taskPage = z.looseObject({
  count: z.number().int().nonnegative(),
  results: z.array(z.looseObject({ id: z.string() })),
});

/**
 * A cloud task as `GET /cloud/v1/tasks/{id}` returns it (TaskSerializer): the fields edgeform
 * reads, checked; every other field as the platform sent it, unchecked.
 */
export interface Task {
  id: string;
  state: TaskState;
  /** The platform's task type (`resize_vm`, ...); `unknown` when the answer has none. */
  task_type: string;
  /** The failure reason when state is ERROR. */
  error?: string | null;
  [field: string]: unknown;
}

/** The `{"tasks": [...]}` answer of an asynchronous cloud write. */
export interface TaskIds {
  tasks: string[];
}

/** The schema of a {@link TaskIds} answer, for the requests that start cloud tasks. */
export const taskIdsSchema: z.ZodType<TaskIds> = z.looseObject({ tasks: z.array(z.string().min(1)) });

/** Where a task runs: the project and region of the request that started it (a hint; the task's own answer wins). */
export interface TaskScope {
  projectId: number;
  regionId: number;
}

/**
 * When a task is polled: `initialMs` after it is first waited on, then every `ageFraction` of
 * the time it has been waited on, never more often than every `initialMs` nor less often than
 * every `maxMs`. So a completion is noticed within `ageFraction` of the task's duration (or
 * `initialMs`, for short tasks), plus one request's latency.
 */
export interface TaskPollSchedule {
  initialMs: number;
  maxMs: number;
  /** Default {@link DEFAULT_TASK_POLL_SCHEDULE}'s 0.07. */
  ageFraction?: number;
}

/**
 * 150 ms, then 7 % of the task's age, at most 5 s: a 2 s task is noticed within 250 ms of its
 * end (150 ms and room for the poll's own latency), a 20-minute one within 5 s, and a batch of
 * tasks costs one list request per ~150 ms.
 */
export const DEFAULT_TASK_POLL_SCHEDULE: Readonly<Required<TaskPollSchedule>> = Object.freeze({ initialMs: 150, maxMs: 5_000, ageFraction: 0.07 });

/** Default per-task timeout: 20 minutes. */
export const DEFAULT_TASK_TIMEOUT_MS = 20 * 60_000;

/** Failed polls in a row after which edgeform stops waiting on a task. */
export const MAX_CONSECUTIVE_POLL_FAILURES = 20;

/** The largest page of `GET /cloud/v1/tasks` (the vendor's maximum `limit`). */
export const MAX_TASK_PAGE = 1_000;

/** Pages of one list read in one tick before the tasks it has not shown yet are read by id. */
const MAX_LIST_PAGES = 5;

/**
 * How far before the oldest task waited on a list starts: `created_on` has whole seconds, which
 * a platform may round up.
 */
const FROM_TIMESTAMP_MARGIN_MS = 1_000;

/**
 * Whether a failed poll may just be tried again on the poll schedule: no answer, or an answer
 * that means "not now" (408, 429, 5xx gateway and availability errors). Anything else (404, other
 * 4xx) says the poll itself is wrong and fails the wait.
 */
export function isTransientPollFailure(error: unknown): error is Error {
  if (error instanceof ApiConnectionError) return true;
  return error instanceof ApiError && RETRYABLE_STATUSES.has(error.status);
}

/** The wait before the next poll of a task that has been waited on for `ageMs`. Pure. */
export function taskPollDelay(ageMs: number, schedule: Readonly<TaskPollSchedule> = DEFAULT_TASK_POLL_SCHEDULE): number {
  const fraction = schedule.ageFraction ?? DEFAULT_TASK_POLL_SCHEDULE.ageFraction;
  return Math.min(schedule.maxMs, Math.max(schedule.initialMs, Math.round(fraction * Math.max(0, ageMs))));
}

/**
 * A platform datetime (`2026-01-01T00:00:00Z`, `+0000`, `+00:00`, fractions of a second; none:
 * UTC) as epoch ms, or null when it is not one.
 */
export function parsePlatformTime(text: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text.trim());
  if (!m) return null;
  const zone = m[4] === undefined ? 'Z' : m[4].length === 5 ? `${m[4].slice(0, 3)}:${m[4].slice(3)}` : m[4].toUpperCase();
  const ms = Date.parse(`${m[1]}T${m[2]}${(m[3] ?? '').slice(0, 4)}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}

/** Settings of a {@link TaskPoller}. */
export interface TaskPollerOptions {
  /** The run's signal: aborting it ends every wait (rejecting with its reason) and the polling. */
  signal?: AbortSignal;
  /** Injected for tests (e.g. one that advances the emulator's clock); the poller trusts that it waited that long. */
  sleep?: Sleep;
  /** Injected for tests: the clock schedules and timeouts are measured on. */
  now?: () => number;
  schedule?: Readonly<TaskPollSchedule>;
  /** Called with every state read of a task being waited on, for progress output. */
  onPoll?: (task: Task) => void;
}

/** Options of one {@link TaskPoller.wait}. */
export interface TaskWaitOptions {
  /** Per-task timeout (the caller's: a kind's own); default DEFAULT_TASK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Ends this wait only (rejecting with its reason); the tasks are still polled for other waits. */
  signal?: AbortSignal;
  /** Where the tasks run, when the caller knows: lets them be listed with the tasks of the same project and region from the first poll. */
  scope?: TaskScope;
}

/** Waits on cloud tasks; one per run, shared by every wait (see the module comment). */
export interface TaskPoller {
  /**
   * Resolves with the tasks, in the order of `taskIds`, once every one is FINISHED. Rejects with
   * the first failure: TaskFailedError (a task ended in ERROR, with the platform's reason),
   * TaskTimeoutError, TaskPollError (MAX_CONSECUTIVE_POLL_FAILURES failed polls of a task in a
   * row), the API error of a poll that is not transient (a 404, an answer that is not a task),
   * or the reason of either signal.
   */
  wait(taskIds: readonly string[], options?: TaskWaitOptions): Promise<Task[]>;
}

interface Waiter {
  ids: readonly string[];
  results: Map<string, Task>;
  signal: AbortSignal | undefined;
  resolve(tasks: Task[]): void;
  reject(error: unknown): void;
}

interface Tracked {
  id: string;
  scope: TaskScope | null;
  /** Creation time on the platform's clock, once an answer told it. */
  createdOnMs: number | null;
  last: Task | null;
  failures: number;
  /** When it was first waited on (the poller's clock). */
  since: number;
  timeoutMs: number | undefined;
  nextPollAt: number;
  waiters: Set<Waiter>;
}

type PollResult = { kind: 'ok'; task: Task } | { kind: 'failed'; error: unknown };

/** A poller's settings and state: every step of the polling reads it. */
interface Poller {
  client: Pick<ApiClient, 'get' | 'redact'>;
  options: TaskPollerOptions;
  runSignal: AbortSignal | undefined;
  sleep: Sleep;
  now: () => number;
  schedule: Readonly<TaskPollSchedule>;
  /** The tasks waited on, by id. */
  tracked: Map<string, Tracked>;
  /** Project/region pairs whose task list failed in a way a retry will not mend: their tasks are read by id. */
  listsRefused: Set<string>;
  /** Waiters by their own signal: one abort listener per signal, however many waits share it. */
  bySignal: Map<AbortSignal, { waiters: Set<Waiter>; onAbort: () => void }>;
  looping: boolean;
  /** Ends the loop's sleep early (a new wait came, or the run was aborted). */
  wake: AbortController | null;
  /** The run signal's listener while the loop runs. */
  onRunAbort: () => void;
}

const scopeKey = (scope: TaskScope): string => `${scope.projectId}/${scope.regionId}`;

/** Creates the poller of a run. */
export function createTaskPoller(client: Pick<ApiClient, 'get' | 'redact'>, options: TaskPollerOptions = {}): TaskPoller {
  const p: Poller = {
    client,
    options,
    runSignal: options.signal,
    sleep: options.sleep ?? realSleep,
    now: options.now ?? Date.now,
    schedule: options.schedule ?? DEFAULT_TASK_POLL_SCHEDULE,
    tracked: new Map(),
    listsRefused: new Set(),
    bySignal: new Map(),
    looping: false,
    wake: null,
    onRunAbort: () => {
      failEveryWait(p, abortReason(must(p.runSignal, 'p.runSignal')));
      p.wake?.abort();
    },
  };
  return {
    wait(taskIds, wait = {}) {
      if (p.runSignal?.aborted) return Promise.reject(abortReason(p.runSignal));
      if (wait.signal?.aborted) return Promise.reject(abortReason(wait.signal));
      if (taskIds.length === 0) return Promise.resolve([]);
      return new Promise<Task[]>((resolve, reject) => {
        const waiter: Waiter = { ids: [...taskIds], results: new Map(), signal: wait.signal, resolve, reject };
        const at = p.now();
        for (const id of new Set(taskIds)) track(p, id, wait, at).waiters.add(waiter);
        if (wait.signal) listenForAbort(p, wait.signal, waiter);
        startLoop(p);
      });
    },
  };
}

/** The entry of a task waited on, made on its first wait: the first task of a group is polled at once, the others join its schedule. */
function track(p: Poller, id: string, wait: TaskWaitOptions, at: number): Tracked {
  let t = p.tracked.get(id);
  if (!t) {
    const scope = wait.scope ?? null;
    const joins = [...p.tracked.values()].some((o) => scope !== null && o.scope !== null && scopeKey(o.scope) === scopeKey(scope));
    t = {
      id,
      scope,
      createdOnMs: null,
      last: null,
      failures: 0,
      since: at,
      timeoutMs: wait.timeoutMs,
      nextPollAt: joins ? at + p.schedule.initialMs : at,
      waiters: new Set(),
    };
    p.tracked.set(id, t);
  }
  return t;
}

/** Ends a wait when its own signal aborts: one listener per signal, for every wait that shares it. */
function listenForAbort(p: Poller, signal: AbortSignal, waiter: Waiter): void {
  let entry = p.bySignal.get(signal);
  if (!entry) {
    const waiters = new Set<Waiter>();
    const onAbort = (): void => {
      p.bySignal.delete(signal);
      for (const w of [...waiters]) fail(p, w, abortReason(signal));
    };
    entry = { waiters, onAbort };
    p.bySignal.set(signal, entry);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  entry.waiters.add(waiter);
}

/** Which group a task is polled with: its project and region (while their list works), else itself alone. */
function groupKey(p: Poller, t: Tracked): string {
  return t.scope && !p.listsRefused.has(scopeKey(t.scope)) ? scopeKey(t.scope) : `task ${t.id}`;
}

/** Forgets a wait: its tasks no longer waited on by anyone else, and its signal's listener once no wait shares it. */
function detach(p: Poller, waiter: Waiter): void {
  for (const id of waiter.ids) {
    const t = p.tracked.get(id);
    if (!t) continue;
    t.waiters.delete(waiter);
    if (t.waiters.size === 0) p.tracked.delete(id);
  }
  if (waiter.signal) {
    const entry = p.bySignal.get(waiter.signal);
    entry?.waiters.delete(waiter);
    if (entry && entry.waiters.size === 0) {
      waiter.signal.removeEventListener('abort', entry.onAbort);
      p.bySignal.delete(waiter.signal);
    }
  }
}

function fail(p: Poller, waiter: Waiter, error: unknown): void {
  detach(p, waiter);
  waiter.reject(error);
}

/** Fails every wait on a task, and stops polling it. */
function failTask(p: Poller, t: Tracked, error: unknown): void {
  for (const waiter of [...t.waiters]) fail(p, waiter, error);
  p.tracked.delete(t.id);
}

/** Fails every wait of the poller (the run aborted, or a bug in the loop: no wait may hang). */
function failEveryWait(p: Poller, error: unknown): void {
  const waiters = new Set([...p.tracked.values()].flatMap((t) => [...t.waiters]));
  for (const waiter of waiters) fail(p, waiter, error);
  p.tracked.clear();
}

/** Records a state read of a task; settles its waits when it ended. */
function record(p: Poller, t: Tracked, task: Task): void {
  if (p.tracked.get(t.id) !== t) return;
  t.last = task;
  t.failures = 0;
  const project = task.project_id;
  const region = task.region_id;
  if (typeof project === 'number' && typeof region === 'number') t.scope = { projectId: project, regionId: region };
  const created = typeof task.created_on === 'string' ? parsePlatformTime(task.created_on) : null;
  if (created !== null) t.createdOnMs = created;
  p.options.onPoll?.(task);
  if (task.state === 'ERROR') {
    failTask(p, t, new TaskFailedError({ taskId: t.id, taskType: task.task_type, error: typeof task.error === 'string' ? toOneLine(p.client.redact(task.error)) : null }));
    return;
  }
  if (task.state !== 'FINISHED') return;
  p.tracked.delete(t.id);
  for (const waiter of t.waiters) {
    waiter.results.set(t.id, task);
    if (waiter.ids.every((id) => waiter.results.has(id))) {
      detach(p, waiter);
      waiter.resolve(waiter.ids.map((id) => must(waiter.results.get(id), 'waiter.results.get(id)')));
    }
  }
}

/** A failed poll of a task: transient ones count towards MAX_CONSECUTIVE_POLL_FAILURES and may push its next poll back (Retry-After). */
function recordFailure(p: Poller, t: Tracked, error: unknown, tick: number): void {
  if (p.tracked.get(t.id) !== t) return;
  if (!isTransientPollFailure(error)) {
    failTask(p, t, error);
    return;
  }
  t.failures += 1;
  if (t.failures >= MAX_CONSECUTIVE_POLL_FAILURES) {
    failTask(p, t, new TaskPollError({ taskId: t.id, failures: t.failures, lastState: t.last?.state ?? null, error }));
    return;
  }
  const retryAfterMs = Math.min(error instanceof ApiError ? (error.retryAfterMs ?? 0) : 0, DEFAULT_RETRY_POLICY.maxRetryAfterMs);
  t.nextPollAt = Math.max(t.nextPollAt, tick + retryAfterMs);
}

const toTask = (body: z.infer<typeof taskAnswer>, id: string): Task => ({ ...body, id: body.id ?? id, task_type: body.task_type ?? 'unknown' });

/** One task by id. */
async function getOne(p: Poller, id: string): Promise<PollResult> {
  try {
    const { body } = await p.client.get(apiPath`/cloud/v1/tasks/${id}`, { schema: taskAnswer, retry: 'none', urgent: true, ...(p.runSignal ? { signal: p.runSignal } : {}) });
    return { kind: 'ok', task: toTask(body, id) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/**
 * The tasks of one project and region: from the oldest one waited on (when its creation time
 * is known; oldest first, paging on while some are not shown yet) or else the newest ones.
 * Resolves with the entries of the tasks asked for that it found (checked), or the error.
 */
async function list(p: Poller, scope: TaskScope, members: readonly Tracked[]): Promise<{ found: Map<string, Task> } | { error: unknown }> {
  const wanted = new Set(members.map((t) => t.id));
  const known = members.map((t) => t.createdOnMs).filter((ms): ms is number => ms !== null);
  const base: Query =
    known.length > 0
      ? { from_timestamp: new Date(Math.min(...known) - FROM_TIMESTAMP_MARGIN_MS).toISOString(), order_by: 'asc', limit: MAX_TASK_PAGE }
      : { order_by: 'desc', limit: Math.min(MAX_TASK_PAGE, 2 * members.length + 20) };
  const found = new Map<string, Task>();
  try {
    for (let page = 0, offset = 0; page < (known.length > 0 ? MAX_LIST_PAGES : 1); page++) {
      const query: Query = { project_id: scope.projectId, region_id: scope.regionId, ...base, ...(offset > 0 ? { offset } : {}) };
      const { body } = await p.client.get('/cloud/v1/tasks', { query, schema: taskPage, retry: 'none', urgent: true, ...(p.runSignal ? { signal: p.runSignal } : {}) });
      for (const entry of body.results) {
        if (!wanted.has(entry.id)) continue;
        const checked = taskAnswer.safeParse(entry);
        if (checked.success) found.set(entry.id, toTask(checked.data, entry.id));
      }
      offset += body.results.length;
      if (found.size === wanted.size || body.results.length === 0 || offset >= body.count) break;
    }
    return { found };
  } catch (error) {
    return { error };
  }
}

/** Polls one group: a list for several tasks of a known project and region, else each task by id. */
async function pollGroup(p: Poller, members: readonly Tracked[], tick: number): Promise<void> {
  const scope = must(members[0], 'members[0]').scope;
  let byId = members;
  if (members.length > 1 && scope && !p.listsRefused.has(scopeKey(scope))) {
    const rest = takeListed(p, scope, members, await list(p, scope, members), tick);
    if (rest === null) return;
    byId = rest;
  }
  await Promise.all(
    byId.map(async (t) => {
      const result = await getOne(p, t.id);
      if (p.runSignal?.aborted) return;
      if (result.kind === 'ok') record(p, t, result.task);
      else recordFailure(p, t, result.error, tick);
    }),
  );
}

/**
 * What a group's list read gave: records the tasks it showed and returns the members still to
 * read by id (those it did not show, or all when the list was refused); null when its failure
 * settled them (the run aborted, a run-fatal error, a transient failure counted against each).
 */
function takeListed(p: Poller, scope: TaskScope, members: readonly Tracked[], listed: Awaited<ReturnType<typeof list>>, tick: number): readonly Tracked[] | null {
  if (!('error' in listed)) {
    for (const t of members) {
      const task = listed.found.get(t.id);
      if (task) record(p, t, task);
    }
    return members.filter((t) => !listed.found.has(t.id));
  }
  const error = listed.error;
  if (p.runSignal?.aborted) return null;
  if (error instanceof RunFatalError) {
    for (const t of members) failTask(p, t, error);
    return null;
  }
  if (isTransientPollFailure(error)) {
    for (const t of members) recordFailure(p, t, error, tick);
    return null;
  }
  // Refused (or answered with something unusable): this project and region are read by id from now on.
  p.listsRefused.add(scopeKey(scope));
  return members;
}

const deadlineOf = (t: Tracked): number => t.since + (t.timeoutMs ?? DEFAULT_TASK_TIMEOUT_MS);

/** Polls while any task is waited on: sleeps until one wants a poll, then polls the groups that are due. */
async function pollUntilIdle(p: Poller): Promise<void> {
  let tick = p.now();
  while (p.tracked.size > 0) {
    tick = Math.max(tick, p.now());
    const due = [...p.tracked.values()].filter((t) => t.nextPollAt <= tick);
    if (due.length === 0) {
      const ms = Math.min(...[...p.tracked.values()].map((t) => t.nextPollAt)) - tick;
      const slept = await sleepUnlessWoken(p, ms);
      p.wake = null;
      // A sleep that ran its course counts as that much time passed, even on a clock that did
      // not move (a test's); one cut short (a new wait came) is planned again from the clock.
      tick = slept ? Math.max(tick + ms, p.now()) : p.now();
      continue;
    }
    const groups = groupsOf(p, due);
    await Promise.all(groups.map((members) => pollGroup(p, members, tick)));
    planNextPolls(p, groups.flat(), tick);
  }
}

/** Sleeps `ms`; resolves false when woken early (startLoop: a new wait came, or the run aborted). */
function sleepUnlessWoken(p: Poller, ms: number): Promise<boolean> {
  p.wake = new AbortController();
  return p.sleep(ms, p.wake.signal).then(
    () => true,
    () => false,
  );
}

/** The groups to poll: a group is polled as a whole as soon as one of its tasks wants a poll. */
function groupsOf(p: Poller, due: readonly Tracked[]): Tracked[][] {
  const dueKeys = new Set(due.map((t) => groupKey(p, t)));
  const groups = new Map<string, Tracked[]>();
  for (const t of p.tracked.values()) {
    const key = groupKey(p, t);
    if (dueKeys.has(key)) groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.values()];
}

/** After a tick's polls: each task still waited on past its deadline fails; the others get their next poll. */
function planNextPolls(p: Poller, polled: readonly Tracked[], tick: number): void {
  for (const t of polled) {
    if (p.tracked.get(t.id) !== t) continue;
    const deadline = deadlineOf(t);
    if (tick >= deadline) {
      failTask(p, t, new TaskTimeoutError({ taskId: t.id, taskType: t.last?.task_type ?? 'unknown', elapsedMs: tick - t.since, lastState: t.last?.state ?? null }));
      continue;
    }
    // The last poll comes at the deadline, so a task that ends just in time is not given up on.
    t.nextPollAt = Math.min(Math.max(t.nextPollAt, tick + taskPollDelay(tick - t.since, p.schedule)), deadline);
  }
}

/** Starts the polling loop, or wakes it when it runs (a new wait may be due sooner). */
function startLoop(p: Poller): void {
  if (p.looping) {
    p.wake?.abort();
    return;
  }
  p.looping = true;
  // Listening on the run's signal only while there is something to poll: a poller used for one
  // wait leaves no listener behind on it.
  p.runSignal?.addEventListener('abort', p.onRunAbort, { once: true });
  void pollUntilIdle(p)
    // Not a poll's failure (those are the waits' results) but a bug: no wait may hang on it.
    .catch((error: unknown) => failEveryWait(p, error))
    .finally(() => {
      p.runSignal?.removeEventListener('abort', p.onRunAbort);
      p.looping = false;
      // A wait that came while the loop was finishing its last tick.
      if (p.tracked.size > 0) startLoop(p);
    });
}

/** Options of {@link pollTask} and {@link waitForTasks}: a poller's settings and one wait's. */
export type PollTaskOptions = TaskPollerOptions & Pick<TaskWaitOptions, 'timeoutMs' | 'scope'>;

/**
 * Waits on some tasks with a poller of their own (see TaskPoller.wait); a run shares one poller
 * instead (createTaskPoller), so that waits at the same time are polled together.
 */
export function waitForTasks(client: Pick<ApiClient, 'get' | 'redact'>, taskIds: readonly string[], options: PollTaskOptions = {}): Promise<Task[]> {
  const { timeoutMs, scope, ...settings } = options;
  return createTaskPoller(client, settings).wait(taskIds, { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(scope ? { scope } : {}) });
}

/** Waits on one task (see waitForTasks): resolves with it once FINISHED. */
export async function pollTask(client: Pick<ApiClient, 'get' | 'redact'>, taskId: string, options: PollTaskOptions = {}): Promise<Task> {
  const [task] = await waitForTasks(client, [taskId], options);
  return must(task, 'task');
}
