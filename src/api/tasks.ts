/**
 * Waiting on cloud tasks. Cloud writes answer `{"tasks": [uuid, ...]}`; the work is done only
 * when `GET /cloud/v1/tasks/{id}` says FINISHED (or failed when it says ERROR). Polling starts
 * at once, then backs off (1 s doubling to 5 s) under a per-task timeout. A poll that fails
 * transiently does not fail the wait (the task runs on whether or not we can read it): the next
 * poll of the schedule tries again.
 */
import { z } from 'zod';
import { TaskFailedError, TaskPollError, TaskTimeoutError } from '../errors.js';
import type { ApiClient } from './client.js';
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
 * A state outside the four is refused rather than waited on until the timeout.
 */
const taskAnswer = z.looseObject({
  id: z.string().optional(),
  state: z.enum(TASK_STATES),
  task_type: z.string().optional(),
  error: z.string().nullish(),
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

/** The poll backoff: first poll at once, then initialMs, doubling up to maxMs. */
export interface TaskPollSchedule {
  initialMs: number;
  maxMs: number;
}

/** 1 s, 2 s, 4 s, then every 5 s. */
export const DEFAULT_TASK_POLL_SCHEDULE: Readonly<TaskPollSchedule> = Object.freeze({ initialMs: 1_000, maxMs: 5_000 });

/** Default per-task timeout: 20 minutes. */
export const DEFAULT_TASK_TIMEOUT_MS = 20 * 60_000;

/** Default timeout for Kubernetes tasks (a rolling upgrade replaces every node): 60 minutes. */
export const K8S_TASK_TIMEOUT_MS = 60 * 60_000;

/** Failed polls in a row after which edgeform stops waiting on a task (about 100 s of outage). */
export const MAX_CONSECUTIVE_POLL_FAILURES = 20;

/**
 * Whether a failed poll may just be tried again on the poll schedule: no answer, or an answer
 * that means "not now" (408, 429, 5xx gateway and availability errors). Anything else (404, other
 * 4xx) says the poll itself is wrong and fails the wait.
 */
export function isTransientPollFailure(error: unknown): error is Error {
  if (error instanceof ApiConnectionError) return true;
  return error instanceof ApiError && RETRYABLE_STATUSES.has(error.status);
}

/** The wait before the next poll, after `pollsDone` polls (≥ 1). Pure. */
export function taskPollDelay(pollsDone: number, schedule: Readonly<TaskPollSchedule> = DEFAULT_TASK_POLL_SCHEDULE): number {
  const exponent = Math.max(0, pollsDone - 1);
  return Math.min(schedule.maxMs, schedule.initialMs * 2 ** Math.min(exponent, 30));
}

/** How long a task of this type may run before edgeform stops waiting (k8s work gets longer). */
export function defaultTaskTimeout(taskType: string): number {
  return taskType === 'upgrade_k8s_cluster_v2' || /k8s/i.test(taskType) ? K8S_TASK_TIMEOUT_MS : DEFAULT_TASK_TIMEOUT_MS;
}

/** Options of {@link pollTask} and {@link waitForTasks}. */
export interface PollTaskOptions {
  /** Per-task timeout; default defaultTaskTimeout(task_type) once the first poll tells the type. */
  timeoutMs?: number;
  /** Stops polling; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Injected for tests (e.g. one that advances the emulator's clock). */
  sleep?: Sleep;
  /** Injected for tests: the clock the timeout is measured on. */
  now?: () => number;
  /** Called with every task state read, for progress output. */
  onPoll?: (task: Task) => void;
  schedule?: Readonly<TaskPollSchedule>;
}

/**
 * Polls one task until FINISHED (resolves with it) or ERROR (rejects with TaskFailedError
 * carrying the platform's reason). Rejects with TaskTimeoutError after the timeout and with the
 * signal's reason when aborted. Polls are not retried by the client (they would spend the
 * run-wide retry quota): a transient failure (see isTransientPollFailure) waits for the next
 * poll of the schedule (or a longer Retry-After), and only MAX_CONSECUTIVE_POLL_FAILURES in a
 * row reject, with TaskPollError. Other API errors (404, other 4xx) reject at once, and so does
 * an answer that is not a task (UnexpectedResponseError: no state, or one outside the four).
 */
export async function pollTask(client: Pick<ApiClient, 'get' | 'redact'>, taskId: string, options: PollTaskOptions = {}): Promise<Task> {
  const { signal, onPoll } = options;
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const start = now();
  let timeoutMs = options.timeoutMs;
  let polls = 0;
  let failures = 0;
  let last: Task | null = null;
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    let body: z.infer<typeof taskAnswer> | undefined;
    let retryAfterMs = 0;
    try {
      ({ body } = await client.get(apiPath`/cloud/v1/tasks/${taskId}`, { schema: taskAnswer, retry: 'none', ...(signal ? { signal } : {}) }));
      failures = 0;
    } catch (error) {
      if (signal?.aborted || !isTransientPollFailure(error)) throw error;
      failures += 1;
      if (failures >= MAX_CONSECUTIVE_POLL_FAILURES) throw new TaskPollError({ taskId, failures, lastState: last?.state ?? null, error });
      retryAfterMs = Math.min(error instanceof ApiError ? (error.retryAfterMs ?? 0) : 0, DEFAULT_RETRY_POLICY.maxRetryAfterMs);
    }
    polls += 1;
    if (body !== undefined) {
      const task: Task = { ...body, id: body.id ?? taskId, task_type: body.task_type ?? 'unknown' };
      last = task;
      onPoll?.(task);
      if (task.state === 'FINISHED') return task;
      if (task.state === 'ERROR') {
        throw new TaskFailedError({ taskId, taskType: task.task_type, error: typeof task.error === 'string' ? toOneLine(client.redact(task.error)) : null });
      }
      timeoutMs ??= defaultTaskTimeout(task.task_type);
    }
    // Until a poll tells the task type, a failing wait is bounded by the general default.
    const limitMs = timeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
    const elapsedMs = now() - start;
    if (elapsedMs >= limitMs) {
      throw new TaskTimeoutError({ taskId, taskType: last?.task_type ?? 'unknown', elapsedMs, lastState: last?.state ?? null });
    }
    await sleep(Math.min(Math.max(taskPollDelay(polls, options.schedule), retryAfterMs), limitMs - elapsedMs), signal);
  }
}

/**
 * Polls several tasks at once and resolves with them in the order of `taskIds`. The first
 * failure (task ERROR, timeout, API error) stops the other pollers and is what rejects.
 */
export async function waitForTasks(client: Pick<ApiClient, 'get' | 'redact'>, taskIds: readonly string[], options: PollTaskOptions = {}): Promise<Task[]> {
  const outer = options.signal;
  if (outer?.aborted) throw abortReason(outer);
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  let failure: { error: unknown } | null = null;
  try {
    const settled = await Promise.allSettled(
      taskIds.map((id) =>
        pollTask(client, id, { ...options, signal: controller.signal }).catch((error: unknown) => {
          if (failure === null && !controller.signal.aborted) {
            failure = { error };
            controller.abort(new DOMException('another task failed', 'AbortError'));
          }
          throw error;
        }),
      ),
    );
    if (outer?.aborted) throw abortReason(outer);
    if (failure !== null) throw (failure as { error: unknown }).error;
    return settled.map((r) => (r as PromiseFulfilledResult<Task>).value);
  } finally {
    outer?.removeEventListener('abort', onOuterAbort);
  }
}
