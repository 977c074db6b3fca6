/**
 * The API client and task poller against the platform emulator over loopback HTTP: error
 * bodies per product, retries under injected faults, never re-sending an ambiguous POST,
 * redaction of a wrong key, and task polling driven by the emulator's manual clock.
 */
import { inspect } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/client.js';
import { ApiConnectionError, AuthenticationError, NotFoundError } from '../../../src/api/errors.js';
import { createRetryQuota } from '../../../src/api/retry.js';
import { apiPath } from '../../../src/api/path.js';
import { pollTask, waitForTasks, type Task, type TaskIds } from '../../../src/api/tasks.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { TaskFailedError, TaskPollError } from '../../../src/errors.js';

const FIXTURES = fileURLToPath(new URL('../../../examples/emulator/fixtures.yaml', import.meta.url));
const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const INSTANCE = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';
const FIP_PATH = apiPath`/cloud/v1/floatingips/${1}/${76}/${FIP}`;
const CHANGEFLAVOR_PATH = apiPath`/cloud/v1/instances/${1}/${76}/${INSTANCE}/changeflavor`;
const TASK_DURATION_MS = 5_000;

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emu: Emulator;
let api: ApiClient;
let sleeps: number[];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, fixtures: FIXTURES, control: false, taskDurationMs: TASK_DURATION_MS, manualClock: true });
});

afterAll(async () => {
  await emu?.close();
});

beforeEach(async () => {
  await api?.close();
  emu.reset();
  emu.faults.clear();
  sleeps = [];
  api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
});

afterAll(async () => {
  await api?.close();
});

const requestsTo = (method: string, path: string) => emu.requests.filter((r) => r.method === method && r.path === path);

describe('reads', () => {
  it('GETs a floating IP', async () => {
    const res = await api.get<{ id: string; floating_ip_address: string; tags: unknown[] }>(FIP_PATH);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(FIP);
    expect(res.body.floating_ip_address).toBe('203.0.113.10');
  });

  it('turns a cloud 404 into NotFoundError with the cloud body and request_id', async () => {
    const path = apiPath`/cloud/v1/floatingips/${1}/${76}/${'00000000-0000-4000-8000-000000000000'}`;
    const error = (await api.get(path).catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.product).toBe('cloud');
    expect(error.body).toMatchObject({ exception_class: 'NotFoundError' });
    const bodyRequestId = (error.body as { request_id: string }).request_id;
    expect(error.requestId).toBe(bodyRequestId);
    expect(error.message).toMatch(new RegExp(`^GET ${path}: 404 Not Found: .+ \\(request_id ${bodyRequestId}\\)$`));
    expect(sleeps).toEqual([]);
  });

  it('reads a FastEdge 404 without a body', async () => {
    const error = (await api.get('/fastedge/v1/apps/999999').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.product).toBe('fastedge');
    expect(error.body).toBeNull();
  });

  it('reads a streaming 404 {status, error}', async () => {
    const error = (await api.get('/streaming/videos/1/subtitles').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.body).toMatchObject({ status: 404 });
    expect(error.platformMessage).toBeTruthy();
  });

  it('DELETE answered 204 resolves with a null body', async () => {
    const res = await api.delete('/streaming/players/55');
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });
});

describe('retries against injected faults', () => {
  it('retries a GET answered 503 once, then succeeds', async () => {
    emu.faults.failNext({ method: 'GET', path: FIP_PATH, status: 503, count: 1 });
    const res = await api.get<{ id: string }>(FIP_PATH);
    expect(res.body.id).toBe(FIP);
    expect(sleeps).toHaveLength(1);
    expect(requestsTo('GET', FIP_PATH).map((r) => r.status)).toEqual([503, 200]);
  });

  it('honours Retry-After on a 429', async () => {
    emu.faults.failNext({ method: 'GET', path: FIP_PATH, status: 429, retryAfter: 2 });
    await api.get(FIP_PATH);
    expect(sleeps).toEqual([2000]);
  });

  it('retries a GET whose connection was dropped before it was answered', async () => {
    emu.faults.dropNext({ method: 'GET', path: FIP_PATH, when: 'before' });
    const res = await api.get<{ id: string }>(FIP_PATH);
    expect(res.body.id).toBe(FIP);
    expect(requestsTo('GET', FIP_PATH)).toHaveLength(2);
  });

  it('never re-sends a POST after an ambiguous failure', async () => {
    emu.faults.dropNext({ method: 'POST', path: CHANGEFLAVOR_PATH, when: 'after' });
    const error = (await api.post(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' }).catch((e: unknown) => e)) as ApiConnectionError;
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.requestSent).toBe('unknown');
    expect(requestsTo('POST', CHANGEFLAVOR_PATH)).toHaveLength(1);
    expect(sleeps).toEqual([]);
    // The platform did act on it: the instance is now locked by the resize task.
    const instance = await api.get<{ task_id: string | null }>(apiPath`/cloud/v1/instances/${1}/${76}/${INSTANCE}`);
    expect(instance.body.task_id).toBeTruthy();
  });

  it('re-sends a POST answered 503 (refused at the door)', async () => {
    emu.faults.failNext({ method: 'POST', path: CHANGEFLAVOR_PATH, status: 503 });
    const res = await api.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' });
    expect(res.body.tasks).toHaveLength(1);
    expect(requestsTo('POST', CHANGEFLAVOR_PATH).map((r) => r.status)).toEqual([503, 200]);
  });

  it('does not re-send a POST answered 500', async () => {
    emu.faults.failNext({ method: 'POST', path: CHANGEFLAVOR_PATH, status: 500 });
    await expect(api.post(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' })).rejects.toMatchObject({ status: 500 });
    expect(requestsTo('POST', CHANGEFLAVOR_PATH)).toHaveLength(1);
  });
});

describe('authentication', () => {
  it('a wrong key is an AuthenticationError that never shows the key', async () => {
    const wrongKey = '99999$wrongSecretValue$zz';
    const bad = createApiClient({ baseUrl: emu.url, apiKey: wrongKey, sleep: async () => undefined });
    try {
      const error = await bad.get(FIP_PATH).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      const e = error as Error;
      for (const text of [String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10, showHidden: true })]) {
        expect(text).not.toContain('wrongSecretValue');
        expect(text).not.toContain(encodeURIComponent(wrongKey));
        expect(text).not.toContain(emu.apiKey);
      }
    } finally {
      await bad.close();
    }
  });
});

describe('tasks', () => {
  it('polls a resize task through NEW → RUNNING → FINISHED on the emulator clock', async () => {
    const start = emu.clock.now();
    const { body } = await api.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' });
    const taskId = body.tasks[0]!;
    const states: string[] = [];
    const waits: number[] = [];
    const task = await pollTask(api, taskId, {
      now: () => emu.clock.now(),
      sleep: async (ms) => {
        waits.push(ms);
        emu.clock.advance(ms);
      },
      onPoll: (t) => states.push(t.state),
    });
    expect(task).toMatchObject({ id: taskId, state: 'FINISHED', task_type: 'resize_vm' });
    expect(states[0]).toBe('NEW');
    expect(states).toContain('RUNNING');
    expect(states.at(-1)).toBe('FINISHED');
    // 150 ms apart while young, then 7 % of the task's age: noticed within 10 % of its 5 s.
    expect(waits.slice(0, 14)).toEqual(Array(14).fill(150));
    expect(emu.clock.now() - start).toBeGreaterThanOrEqual(TASK_DURATION_MS);
    expect(emu.clock.now() - start).toBeLessThanOrEqual(TASK_DURATION_MS * 1.1);
  });

  it('turns a task ERROR into TaskFailedError with the platform reason', async () => {
    emu.state.setNextTaskError('instance', INSTANCE, 'Quota limit for vcpu exceeded by 2');
    const { body } = await api.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-8-16' });
    const error = (await waitForTasks(api, body.tasks, {
      now: () => emu.clock.now(),
      sleep: async (ms) => emu.clock.advance(ms),
    }).catch((e: unknown) => e)) as TaskFailedError;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.taskId).toBe(body.tasks[0]);
    expect(error.taskType).toBe('resize_vm');
    expect(error.error).toBe('Quota limit for vcpu exceeded by 2');
  });

  it('a task read is a typed Task', async () => {
    const { body } = await api.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' });
    const res = await api.get<Task>(apiPath`/cloud/v1/tasks/${body.tasks[0]!}`);
    expect(res.body).toMatchObject({ id: body.tasks[0], state: 'NEW', task_type: 'resize_vm' });
    expect(res.body).toHaveProperty('created_on');
  });
});

describe('task polling through transient failures', () => {
  const TASK_ROUTE = '/cloud/v1/tasks/{task_id}';
  const startResize = async () => (await api.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' })).body.tasks[0]!;
  const clockSleep = (waits: number[]) => async (ms: number) => {
    waits.push(ms);
    emu.clock.advance(ms);
  };

  it('keeps polling on its own schedule through failed polls and never spends the run-wide retry quota', async () => {
    const quota = createRetryQuota();
    const polling = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, sleep: async (ms) => void sleeps.push(ms), random: () => 0, retryQuota: quota });
    try {
      const taskId = (await polling.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' })).body.tasks[0]!;
      emu.faults.failNext({ method: 'GET', path: TASK_ROUTE, status: 502, count: 3 });
      const waits: number[] = [];
      const task = await pollTask(polling, taskId, { now: () => emu.clock.now(), sleep: clockSleep(waits) });
      expect(task.state).toBe('FINISHED');
      expect(
        requestsTo('GET', `/cloud/v1/tasks/${taskId}`)
          .map((r) => r.status)
          .slice(0, 4),
      ).toEqual([502, 502, 502, 200]);
      expect(waits.slice(0, 3)).toEqual([150, 150, 150]);
      expect(sleeps).toEqual([]);
      expect(quota.available).toBe(quota.capacity);
    } finally {
      await polling.close();
    }
  });

  it('polls a running task to the end when the run-wide retry quota is already exhausted', async () => {
    const quota = createRetryQuota({ capacity: 5 });
    quota.take(5);
    const polling = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, sleep: async (ms) => void sleeps.push(ms), random: () => 0, retryQuota: quota });
    try {
      const taskId = (await polling.post<TaskIds>(CHANGEFLAVOR_PATH, { flavor_id: 'g2-standard-4-8' })).body.tasks[0]!;
      emu.faults.failNext({ method: 'GET', path: TASK_ROUTE, status: 503, count: 2 });
      emu.faults.failNext({ method: 'GET', path: TASK_ROUTE, status: 429, count: 1, retryAfter: 7 });
      const waits: number[] = [];
      const task = await pollTask(polling, taskId, { now: () => emu.clock.now(), sleep: clockSleep(waits) });
      expect(task.state).toBe('FINISHED');
      // After the 429 the poller waits the longer of its own step (150 ms) and Retry-After (7 s).
      expect(waits.slice(0, 3)).toEqual([150, 150, 7000]);
      expect(sleeps).toEqual([]);
    } finally {
      await polling.close();
    }
  });

  it('gives up after 20 failed polls in a row, saying which task may still be running', async () => {
    const taskId = await startResize();
    emu.faults.failNext({ method: 'GET', path: TASK_ROUTE, status: 503, count: 100 });
    const error = (await pollTask(api, taskId, { now: () => emu.clock.now(), sleep: clockSleep([]) }).catch((e: unknown) => e)) as TaskPollError;
    expect(error).toBeInstanceOf(TaskPollError);
    expect(error).toMatchObject({ code: 'EDGEFORM_TASK_POLL_FAILED', taskId, failures: 20 });
    expect(error.message).toContain(`task ${taskId}`);
    expect(error.message).toContain('may still be running');
    expect(error.message).toContain('503 Service Unavailable');
    expect(requestsTo('GET', `/cloud/v1/tasks/${taskId}`)).toHaveLength(20);
  });

  it('fails at once on a 404 task', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const error = await pollTask(api, missing, { now: () => emu.clock.now(), sleep: clockSleep([]) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(requestsTo('GET', `/cloud/v1/tasks/${missing}`)).toHaveLength(1);
  });
});
