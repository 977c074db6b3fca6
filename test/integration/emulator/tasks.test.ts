import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoFixtures } from '../../helpers/apply.js';
import { DEMO, startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;

describe('emulator cloud tasks', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 2000 });

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

describe('emulator task list (GET /cloud/v1/tasks)', () => {
  let emu: TestEmulator;
  const fipIn = (project: number, region: number, n: number) => `1f000000-0000-4000-8000-${String(project * 1000 + region * 10 + n).padStart(12, '0')}`;
  beforeAll(async () => {
    const fixtures = demoFixtures();
    for (const [project, region] of [
      [1, 76],
      [2, 76],
      [1, 88],
    ] as const) {
      for (let n = 1; n <= 3; n++) fixtures.floating_ips.push({ id: fipIn(project, region, n), project_id: project, region_id: region, tags: { env: 'staging' } });
    }
    emu = await startTestEmulator({ taskDurationMs: 2000, fixtures });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  let retags = 0;
  /** Retags a floating IP (one update_floating_ip task) and moves the clock on by `afterMs`. */
  async function retag(project: number, region: number, n: number, afterMs = 1000): Promise<string> {
    retags += 1;
    const res = await emu.call('PATCH', `/cloud/v2/floatingips/${project}/${region}/${fipIn(project, region, n)}`, { body: { tags: { env: `v${retags}` } } });
    emu.clock.advance(afterMs);
    return res.body.tasks[0] as string;
  }
  const list = async (query: string) => {
    const res = await emu.call('GET', `/cloud/v1/tasks${query}`);
    expect(res.status).toBe(200);
    return res.body as { count: number; results: Array<{ id: string; state: string; project_id: number; region_id: number; created_on: string }> };
  };
  const ids = (body: { results: Array<{ id: string }> }) => body.results.map((t) => t.id);

  it('lists every task of the client newest first, 10 by default, with the count of all that match', async () => {
    const started: string[] = [];
    for (const [p, r] of [
      [1, 76],
      [2, 76],
      [1, 88],
    ] as const)
      for (let n = 1; n <= 3; n++) started.push(await retag(p, r, n));
    for (let n = 1; n <= 3; n++) started.push(await retag(1, 76, n, 3000)); // the first tasks have ended by now
    const body = await list('');
    expect(body.count).toBe(12);
    expect(ids(body)).toEqual(started.slice().reverse().slice(0, 10));
  });

  it('filters by every project_id and region_id given', async () => {
    const a = await retag(1, 76, 1);
    const b = await retag(2, 76, 1);
    const c = await retag(1, 88, 1);
    expect(ids(await list('?project_id=1&region_id=76'))).toEqual([a]);
    expect(ids(await list('?project_id=1&region_id=76&region_id=88'))).toEqual([c, a]);
    expect(ids(await list('?project_id=2&project_id=1&region_id=76'))).toEqual([b, a]);
  });

  it('filters by the states the clock gives now', async () => {
    const early = await retag(1, 76, 1, 2500); // FINISHED from 2000
    const running = await retag(1, 76, 2, 1); // created at 2500
    emu.state.setNextTaskError('floating_ip', fipIn(1, 76, 3), 'no capacity');
    const failed = await retag(1, 76, 3, 0); // created at 2501, NEW until 2502
    expect(ids(await list('?state=FINISHED'))).toEqual([early]);
    expect(ids(await list('?state=NEW'))).toEqual([failed]);
    expect(ids(await list('?state=RUNNING'))).toEqual([running]);
    expect(ids(await list('?state=NEW&state=RUNNING'))).toEqual([failed, running]);
    emu.clock.advance(2000);
    expect(ids(await list('?state=ERROR'))).toEqual([failed]);
    expect(ids(await list('?state=FINISHED&state=ERROR'))).toEqual([failed, running, early]);
  });

  it('filters by creation time: from_timestamp and to_timestamp are inclusive, to the second created_on shows', async () => {
    const first = await retag(1, 76, 1, 1500);
    const second = await retag(1, 76, 2, 1500);
    const third = await retag(1, 76, 3, 0);
    const created = (await list('?order_by=asc&limit=100')).results.map((t) => t.created_on);
    expect(created).toEqual(['2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '2026-01-01T00:00:03Z']);
    expect(ids(await list(`?from_timestamp=${created[1]}`))).toEqual([third, second]);
    expect(ids(await list('?from_timestamp=2026-01-01T00:00:01.600Z'))).toEqual([third]);
    expect(ids(await list('?from_timestamp=2026-01-01T00:00:01%2B00:00&to_timestamp=2026-01-01T00:00:02Z'))).toEqual([second]);
    expect(ids(await list('?to_timestamp=2026-01-01T00:00:00Z'))).toEqual([first]);
  });

  it('orders oldest first with order_by=asc (or the deprecated sorting=asc) and pages with limit and offset', async () => {
    const started = [await retag(1, 76, 1), await retag(1, 76, 2), await retag(1, 76, 3), await retag(2, 76, 1)];
    expect(ids(await list('?order_by=asc'))).toEqual(started);
    expect(ids(await list('?sorting=asc'))).toEqual(started);
    const page = await list('?order_by=asc&limit=2&offset=1');
    expect(page.count).toBe(4);
    expect(ids(page)).toEqual(started.slice(1, 3));
    expect(ids(await list('?order_by=desc&limit=1000&offset=3'))).toEqual([started[0]]);
    expect(await list('?offset=9')).toEqual({ count: 4, results: [] });
  });

  it('filters by task_type and is_acknowledged (emulated tasks are never acknowledged)', async () => {
    const tags = await retag(1, 76, 1);
    const resize = (await emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0] as string;
    expect(ids(await list('?task_type=resize_vm'))).toEqual([resize]);
    expect(ids(await list('?task_type=update_floating_ip'))).toEqual([tags]);
    expect(ids(await list('?is_acknowledged=true'))).toEqual([]);
    expect(ids(await list('?is_acknowledged=false'))).toEqual([resize, tags]);
  });

  it.each([
    ['project_id=x', 'project_id'],
    ['region_id=1.5', 'region_id'],
    ['state=DONE', 'state'],
    ['from_timestamp=yesterday', 'from_timestamp'],
    ['to_timestamp=2026-13-01', 'to_timestamp'],
    ['order_by=newest', 'order_by'],
    ['is_acknowledged=maybe', 'is_acknowledged'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['offset=-1', 'offset'],
  ])('answers 400 ValidationError naming the filter for %s', async (query, name) => {
    const res = await emu.call('GET', `/cloud/v1/tasks?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ exception_class: 'ValidationError' });
    expect(res.body.message).toContain(name);
  });
});
