import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const V2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;

/** A small deterministic generator (mulberry32) for seeded fault tests. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('emulator faults', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 1000 });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

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
    const seededEmu = await startTestEmulator({ failRate: 0.3, random: seeded(42) });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await seededEmu.call('GET', '/fastedge/v1/apps')).status);
      const failed = statuses.filter((s) => s === 503).length;
      expect(failed).toBeGreaterThan(4);
      expect(failed).toBeLessThan(24);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    } finally {
      await seededEmu.close();
    }
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

  it('rejects invalid rates', () => {
    expect(() => emu.faults.set({ failRate: 1.5 })).toThrow(RangeError);
  });
});
