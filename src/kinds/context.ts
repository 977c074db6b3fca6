import { withRunFatalErrors, type ApiClient } from '../api/client.js';
import { sleep as realSleep, type Sleep } from '../api/sleep.js';
import { defaultTaskTimeout, waitForTasks, type TaskPollSchedule } from '../api/tasks.js';
import type { ProviderContext } from './provider.js';

/** Settings of {@link createProviderContext}. */
export interface ProviderContextOptions {
  api: ApiClient;
  signal?: AbortSignal;
  /** Per-task timeout overriding the per-type default (--task-timeout). */
  taskTimeoutMs?: number;
  /** Task poll backoff (EDGEFORM_TASK_POLL_INTERVAL caps it); default 1 s doubling to 5 s. */
  pollSchedule?: TaskPollSchedule;
  onProgress?: (message: string, detail?: { taskIds?: string[] }) => void;
  /**
   * Injected for tests: the wait between task polls and behind ctx.sleep (e.g. one that advances
   * the emulator's clock); default the real abortable sleep.
   */
  sleep?: Sleep;
  /** Injected for tests: the clock task timeouts are measured on. */
  now?: () => number;
}

/**
 * The context providers run in: one API client, one cancellation signal, shared task waiting.
 * Its client rejects with a RunFatalError when a failure means the whole run must stop (the key
 * refused, the platform unreachable or failing beyond the retry quota), task polls included.
 */
export function createProviderContext(options: ProviderContextOptions): ProviderContext {
  const signal = options.signal ?? new AbortController().signal;
  const sleep = options.sleep ?? realSleep;
  const api = withRunFatalErrors(options.api);
  return {
    api,
    signal,
    async waitForTasks(taskIds, wait = {}) {
      if (taskIds.length === 0) return [];
      return waitForTasks(api, taskIds, {
        signal: wait.signal ? AbortSignal.any([signal, wait.signal]) : signal,
        timeoutMs: options.taskTimeoutMs ?? (wait.taskType ? defaultTaskTimeout(wait.taskType) : undefined),
        schedule: options.pollSchedule,
        sleep,
        ...(options.now ? { now: options.now } : {}),
      });
    },
    progress: (message, detail) => options.onProgress?.(message, detail),
    sleep: (ms) => sleep(ms, signal),
  };
}
