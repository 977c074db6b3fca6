import { describe, expect, it } from 'vitest';
import type { ApiCallOptions, ApiResponse } from '../../../src/api/client.js';
import { TaskFailedError, TaskTimeoutError } from '../../../src/api/errors.js';
import { defaultTaskTimeout, pollTask, taskPollDelay, waitForTasks, type Task } from '../../../src/api/tasks.js';

describe('taskPollDelay', () => {
  it('waits 1 s after the first poll, doubling to a 5 s cap', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => taskPollDelay(n))).toEqual([1000, 2000, 4000, 5000, 5000, 5000, 5000]);
  });

  it('follows a custom schedule', () => {
    expect([1, 2, 3].map((n) => taskPollDelay(n, { initialMs: 100, maxMs: 250 }))).toEqual([100, 200, 250]);
  });
});

describe('defaultTaskTimeout', () => {
  it('gives Kubernetes upgrades 60 minutes and other tasks 20', () => {
    expect(defaultTaskTimeout('upgrade_k8s_cluster_v2')).toBe(60 * 60_000);
    expect(defaultTaskTimeout('resize_vm')).toBe(20 * 60_000);
    expect(defaultTaskTimeout('update_floating_ip')).toBe(20 * 60_000);
  });
});

/**
 * A stand-in for the client that answers task reads from a script, with a fake clock that
 * sleep advances. Unit-level only: the real HTTP path is in test/integration/api.
 */
function scripted(states: Array<Partial<Task>>) {
  let t = 0;
  const gets: string[] = [];
  const sleeps: number[] = [];
  const client = {
    redact: (s: string) => s,
    get: async <T>(path: string, _opts?: ApiCallOptions): Promise<ApiResponse<T>> => {
      gets.push(path);
      const state = states[Math.min(gets.length - 1, states.length - 1)]!;
      const body = { id: 't-1', task_type: 'resize_vm', created_on: null, ...state } as unknown as T;
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

describe('pollTask', () => {
  it('polls at once, then backs off, until FINISHED', async () => {
    const s = scripted([{ state: 'NEW' }, { state: 'RUNNING' }, { state: 'RUNNING' }, { state: 'RUNNING' }, { state: 'FINISHED' }]);
    const seen: string[] = [];
    const task = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, onPoll: (t) => seen.push(t.state) });
    expect(task.state).toBe('FINISHED');
    expect(s.gets).toEqual(Array(5).fill('/cloud/v1/tasks/t-1'));
    expect(s.sleeps).toEqual([1000, 2000, 4000, 5000]);
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

  it('times out with the elapsed time, polling once more at the deadline', async () => {
    const s = scripted([{ state: 'RUNNING' }]);
    const error = await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now, timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error).toMatchObject({ taskId: 't-1', taskType: 'resize_vm', elapsedMs: 10_000, lastState: 'RUNNING' });
    expect(s.sleeps).toEqual([1000, 2000, 4000, 3000]);
  });

  it('uses the task type to pick the default timeout', async () => {
    const s = scripted([{ state: 'RUNNING', task_type: 'upgrade_k8s_cluster_v2' }]);
    const error = (await pollTask(s.client, 't-1', { sleep: s.sleep, now: s.now }).catch((e: unknown) => e)) as TaskTimeoutError;
    expect(error.elapsedMs).toBe(60 * 60_000);
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

  it('refuses an answer that is not a task', async () => {
    const client = { redact: (x: string) => x, get: async <T>() => ({ status: 200, headers: {}, body: { nope: 1 } as T, requestId: null }) };
    await expect(pollTask(client, 'x')).rejects.toMatchObject({ code: 'EDGEFORM_TASK_BAD_RESPONSE' });
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
