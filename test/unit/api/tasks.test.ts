import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiCallOptions, ApiResponse } from '../../../src/api/client.js';
import { redact } from '../../../src/api/redact.js';
import { ApiConnectionError, ApiTimeoutError, createApiError } from '../../../src/api/errors.js';
import {
  DEFAULT_TASK_POLL_SCHEDULE,
  DEFAULT_TASK_TIMEOUT_MS,
  MAX_CONSECUTIVE_POLL_FAILURES,
  parsePlatformTime,
  pollTask,
  taskPollDelay,
  waitForTasks,
  type Task,
} from '../../../src/api/tasks.js';
import { TaskFailedError, TaskPollError, TaskTimeoutError } from '../../../src/errors.js';

describe('taskPollDelay', () => {
  it('waits 150 ms while a task is young, then 7 % of its age, at most 5 s', () => {
    expect([0, 1000, 2000, 3000, 10_000, 72_000, 3_600_000].map((age) => taskPollDelay(age))).toEqual([150, 150, 150, 210, 700, 5000, 5000]);
  });

  it('follows a custom schedule (EDGEFORM_TASK_POLL_INTERVAL=20 polls every 20 ms)', () => {
    expect([0, 10_000, 1_000_000].map((age) => taskPollDelay(age, { initialMs: 20, maxMs: 20 }))).toEqual([20, 20, 20]);
    expect([0, 5000, 100_000].map((age) => taskPollDelay(age, { initialMs: 100, maxMs: 1000, ageFraction: 0.5 }))).toEqual([100, 1000, 1000]);
  });

  it('notices a completion within max(10 % of the task duration, 250 ms): the first poll at or after the end comes that soon', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * 3_600_000 }), (durationMs) => {
        let age = 0;
        while (age < durationMs) age += taskPollDelay(age);
        expect(age - durationMs).toBeLessThanOrEqual(Math.max(0.1 * durationMs, 250));
      }),
    );
  });

  it('polls a 2 s task at most 15 times on its own, and a 20-minute one far less often than every 150 ms', () => {
    const pollsUntil = (durationMs: number) => {
      let age = 0;
      let polls = 1;
      while (age < durationMs) {
        age += taskPollDelay(age);
        polls += 1;
      }
      return polls;
    };
    expect(pollsUntil(2000)).toBe(15);
    expect(pollsUntil(20 * 60_000)).toBeLessThan(300);
  });
});

describe('parsePlatformTime', () => {
  it('reads the platform datetimes, with or without zone (UTC) and fractions', () => {
    const t = Date.UTC(2026, 0, 1, 0, 0, 1);
    expect(['2026-01-01T00:00:01Z', '2026-01-01T00:00:01+0000', '2026-01-01T01:00:01+01:00', '2026-01-01 00:00:01', '2026-01-01T00:00:01.000000Z'].map(parsePlatformTime)).toEqual([
      t,
      t,
      t,
      t,
      t,
    ]);
    expect(parsePlatformTime('2026-01-01T00:00:01.25Z')).toBe(t + 250);
  });

  it('is null for anything else', () => {
    expect(['', 'yesterday', '2026-01-01', '2026-13-01T00:00:00Z', '2026-01-01T00:00:00+1'].map(parsePlatformTime)).toEqual([null, null, null, null, null]);
  });
});

/**
 * A stand-in for the client that answers task reads from a script, with a fake clock that
 * sleep advances. Unit-level only: the real HTTP path is in test/integration/api.
 */
function scripted(states: Array<Partial<Task>>) {
  const s = scriptedWithFailures(states);
  return {
    ...s,
    /** The paths read, in order. */
    get gets(): string[] {
      return s.gets.map((g) => g.path);
    },
  };
}

describe('pollTask', () => {
  it('polls at once, then on the schedule, until FINISHED', async () => {
    const s = scripted([{ state: 'NEW' }, { state: 'RUNNING' }, { state: 'RUNNING' }, { state: 'RUNNING' }, { state: 'FINISHED' }]);
    const seen: string[] = [];
    const task = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, onPoll: (t) => seen.push(t.state) });
    expect(task.state).toBe('FINISHED');
    expect(s.gets).toEqual(Array(5).fill('/cloud/v1/tasks/t-1'));
    expect(s.sleeps).toEqual([150, 150, 150, 150]);
    expect(seen).toEqual(['NEW', 'RUNNING', 'RUNNING', 'RUNNING', 'FINISHED']);
  });

  it('returns at once for an already finished task', async () => {
    const s = scripted([{ state: 'FINISHED' }]);
    await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now });
    expect(s.sleeps).toEqual([]);
  });

  it('turns ERROR into TaskFailedError with the platform reason', async () => {
    const s = scripted([{ state: 'RUNNING' }, { state: 'ERROR', error: 'Quota limit for vcpu exceeded by 4' }]);
    const error = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error).toMatchObject({ taskId: 't-1', taskType: 'resize_vm', error: 'Quota limit for vcpu exceeded by 4' });
  });

  it('gives the platform reason redacted (key fragments and encodings) and on one line', async () => {
    const key = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;
    const reason = `token ${key.slice(0, 20).replace('$', '&#36;')}… rejected\n\nApply complete! ${Buffer.from(`APIKey ${key}`).toString('base64')}`;
    const s = scripted([{ state: 'ERROR', error: reason }]);
    const client = { ...s.client, redact: (text: string) => redact(text, [key]) };
    const error = (await pollTask(client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e)) as TaskFailedError;
    expect(error.error).toBe('token [REDACTED]… rejected Apply complete! [REDACTED]');
    expect(error.message).toBe('task t-1 (resize_vm) failed: token [REDACTED]… rejected Apply complete! [REDACTED]');
  });

  it('times out with the elapsed time, polling once more at the deadline', async () => {
    const s = scripted([{ state: 'RUNNING' }]);
    const error = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error).toMatchObject({ taskId: 't-1', taskType: 'resize_vm', elapsedMs: 10_000, lastState: 'RUNNING' });
    expect(s.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(s.gets).toHaveLength(s.sleeps.length + 1);
  });

  it('waits 20 minutes without a timeout of the caller, whatever the task type (a kind passes its own)', async () => {
    const s = scripted([{ state: 'RUNNING', task_type: 'upgrade_k8s_cluster_v2' }]);
    const error = (await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e)) as TaskTimeoutError;
    expect(DEFAULT_TASK_TIMEOUT_MS).toBe(20 * 60_000);
    expect(error.elapsedMs).toBe(DEFAULT_TASK_TIMEOUT_MS);
  });

  it('rejects with the abort reason when aborted', async () => {
    const s = scripted([{ state: 'RUNNING' }]);
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const error = await pollTask(s.client, 't-1', {
      now: s.now,
      signal: controller.signal,
      sleep: async () => controller.abort(reason),
    }).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  it('has the client check every poll answer against the task schema (the client refuses what does not fit)', async () => {
    const schemas: unknown[] = [];
    const client = {
      redact: (x: string) => x,
      get: async <T>(_path: string, opts?: ApiCallOptions<T>) => {
        schemas.push(opts?.schema);
        return { status: 200, headers: {}, body: { state: 'FINISHED' } as T, requestId: null };
      },
    };
    const task = await pollTask(client, 't-9');
    expect(task).toMatchObject({ id: 't-9', task_type: 'unknown', state: 'FINISHED' });
    const schema = schemas[0] as { safeParse(v: unknown): { success: boolean } };
    expect(schema.safeParse({ id: 't-9', state: 'RUNNING', task_type: 'resize_vm', created_on: null, extra: [1] }).success).toBe(true);
    for (const bad of [{}, null, [], '<html></html>', { state: 'DONE' }, { state: 'RUNNING', task_type: 7 }, { state: 'ERROR', error: 42 }]) {
      expect(schema.safeParse(bad).success).toBe(false);
    }
    // Where and when the task was made only steer the polling: a value of another type reads as absent.
    expect(schema.safeParse({ state: 'RUNNING', project_id: 'one', region_id: [76], created_on: 5 })).toMatchObject({
      success: true,
      data: { project_id: null, region_id: null, created_on: null },
    });
  });
});

describe('waitForTasks', () => {
  it('resolves with every task in order', async () => {
    const s = scripted([{ state: 'RUNNING' }, { state: 'FINISHED' }]);
    const tasks = await waitForTasks(s.client, ['a', 'b'], { sleep: s.sleep, now: s.now });
    expect(tasks).toHaveLength(2);
    expect(s.gets).toContain('/cloud/v1/tasks/a');
    expect(s.gets).toContain('/cloud/v1/tasks/b');
  });

  it('rejects with the first failure', async () => {
    const client = {
      redact: (x: string) => x,
      get: async <T>(path: string): Promise<ApiResponse<T>> => {
        const id = path.split('/').pop()!;
        const body = { id, task_type: 'resize_vm', created_on: null, state: id === 'bad' ? 'ERROR' : 'FINISHED', error: 'no capacity' };
        return { status: 200, headers: {}, body: body as T, requestId: null };
      },
    };
    await expect(waitForTasks(client, ['ok', 'bad'])).rejects.toMatchObject({ taskId: 'bad', error: 'no capacity' });
  });

  it('resolves with an empty list for no tasks', async () => {
    const s = scripted([]);
    await expect(waitForTasks(s.client, [])).resolves.toEqual([]);
  });
});

/** A failing answer of the client, as it throws them. */
const httpError = (status: number, retryAfterMs: number | null = null) =>
  createApiError({ method: 'GET', path: '/cloud/v1/tasks/t-1', status, requestId: null, product: 'cloud', body: null, platformMessage: 'injected', retryAfterMs });
const connectionError = () => new ApiConnectionError({ method: 'GET', path: '/cloud/v1/tasks/t-1', requestSent: 'unknown', reason: 'ECONNRESET', detail: 'socket hang up' });
const timeoutError = () =>
  new ApiTimeoutError({ method: 'GET', path: '/cloud/v1/tasks/t-1', requestSent: true, reason: 'UND_ERR_HEADERS_TIMEOUT', detail: 'headers', phase: 'headers', timeoutMs: 30_000 });

/** The stand-in of `scripted`, where each step is a task state or an error the client throws; `gets` records each read's retry option too. */
function scriptedWithFailures(steps: Array<Partial<Task> | Error>) {
  let t = 0;
  const gets: Array<{ path: string; retry: unknown }> = [];
  const sleeps: number[] = [];
  const client = {
    redact: (s: string) => s,
    get: async <T>(path: string, opts?: ApiCallOptions): Promise<ApiResponse<T>> => {
      gets.push({ path, retry: opts?.retry });
      const step = steps[Math.min(gets.length - 1, steps.length - 1)]!;
      if (step instanceof Error) throw step;
      const body = { id: 't-1', task_type: 'resize_vm', created_on: null, ...step } as unknown as T;
      return { status: 200, headers: {}, body, requestId: null };
    },
  };
  return {
    client,
    gets,
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

describe('pollTask through transient poll failures', () => {
  it('asks the client not to retry: the poll schedule is the retry, and the run-wide retry quota is left alone', async () => {
    const s = scriptedWithFailures([{ state: 'FINISHED' }]);
    await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now });
    expect(s.gets.map((g) => g.retry)).toEqual(['none']);
  });

  for (const [name, make] of [
    ['a connection error', connectionError],
    ['a timeout', timeoutError],
    ...[408, 429, 500, 502, 503, 504].map((status) => [`HTTP ${status}`, () => httpError(status)] as const),
  ] as const) {
    it(`keeps polling a running task after ${name}`, async () => {
      const s = scriptedWithFailures([{ state: 'RUNNING' }, make(), make(), { state: 'RUNNING' }, { state: 'FINISHED' }]);
      const task = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now });
      expect(task.state).toBe('FINISHED');
      expect(s.gets).toHaveLength(5);
      expect(s.sleeps).toEqual([150, 150, 150, 150]);
    });
  }

  it('keeps polling when the first poll fails', async () => {
    const s = scriptedWithFailures([httpError(502), { state: 'FINISHED' }]);
    expect((await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now })).state).toBe('FINISHED');
    expect(s.sleeps).toEqual([150]);
  });

  it('waits as long as a Retry-After asks when that is longer than the poll step', async () => {
    const s = scriptedWithFailures([{ state: 'RUNNING' }, httpError(429, 9000), { state: 'FINISHED' }]);
    await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now });
    expect(s.sleeps).toEqual([150, 9000]);
  });

  it(`gives up after ${MAX_CONSECUTIVE_POLL_FAILURES} failed polls in a row with the last error and the task id`, async () => {
    const last = httpError(503);
    const s = scriptedWithFailures([{ state: 'RUNNING' }, ...Array.from({ length: MAX_CONSECUTIVE_POLL_FAILURES - 1 }, () => httpError(502)), last]);
    const error = (await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e)) as TaskPollError;
    expect(MAX_CONSECUTIVE_POLL_FAILURES).toBe(20);
    expect(error).toBeInstanceOf(TaskPollError);
    expect(error).toMatchObject({ code: 'EDGEFORM_TASK_POLL_FAILED', taskId: 't-1', failures: 20, lastState: 'RUNNING' });
    expect(error.cause).toBe(last);
    expect(error.message).toContain('task t-1');
    expect(error.message).toContain('may still be running on the platform');
    expect(error.message).toContain(last.message);
    expect(s.gets).toHaveLength(21);
  });

  it('counts only failures in a row: a successful poll starts the count again', async () => {
    const burst = Array.from({ length: MAX_CONSECUTIVE_POLL_FAILURES - 1 }, () => httpError(503));
    const s = scriptedWithFailures([...burst, { state: 'RUNNING' }, ...burst, { state: 'FINISHED' }]);
    expect((await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, timeoutMs: 3_600_000 })).state).toBe('FINISHED');
  });

  it('still times out on schedule while polls fail', async () => {
    const s = scriptedWithFailures([{ state: 'RUNNING' }, httpError(503)]);
    const error = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, timeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error).toMatchObject({ taskId: 't-1', elapsedMs: 2_000, lastState: 'RUNNING' });
    expect(s.sleeps.reduce((a, b) => a + b, 0)).toBe(2_000);
  });

  for (const status of [400, 401, 403, 404, 409]) {
    it(`fails at once on HTTP ${status}`, async () => {
      const s = scriptedWithFailures([{ state: 'RUNNING' }, httpError(status)]);
      const error = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status });
      expect(s.gets).toHaveLength(2);
    });
  }

  it('stops at once when aborted during a failed poll', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const client = {
      redact: (x: string) => x,
      get: async <T>(): Promise<ApiResponse<T>> => {
        controller.abort(reason);
        throw reason;
      },
    };
    await expect(pollTask(client, 't-1', { signal: controller.signal, sleep: async () => {} })).rejects.toBe(reason);
  });
});
