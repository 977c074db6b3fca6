import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;

describe('emulator cloud tasks', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000 });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  async function startResize(): Promise<string> {
    const res = await emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } });
    return res.body.tasks[0] as string;
  }

  it('a task is NEW when created, RUNNING 1 ms later, FINISHED at taskDurationMs', async () => {
    const id = await startResize();
    expect((await emu.call('GET', `/cloud/v1/tasks/${id}`)).body.state).toBe('NEW');
    emu.clock.advance(1);
    expect((await emu.call('GET', `/cloud/v1/tasks/${id}`)).body.state).toBe('RUNNING');
    emu.clock.advance(1998);
    expect((await emu.call('GET', `/cloud/v1/tasks/${id}`)).body.state).toBe('RUNNING');
    emu.clock.advance(1);
    const done = await emu.call('GET', `/cloud/v1/tasks/${id}`);
    expect(done.body).toMatchObject({ state: 'FINISHED', error: null, finished_on: '2026-01-01T00:00:02Z' });
  });

  it('answers the TaskSerializer fields', async () => {
    const id = await startResize();
    const res = await emu.call('GET', `/cloud/v1/tasks/${id}`);
    expect(res.body).toMatchObject({
      id,
      task_type: 'resize_vm',
      user_id: 1,
      project_id: 1,
      region_id: 76,
      created_on: '2026-01-01T00:00:00Z',
      finished_on: null,
      error: null,
      created_resources: null,
    });
    expect(res.body).toHaveProperty('updated_on');
  });

  it('applies a task effect exactly once, on clock.advance, without any request', async () => {
    await startResize();
    emu.clock.advance(2000);
    expect(emu.state.instances.get(DEMO.instance)).toMatchObject({ flavor_id: 'g2-standard-4-8', task_id: null, status: 'ACTIVE' });
    emu.state.instances.get(DEMO.instance)!.flavor_id = 'changed-by-test';
    emu.clock.advance(5000);
    await emu.call('GET', `/cloud/v1/instances/1/76/${DEMO.instance}`);
    expect(emu.state.instances.get(DEMO.instance)?.flavor_id).toBe('changed-by-test');
  });

  it('answers 404 NotFoundError for an unknown task', async () => {
    const res = await emu.call('GET', '/cloud/v1/tasks/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.exception_class).toBe('NotFoundError');
  });

  it('a zero task duration finishes the task at once', async () => {
    const quick = await startTestEmulator({ taskDurationMs: 0 });
    try {
      const res = await quick.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } });
      expect((await quick.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body.state).toBe('FINISHED');
      expect((await quick.call('GET', `/cloud/v1/instances/1/76/${DEMO.instance}`)).body.flavor.flavor_id).toBe('g2-standard-4-8');
    } finally {
      await quick.close();
    }
  });

  it('with the default clock, tasks finish in real time and advance() skips ahead', async () => {
    const live = await startTestEmulator({ manualClock: false, taskDurationMs: 60_000 });
    try {
      const res = await live.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } });
      expect((await live.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body.state).not.toBe('FINISHED');
      live.clock.advance(60_000);
      expect((await live.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body.state).toBe('FINISHED');
    } finally {
      await live.close();
    }
  });
});
