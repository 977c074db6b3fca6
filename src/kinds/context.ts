import { AsyncLocalStorage } from 'node:async_hooks';
import { clientAround, withRunFatalErrors, type ApiClient } from '../api/client.js';
import { isUnknownOutcome } from '../api/retry.js';
import { sleep as realSleep, type Sleep } from '../api/sleep.js';
import { createTaskPoller, type TaskPollSchedule } from '../api/tasks.js';
import { RunFatalError } from '../errors.js';
import type { OwnerSeal } from './owner-seal.js';
import type { ProviderContext } from './provider.js';

/** Settings of {@link createProviderContext}. */
export interface ProviderContextOptions {
  api: ApiClient;
  signal?: AbortSignal;
  /** Per-task timeout overriding each kind's (--task-timeout). */
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
  /** Where sensitive values are read from when a request sends them (ProviderContext.sensitive); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The run's owner seal (ProviderContext.seal, from EDGEFORM_OWNER_KEY); absent: unkeyed. */
  seal?: OwnerSeal;
}

/**
 * The context providers run in: one API client, one cancellation signal, one task poller for
 * every wait (tasks waited on at the same time are polled together, see createTaskPoller).
 * Its client rejects with a RunFatalError when a failure means the whole run must stop (the key
 * refused, the platform unreachable or failing beyond the retry quota), task polls included, and
 * records the writes of work run under watchWrites.
 */
export function createProviderContext(options: ProviderContextOptions): ProviderContext {
  const signal = options.signal ?? new AbortController().signal;
  const sleep = options.sleep ?? realSleep;
  const api = recordingWrites(withRunFatalErrors(options.api));
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
      const timeoutMs = options.taskTimeoutMs ?? wait.timeoutMs;
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
    sensitive: (name) => (options.env ?? process.env)[name],
    ...(options.seal?.keyed ? { seal: options.seal } : {}),
  };
}

/** What the writes sent within one watchWrites call came to. */
export interface WriteWatch {
  /** Writes (every method but GET) sent or refused. */
  writes: number;
  /**
   * Whether a write may have taken effect: one succeeded, or failed in a way that leaves its
   * outcome unknown (a connection lost after sending, 408, 500, 502, 504: see isUnknownOutcome).
   * False while every write provably never took effect (refused before it was sent, a 4xx, 429
   * or 503, or not sent at all because the run stopped).
   */
  mayHaveActed: boolean;
}

/** The watch of the work running now (see watchWrites); the provider context's client records into it. */
const currentWatch = new AsyncLocalStorage<WriteWatch>();

/**
 * Runs `work` while watching the writes it sends through any provider context's client (the
 * client stays the same object: caches keyed by it keep working), so the executor can tell an
 * action that changed nothing on the platform from one that may have.
 */
export function watchWrites<T>(work: () => Promise<T>): { watch: WriteWatch; done: Promise<T> } {
  const watch: WriteWatch = { writes: 0, mayHaveActed: false };
  return { watch, done: currentWatch.run(watch, work) };
}

/** The client, recording each write into the watch of the work that sends it (if any). */
function recordingWrites(api: ApiClient): ApiClient {
  return clientAround(api, async (req) => {
    const watch = req.method === 'GET' ? undefined : currentWatch.getStore();
    if (!watch) return api.request(req);
    watch.writes++;
    try {
      const response = await api.request(req);
      watch.mayHaveActed = true;
      return response;
    } catch (error) {
      if (isUnknownOutcome(error instanceof RunFatalError ? error.cause : error)) watch.mayHaveActed = true;
      throw error;
    }
  });
}

/**
 * A client whose every request goes ahead of the requests waiting for a slot (ApiRequestOptions
 * `urgent`, as task polls do): for the reads that confirm a change, whose answers end work (and
 * free the task slot it holds) that new writes queued behind them would otherwise wait for. One
 * object per call: make it once per run, so that what is keyed by the client (readTogether's
 * batches) is shared by every read through it.
 */
export function urgentClient(api: ApiClient): ApiClient {
  return clientAround(api, (req) => api.request({ ...req, urgent: true }));
}
