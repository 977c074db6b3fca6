/**
 * The task poller against the emulator: tasks waited on at the same time in one project and
 * region are read with one `GET /cloud/v1/tasks` per tick, a task the list does not show is read
 * by id, and every safety rule of a single wait still holds. The emulator's clock only moves when
 * the poller sleeps, so every count below is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientAround, createApiClient, withRunFatalErrors, type ApiClient, type ApiRequestOptions } from '../../../src/api/client.js';
import { createTaskPoller, type TaskPoller, type TaskPollerOptions, type TaskScope } from '../../../src/api/tasks.js';
import { RunFatalError, TaskFailedError, TaskPollError } from '../../../src/errors.js';
import { demoFixtures } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { queryChecker } from '../../helpers/openapi.js';

const fipId = (project: number, n: number) => `1f000000-0000-4000-8000-${String(project * 1000 + n).padStart(12, '0')}`;
const P1: TaskScope = { projectId: 1, regionId: 76 };
const P2: TaskScope = { projectId: 2, regionId: 76 };
const checkListQuery = queryChecker('cloud_api.yaml', 'GET', '/cloud/v1/tasks');

let emu: TestEmulator | undefined;
let client: ApiClient | undefined;
closeAfterEach(() => [client, emu]);

/** A request the poller sent, with the emulator time it was sent at. */
type Sent = ApiRequestOptions & { at: number };

/**
 * An emulator with 60 floating IPs in each of projects 1 and 2 (region 76), and a poller whose
 * sleeps move the emulator's clock: `sent` has every poll, `sleeps` every wait between ticks.
 */
async function setUp(options: { taskDurationMs?: number; runFatal?: boolean } & Pick<TaskPollerOptions, 'signal'> = {}) {
  const fixtures = demoFixtures();
  for (const project of [1, 2]) for (let n = 1; n <= 60; n++) fixtures.floating_ips.push({ id: fipId(project, n), project_id: project, region_id: 76, tags: { env: 'staging' } });
  const e = (emu = await startTestEmulator({ taskDurationMs: options.taskDurationMs ?? 2000, fixtures }));
  const raw = (client = createApiClient({ baseUrl: e.url, apiKey: e.apiKey }));
  const sent: Sent[] = [];
  const recording = clientAround(raw, (req) => {
    sent.push({ ...req, at: e.clock.now() });
    return raw.request(req);
  });
  const sleeps: number[] = [];
  const poller: TaskPoller = createTaskPoller(options.runFatal ? withRunFatalErrors(recording) : recording, {
    ...(options.signal ? { signal: options.signal } : {}),
    now: () => e.clock.now(),
    sleep: async (ms) => {
      sleeps.push(ms);
      e.clock.advance(ms);
    },
  });
  /** Retags floating IPs 1..count of a project: one update_floating_ip task each. */
  const start = async (project: number, count: number, from = 1): Promise<string[]> => {
    const ids: string[] = [];
    for (let n = from; n < from + count; n++) {
      const res = await e.call('PATCH', `/cloud/v2/floatingips/${project}/76/${fipId(project, n)}`, { body: { tags: { env: 'prod' } } });
      ids.push(res.body.tasks[0] as string);
    }
    return ids;
  };
  const lists = () => sent.filter((r) => r.path === '/cloud/v1/tasks');
  const reads = (id?: string) => sent.filter((r) => (id === undefined ? r.path.startsWith('/cloud/v1/tasks/') : r.path === `/cloud/v1/tasks/${id}`));
  return { emu: e, poller, sent, sleeps, start, lists, reads };
}

describe('the task poller reads tasks of one project and region together', () => {
  it('with one list request per tick, however many tasks wait', async () => {
    const { poller, start, lists, reads, sleeps } = await setUp();
    const ids = await start(1, 50);

    const tasks = await Promise.all(ids.map((id) => poller.wait([id], { scope: P1 })));

    expect(tasks.flat().map((t) => t.state)).toEqual(Array(50).fill('FINISHED'));
    // The first task of the group is read at once, alone; then the whole group is one list a tick.
    expect(reads()).toHaveLength(1);
    expect(lists()).toHaveLength(sleeps.length);
    expect(sleeps).toEqual(Array(14).fill(150));
    for (const list of lists()) {
      expect(list.query).toMatchObject({ project_id: 1, region_id: 76, order_by: 'asc', from_timestamp: '2025-12-31T23:59:59.000Z' });
      expect(checkListQuery(new URLSearchParams(Object.entries(list.query ?? {}).map(([k, v]): [string, string] => [k, String(v)])))).toEqual([]);
    }
  });

  it('with one list request per project and region per tick', async () => {
    const { poller, start, lists } = await setUp();
    const ids = [...(await start(1, 10)), ...(await start(2, 10))];

    await Promise.all(ids.map((id, i) => poller.wait([id], { scope: i < 10 ? P1 : P2 })));

    const ticks = new Map<number, string[]>();
    for (const list of lists()) ticks.set(list.at, [...(ticks.get(list.at) ?? []), `${String(list.query?.project_id)}/${String(list.query?.region_id)}`]);
    expect(ticks.size).toBeGreaterThan(5);
    const first = lists()[0]!.at;
    for (const [at, groups] of ticks) expect({ at, groups: groups.sort() }).toEqual({ at, groups: at === first ? ['2/76'] : ['1/76', '2/76'] });
  });

  it('reads by id a task the list does not show (one created before the oldest the list starts from), once', async () => {
    const { emu, poller, start, lists, reads } = await setUp({ taskDurationMs: 10_000 });
    const [old] = await start(1, 1);
    emu.clock.advance(5000);
    const recent = await start(1, 3, 2);

    // The first recent task is read alone and tells when it was created; the next list starts a
    // second before that, which leaves the older task out: it is read by id, then listed.
    const tasks = await Promise.all([...recent, old!].map((id) => poller.wait([id], { scope: P1 })));

    expect(tasks.flat().map((t) => t.state)).toEqual(Array(4).fill('FINISHED'));
    expect(reads(old)).toHaveLength(1);
    expect(reads().map((r) => r.path)).toEqual([`/cloud/v1/tasks/${recent[0]}`, `/cloud/v1/tasks/${old}`]);
    const readOld = reads(old)[0]!.at;
    expect(lists().find((l) => l.at > readOld)?.query?.from_timestamp).toBe('2025-12-31T23:59:59.000Z');
  });

  it('reads by id a task started elsewhere than its wait said, then polls it where it runs', async () => {
    const { poller, start, reads } = await setUp();
    const here = await start(1, 3);
    const [elsewhere] = await start(2, 1);

    await Promise.all([...here, elsewhere!].map((id) => poller.wait([id], { scope: P1 })));

    // Shown by no list of project 1, it is read by id each tick, alone in project 2.
    expect(reads(elsewhere).length).toBeGreaterThan(1);
    expect(reads().filter((r) => r.path !== `/cloud/v1/tasks/${elsewhere}`)).toHaveLength(1);
  });

  it('reads tasks of unknown place by id at once, then lists them with the others of the place their answers name', async () => {
    const { emu, poller, start, lists, reads } = await setUp();
    const ids = await start(1, 3);
    const startedAt = emu.clock.now();

    await Promise.all(ids.map((id) => poller.wait([id])));

    expect(reads().map((r) => [r.path, r.at])).toEqual(ids.map((id) => [`/cloud/v1/tasks/${id}`, startedAt]));
    expect(lists().length).toBeGreaterThan(0);
    expect(lists().every((l) => l.query?.project_id === 1 && l.query.region_id === 76)).toBe(true);
  });

  it('reads each task by id from then on when the platform refuses the list', async () => {
    const { emu, poller, start, lists, reads } = await setUp();
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks', status: 400 });
    const ids = await start(1, 5);

    const tasks = await Promise.all(ids.map((id) => poller.wait([id], { scope: P1 })));

    expect(tasks.flat().map((t) => t.state)).toEqual(Array(5).fill('FINISHED'));
    expect(lists()).toHaveLength(1);
    // The refused list's tick reads all five by id at once, and every tick after it too.
    expect(reads().filter((r) => r.at === lists()[0]!.at)).toHaveLength(5);
  });
});

describe('the task poller keeps every safety rule of a wait', () => {
  it('keeps polling a group through transient list failures, honouring Retry-After', async () => {
    const { emu, poller, start, sleeps } = await setUp();
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks', status: 503, count: 2 });
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks', status: 429, retryAfter: 3 });
    const ids = await start(1, 4);

    const tasks = await Promise.all(ids.map((id) => poller.wait([id], { scope: P1 })));

    expect(tasks.flat().map((t) => t.state)).toEqual(Array(4).fill('FINISHED'));
    expect(sleeps.slice(0, 4)).toEqual([150, 150, 150, 3000]);
  });

  it('gives up after 20 failed polls in a row, for every task of the group', async () => {
    const { emu, poller, start, lists } = await setUp();
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks', status: 503, count: 100 });
    const ids = await start(1, 3);

    const errors = await Promise.all(ids.map((id) => poller.wait([id], { scope: P1 }).catch((e: unknown) => e)));

    expect(errors.map((e) => e instanceof TaskPollError && { taskId: e.taskId, failures: e.failures })).toEqual(ids.map((taskId) => ({ taskId, failures: 20 })));
    expect(lists()).toHaveLength(20);
  });

  it('ends every wait of the group with the run-fatal error when a list is refused for the key', async () => {
    const { emu, poller, start, lists, reads } = await setUp({ runFatal: true });
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks', status: 401 });
    const ids = await start(1, 3);

    const errors = await Promise.all(ids.map((id) => poller.wait([id], { scope: P1 }).catch((e: unknown) => e)));

    expect(errors.every((e) => e instanceof RunFatalError && e.code === 'EDGEFORM_API_KEY_REFUSED')).toBe(true);
    expect(lists()).toHaveLength(1);
    expect(reads()).toHaveLength(1);
  });

  it('fails the wait of a task that ends in ERROR with the platform reason, and only that wait', async () => {
    const { emu, poller, start } = await setUp();
    const ok = await start(1, 2);
    emu.state.setNextTaskError('floating_ip', fipId(1, 3), 'No valid host was found');
    const [bad] = await start(1, 1, 3);

    const results = await Promise.all([...ok, bad!].map((id) => poller.wait([id], { scope: P1 }).catch((e: unknown) => e)));

    expect(results.slice(0, 2).map((r) => (r as Array<{ state: string }>)[0]?.state)).toEqual(['FINISHED', 'FINISHED']);
    expect(results[2]).toBeInstanceOf(TaskFailedError);
    expect(results[2]).toMatchObject({ taskId: bad, error: 'No valid host was found' });
  });

  it("ends a wait at once when its own signal aborts, and the others' waits go on", async () => {
    const { poller, start, lists, sleeps } = await setUp();
    const ids = await start(1, 4);
    const own = new AbortController();
    const reason = new Error('first interrupt');

    const cut = poller.wait(ids.slice(0, 2), { scope: P1, signal: own.signal }).catch((e: unknown) => e);
    const rest = poller.wait(ids.slice(2), { scope: P1 });
    await Promise.resolve();
    own.abort(reason);

    expect(await cut).toBe(reason);
    expect((await rest).map((t) => t.state)).toEqual(['FINISHED', 'FINISHED']);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(lists().length).toBeGreaterThan(0);
  });

  it("ends every wait when the run's signal aborts, with its reason", async () => {
    const run = new AbortController();
    const { poller, start, sleeps } = await setUp({ signal: run.signal });
    const ids = await start(1, 3);
    const reason = new Error('interrupted twice');

    const waits = ids.map((id) => poller.wait([id], { scope: P1 }).catch((e: unknown) => e));
    await Promise.resolve();
    run.abort(reason);

    expect(await Promise.all(waits)).toEqual([reason, reason, reason]);
    await expect(poller.wait(ids, { scope: P1 })).rejects.toBe(reason);
    expect(sleeps.length).toBeLessThanOrEqual(1);
  });

  it('resolves every wait on a task when several wait on it', async () => {
    const { poller, start, reads, lists } = await setUp();
    const [id] = await start(1, 1);

    const [a, b] = await Promise.all([poller.wait([id!], { scope: P1 }), poller.wait([id!], { scope: P1 })]);

    expect(a[0]).toMatchObject({ id, state: 'FINISHED' });
    expect(b[0]).toMatchObject({ id, state: 'FINISHED' });
    expect(reads().length + lists().length).toBe(15);
  });
});
