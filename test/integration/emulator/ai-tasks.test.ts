import { describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

type Task = { task_id: string; task_name: string; status: string; task_data: Record<string, unknown> };

describe('emulator streaming AI tasks', () => {
  let emu: TestEmulator;
  const list = async (query = ''): Promise<{ status: number; body: any }> => emu.call('GET', `/streaming/ai/tasks${query}`);
  useTestEmulator((started) => (emu = started), { resetEach: false });

  it('pages 10 tasks by default with count, next and previous', async () => {
    const res = await list();
    expect(res.body.count).toBe(15);
    expect(res.body.results).toHaveLength(10);
    expect(res.body.next).toBe('page=2');
    expect(res.body.previous).toBeNull();
  });

  it('answers the second page with previous page=1 and no next', async () => {
    const res = await list('?page=2');
    expect(res.body.results).toHaveLength(5);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBe('page=1');
  });

  it('honours limit', async () => {
    const res = await list('?limit=4&page=3');
    expect(res.body.results).toHaveLength(4);
    expect(res.body).toMatchObject({ next: 'page=4', previous: 'page=2' });
  });

  it('answers an empty page past the end (the vendor SDK pages on until one), with the count and no next', async () => {
    const res = await list('?page=3');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 15, next: null, previous: 'page=2', results: [] });
    expect((await list('?status=FAILURE&task_name=transcription&page=2')).body).toEqual({ count: 0, next: null, previous: 'page=1', results: [] });
  });

  it('orders by started_at descending by default', async () => {
    const all = (await list('?limit=15')).body.results as Task[];
    const started = all.map((t) => emu.state.aiTasks.find((x) => x.task_id === t.task_id)!.started_at);
    expect(started).toEqual([...started].sort((a, b) => b - a));
  });

  it.each(['task_id', 'status', 'task_name'] as const)('orders by %s ascending', async (field) => {
    const all = (await list(`?limit=15&ordering=${field}`)).body.results as Task[];
    const values = all.map((t) => t[field]);
    expect(values).toEqual([...values].sort());
  });

  it('orders by started_at ascending', async () => {
    const all = (await list('?limit=15&ordering=started_at')).body.results as Task[];
    const started = all.map((t) => emu.state.aiTasks.find((x) => x.task_id === t.task_id)!.started_at);
    expect(started).toEqual([...started].sort((a, b) => a - b));
  });

  it('filters by status', async () => {
    const res = await list('?status=SUCCESS&limit=20');
    expect(res.body.count).toBe(12);
  });

  it('filters by task_name and status together', async () => {
    const res = await list('?task_name=content-moderation&status=FAILURE');
    expect(res.body.count).toBe(1);
    expect((await list('?task_name=transcription&status=FAILURE')).body.count).toBe(0);
  });

  it('filters by task_id', async () => {
    const id = emu.state.aiTasks[3]!.task_id;
    const res = await list(`?task_id=${id}`);
    expect(res.body.results.map((t: Task) => t.task_id)).toEqual([id]);
  });

  it('filters by date_created (a day)', async () => {
    const res = await list('?date_created=2025-12-01');
    expect(res.body.count).toBe(1);
  });

  // The vendor documents date_created as "Datetime in ISO 8601 format", which allows reduced
  // precision: a day, an hour, a minute, or a full datetime, each with or without a zone.
  it.each([
    ['2025-12-01T08', 1],
    ['2025-12-01T09', 0],
    ['2025-12-01T10+02:00', 1],
    ['2025-12-01T08Z', 1],
    ['2025-12-01T08:00', 1],
    ['2025-12-01T08:01', 0],
    ['2025-12-01T08:00:00Z', 1],
  ] as const)('filters by date_created at its precision: %s matches %i task', async (text, count) => {
    const res = await list(`?date_created=${encodeURIComponent(text)}`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(count);
  });

  it.each(['2025-12-01T8', 'yesterday', '2025-13-01'])('answers 422 for a date_created that is not ISO 8601: %s', async (text) => {
    expect((await list(`?date_created=${text}`)).status).toBe(422);
  });

  it('searches task_data partially and case-insensitively (origin host)', async () => {
    const res = await list('?search=S3.EU-WEST-1&limit=20');
    expect(res.body.count).toBe(5);
    for (const t of res.body.results as Task[]) expect(String(t.task_data.url)).toContain('s3.eu-west-1');
  });

  it('searches the moderation category', async () => {
    const res = await list('?search=nsfw');
    expect(res.body.count).toBe(2);
  });

  it('searches over status and task_name', async () => {
    expect((await list('?search=pend')).body.count).toBe(1);
    expect((await list('?search=MODERATION&limit=20')).body.count).toBe(5);
  });

  it('searches a partial task_id', async () => {
    const id = emu.state.aiTasks[7]!.task_id;
    expect((await list(`?search=${id.slice(0, 13)}`)).body.results.map((t: Task) => t.task_id)).toContain(id);
  });

  it.each([['status=DONE'], ['task_name=translation'], ['ordering=-started_at'], ['page=0'], ['limit=abc'], ['task_id=not-a-uuid']])(
    'answers 422 {status, error} for an invalid parameter %s',
    async (query) => {
      const res = await list(`?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.status).toBe(422);
      expect(typeof res.body.error).toBe('string');
    },
  );
});

describe('emulator streaming AI task processing_time', () => {
  it('shows when each task was processed (processing_time, as the vendor SDK models require)', async () => {
    const emu = await startTestEmulator({
      fixtures: {
        ai_tasks: [
          {
            task_id: 'aafe70c6-0000-4000-8000-327b65f7670f',
            task_name: 'transcription',
            status: 'SUCCESS',
            created_at: '2026-01-01T08:00:00Z',
            started_at: '2026-01-01T08:01:00Z',
            completed_at: '2026-01-01T08:02:02.900Z',
          },
          { task_id: 'aafe70c6-0000-4000-8000-d3bcebebf37c', task_name: 'transcription', status: 'STARTED', created_at: '2026-01-01T09:00:00Z' },
        ],
      },
    });
    try {
      const res = await emu.call('GET', '/streaming/ai/tasks?ordering=task_id');
      expect(res.body.results.map((t: { processing_time: unknown }) => t.processing_time)).toEqual([
        { started_at: '2026-01-01T08:01:00.000Z', completed_at: '2026-01-01T08:02:02.900Z', total_time_sec: 62.9 },
        { started_at: '2026-01-01T09:00:00.000Z', completed_at: null, total_time_sec: null },
      ]);
    } finally {
      await emu.close();
    }
  });
});
