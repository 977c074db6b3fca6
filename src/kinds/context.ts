import { withRunFatalErrors, type ApiClient } from '../api/client.js';
import { sleep as realSleep, type Sleep } from '../api/sleep.js';
import { createTaskPoller, defaultTaskTimeout, type TaskPollSchedule } from '../api/tasks.js';
import type { ProviderContext } from './provider.js';

/** Settings of {@link createProviderContext}. */
export interface ProviderContextOptions {
  api: ApiClient;
  signal?: AbortSignal;
  /** Per-task timeout overriding the per-type default (--task-timeout). */
  taskTimeoutMs?: number;
  /** When tasks are polled (EDGEFORM_TASK_POLL_INTERVAL caps the wait); default DEFAULT_TASK_POLL_SCHEDULE. */
  pollSchedule?: TaskPollSchedule;
  onProgress?: (message: string, detail?: { taskIds?: string[] }) => void;
  /**
   * Injected for tests: the wait between task polls and behind ctx.sleep (e.g. one that advances
   * the emulator's clock); default the real abortable sleep.
   */
  sleep?: Sleep;
  /** Injected for tests: the clock task polls and timeouts are measured on. */
  now?: () => number;
}

/**
 * The context providers run in: one API client, one cancellation signal, one task poller for
 * every wait (tasks waited on at the same time are polled together, see createTaskPoller).
 * Its client rejects with a RunFatalError when a failure means the whole run must stop (the key
 * refused, the platform unreachable or failing beyond the retry quota), task polls included.
 */
export function createProviderContext(options: ProviderContextOptions): ProviderContext {
  const signal = options.signal ?? new AbortController().signal;
  const sleep = options.sleep ?? realSleep;
  const api = withRunFatalErrors(options.api);
  const poller = createTaskPoller(api, {
    signal,
    sleep,
    ...(options.pollSchedule ? { schedule: options.pollSchedule } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    api,
    signal,
    async waitForTasks(taskIds, wait = {}) {
      if (taskIds.length === 0) return [];
      const timeoutMs = options.taskTimeoutMs ?? (wait.taskType ? defaultTaskTimeout(wait.taskType) : undefined);
      return poller.wait(taskIds, {
        ...(wait.signal ? { signal: wait.signal } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(wait.scope ? { scope: wait.scope } : {}),
      });
    },
    progress: (message, detail) => options.onProgress?.(message, detail),
    // Many actions may sleep at once on the run's one signal: each sleep listens on a signal that
    // follows it (AbortSignal.any adds no listener to the run's), so Node sees no listener pile-up.
    sleep: (ms) => sleep(ms, AbortSignal.any([signal])),
  };
}
