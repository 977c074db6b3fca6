import { describe, expect, it } from 'vitest';
import { INJECTED_TASK_ERROR, type EmulatorOptions } from '../../../src/emulator/index.js';
import { DEMO, startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const V2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;
const FIP_V1 = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;

/** Runs `use` against an emulator of its own, closed afterwards. */
async function withEmulator<T>(options: EmulatorOptions, use: (emu: TestEmulator) => Promise<T>): Promise<T> {
  const own = await startTestEmulator(options);
  try {
    return await use(own);
  } finally {
    await own.close();
  }
}

/** Status of each request (0 for a dropped connection), sent one after another. */
async function statuses(emu: TestEmulator, requests: Array<[string, string]>): Promise<number[]> {
  const out: number[] = [];
  for (const [method, path] of requests)
    out.push(
      await emu.call(method, path).then(
        (r) => r.status,
        () => 0,
      ),
    );
  return out;
}

describe('emulator faults', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  it('failNext answers the status once, with the cloud error body, changing nothing', async () => {
    emu.faults.failNext({ method: 'POST', path: RESIZE, status: 500 });
    const res = await emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } });
    expect(res.status).toBe(500);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(emu.state.tasks.size).toBe(0);
    expect((await emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).status).toBe(200);
  });

  it('failNext matches the route pattern and honours count', async () => {
    emu.faults.failNext({ path: '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}', status: 502, count: 2 });
    const path = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
    expect((await emu.call('GET', path)).status).toBe(502);
    expect((await emu.call('GET', path)).status).toBe(502);
    expect((await emu.call('GET', path)).status).toBe(200);
  });

  it('failNext with 429 sends Retry-After', async () => {
    emu.faults.failNext({ path: V2, status: 429, retryAfter: 3 });
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'prod' } } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('failNext ignores requests of another method', async () => {
    emu.faults.failNext({ method: 'PATCH', path: V2, status: 503 });
    expect((await emu.call('GET', `/cloud/v1/floatingips/1/76/${DEMO.fip}`)).status).toBe(200);
  });

  it("dropNext 'before' destroys the socket and nothing changes", async () => {
    emu.faults.dropNext({ method: 'POST', path: RESIZE, when: 'before' });
    await expect(emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).rejects.toThrow();
    expect(emu.state.tasks.size).toBe(0);
    expect(emu.state.instances.get(DEMO.instance)?.task_id).toBeNull();
    expect(emu.requests.at(-1)).toMatchObject({ method: 'POST', status: 0 });
  });

  it("dropNext 'after' destroys the socket after the change was made", async () => {
    emu.faults.dropNext({ path: RESIZE, when: 'after' });
    await expect(emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).rejects.toThrow();
    expect(emu.state.tasks.size).toBe(1);
    expect(emu.state.instances.get(DEMO.instance)?.task_id).not.toBeNull();
  });

  it('failRate 1 answers 503 to everything without changing anything', async () => {
    emu.faults.set({ failRate: 1 });
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'prod' } } });
    expect(res.status).toBe(503);
    expect(res.body.exception_class).toBeDefined();
    expect(emu.state.tasks.size).toBe(0);
  });

  it('rateLimitRate 1 answers 429 with Retry-After: 1', async () => {
    emu.faults.set({ rateLimitRate: 1 });
    const res = await emu.call('GET', '/streaming/players');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('a seeded failRate fails a stable share of requests', async () => {
    const seen = await withEmulator({ failRate: 0.3, seed: 42 }, (e) =>
      statuses(
        e,
        Array.from({ length: 40 }, () => ['GET', '/fastedge/v1/apps'] as [string, string]),
      ),
    );
    const failed = seen.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(4);
    expect(failed).toBeLessThan(24);
    expect(seen.every((s) => s === 200 || s === 503)).toBe(true);
  });

  describe('seeded faults', () => {
    const chaos: EmulatorOptions = { failRate: 0.2, rateLimitRate: 0.1, dropBeforeRate: 0.1, dropAfterRate: 0.1 };
    const paths = ['/fastedge/v1/apps', '/streaming/players', FIP_V1, '/cloud/v2/limits_request'];
    /** Ten GETs of each path, interleaved path after path. */
    const interleaved = Array.from({ length: 10 }, () => paths.map((p) => ['GET', p] as [string, string])).flat();
    const byPath = (requests: Array<[string, string]>, seen: number[]) => Object.fromEntries(paths.map((p) => [p, seen.filter((_, i) => requests[i]![1] === p)]));

    it('the same seed gives the same request sequence the same faults, and reset() replays them', async () => {
      const first = await withEmulator({ ...chaos, seed: 7 }, (e) => statuses(e, interleaved));
      const again = await withEmulator({ ...chaos, seed: 7 }, async (e) => {
        await statuses(e, interleaved);
        e.reset();
        return statuses(e, interleaved);
      });
      expect(again).toEqual(first);
      expect(new Set(first)).toEqual(new Set([200, 503, 429, 0]));
      const other = await withEmulator({ ...chaos, seed: 8 }, (e) => statuses(e, interleaved));
      expect(other).not.toEqual(first);
    });

    it('a fault depends on the n-th request of its method and path, not on the order requests of other paths arrive in', async () => {
      const grouped = paths.flatMap((p) => Array.from({ length: 10 }, () => ['GET', p] as [string, string]));
      const a = await withEmulator({ ...chaos, seed: 99 }, (e) => statuses(e, interleaved));
      const b = await withEmulator({ ...chaos, seed: 99 }, (e) => statuses(e, grouped));
      expect(byPath(grouped, b)).toEqual(byPath(interleaved, a));
    });

    it('faults.seed tells the seed; without one it is random, and reseed() replays from the start', async () => {
      await withEmulator({ ...chaos }, async (e) => {
        expect(Number.isInteger(e.faults.seed)).toBe(true);
        const first = await statuses(e, interleaved);
        e.faults.reseed(e.faults.seed);
        expect(await statuses(e, interleaved)).toEqual(first);
      });
      expect(() => emu.faults.reseed(-1)).toThrow(RangeError);
      await expect(startTestEmulator({ seed: 2 ** 32 })).rejects.toThrow('seed must be a whole number from 0 to 4294967295');
    });

    it('dropBeforeRate 1 drops every connection before anything is done', async () => {
      await withEmulator({ dropBeforeRate: 1 }, async (e) => {
        await expect(e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).rejects.toThrow();
        expect(e.state.tasks.size).toBe(0);
        expect(e.requests.at(-1)).toMatchObject({ method: 'POST', status: 0 });
      });
    });

    it('dropAfterRate 1 drops every connection after the change was made', async () => {
      await withEmulator({ dropAfterRate: 1, taskDurationMs: 0 }, async (e) => {
        await expect(e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).rejects.toThrow();
        expect(e.state.instances.get(DEMO.instance)?.flavor_id).toBe('g2-standard-4-8');
        expect(e.mutations).toHaveLength(1);
      });
    });

    it('taskFailRate 1 ends every task in ERROR with the injected message, leaving the resource unchanged', async () => {
      await withEmulator({ taskFailRate: 1, taskDurationMs: 1000 }, async (e) => {
        const task = (await e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0] as string;
        e.clock.advance(1000);
        expect((await e.call('GET', `/cloud/v1/tasks/${task}`)).body).toMatchObject({ state: 'ERROR', error: INJECTED_TASK_ERROR });
        expect(e.state.instances.get(DEMO.instance)).toMatchObject({ flavor_id: 'g2-standard-2-4', task_id: null, status: 'ACTIVE' });
        expect(e.mutations).toEqual([]);
      });
    });

    it("a resource's own next_task_error wins over an injected task failure", async () => {
      await withEmulator({ taskFailRate: 1, taskDurationMs: 0 }, async (e) => {
        e.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found');
        const task = (await e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0] as string;
        expect((await e.call('GET', `/cloud/v1/tasks/${task}`)).body.error).toBe('No valid host was found');
      });
    });

    it('a seeded taskFailRate fails the same tasks, with the same ids, for the same seed', async () => {
      const run = (seed: number) =>
        withEmulator({ taskFailRate: 0.5, taskDurationMs: 0, seed }, async (e) => {
          const tasks: Array<{ id: string; state: string }> = [];
          for (const flavor of ['g2-standard-4-8', 'g2-standard-8-16', 'g2-standard-4-8', 'g2-standard-8-16', 'g2-standard-4-8', 'g2-standard-8-16']) {
            const res = await e.call('POST', RESIZE, { body: { flavor_id: flavor } });
            if (res.status !== 200) continue; // the flavor it already has after a failed resize
            const id = res.body.tasks[0] as string;
            tasks.push({ id, state: (await e.call('GET', `/cloud/v1/tasks/${id}`)).body.state });
          }
          return tasks;
        });
      const first = await run(5);
      expect(await run(5)).toEqual(first);
      expect(new Set(first.map((t) => t.state))).toEqual(new Set(['FINISHED', 'ERROR']));
      expect(new Set(first.map((t) => t.id)).size).toBe(first.length);
      expect(first.every((t) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(t.id))).toBe(true);
      expect((await run(6)).map((t) => t.id)).not.toEqual(first.map((t) => t.id));
    });

    it('task ids stay unique after a reseed without a reset', async () => {
      await withEmulator({ taskDurationMs: 0, seed: 3 }, async (e) => {
        const first = (await e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0];
        e.faults.reseed(3);
        const second = (await e.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-8-16' } })).body.tasks[0];
        expect(second).not.toBe(first);
        expect(e.state.tasks.size).toBe(2);
      });
    });

    it('fixture faults set the seed and the new rates', async () => {
      const fixtures = { faults: { seed: 11, drop_before_rate: 0.25, drop_after_rate: 0.5, task_fail_rate: 0.75 } };
      await withEmulator({ fixtures }, async (e) => {
        expect(e.faults.seed).toBe(11);
        expect(e.faults.current).toMatchObject({ dropBeforeRate: 0.25, dropAfterRate: 0.5, taskFailRate: 0.75 });
      });
    });
  });

  it('latency delays the answer', async () => {
    emu.faults.set({ latencyMs: 120 });
    const started = Date.now();
    await emu.call('GET', '/streaming/players');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('clear() removes rules and rates', async () => {
    emu.faults.set({ failRate: 1 });
    emu.faults.failNext({ path: V2, status: 500 });
    emu.faults.clear();
    expect((await emu.call('GET', '/streaming/players')).status).toBe(200);
    expect(emu.faults.pending()).toEqual({ failNext: [], dropNext: [] });
  });

  it('fixture faults are loaded, and reset() brings them back', async () => {
    const withFaults = await startTestEmulator({ fixtures: { faults: { fail_next: [{ path: '/streaming/players', status: 503 }] } } });
    try {
      expect((await withFaults.call('GET', '/streaming/players')).status).toBe(503);
      expect((await withFaults.call('GET', '/streaming/players')).status).toBe(200);
      withFaults.reset();
      expect((await withFaults.call('GET', '/streaming/players')).status).toBe(503);
    } finally {
      await withFaults.close();
    }
  });

  it('rejects invalid rates', async () => {
    expect(() => emu.faults.set({ failRate: 1.5 })).toThrow(RangeError);
    expect(() => emu.faults.set({ taskFailRate: 2 })).toThrow(RangeError);
    await expect(startTestEmulator({ dropAfterRate: -0.1 })).rejects.toThrow('dropAfterRate must be between 0 and 1');
  });
});
