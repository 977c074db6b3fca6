import { describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

describe('emulator control routes', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { control: true, taskDurationMs: 1000 });

  it('are off by default (404)', async () => {
    const plain = await startTestEmulator();
    try {
      expect((await plain.call('GET', '/__emulator/state', { auth: null })).status).toBe(404);
      expect((await plain.call('POST', '/__emulator/reset', { auth: null })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('GET /__emulator/state dumps the state without auth', async () => {
    const res = await emu.call('GET', '/__emulator/state', { auth: null });
    expect(res.status).toBe(200);
    expect(res.body.floating_ips).toHaveLength(2);
    expect(res.body.ai_tasks).toHaveLength(15);
  });

  it('POST /__emulator/clock/advance moves the clock and settles tasks', async () => {
    await emu.call('POST', `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    const res = await emu.call('POST', '/__emulator/clock/advance', { body: { ms: 1000 }, auth: null });
    expect(res.body.now).toBe('2026-01-01T00:00:01.000Z');
    expect(emu.state.instances.get(DEMO.instance)?.flavor_id).toBe('g2-standard-4-8');
  });

  it('POST /__emulator/clock/advance rejects a negative ms with 400', async () => {
    expect((await emu.call('POST', '/__emulator/clock/advance', { body: { ms: -1 } })).status).toBe(400);
  });

  it('POST /__emulator/reset goes back to the fixtures', async () => {
    await emu.call('DELETE', '/streaming/players/55');
    await emu.call('POST', '/__emulator/reset');
    expect(emu.state.players.has(55)).toBe(true);
  });

  it('POST /__emulator/faults sets failNext', async () => {
    const res = await emu.call('POST', '/__emulator/faults', { body: { failNext: { path: '/streaming/players', status: 503 } } });
    expect(res.body.failNext).toHaveLength(1);
    expect((await emu.call('GET', '/streaming/players')).status).toBe(503);
  });

  it('POST /__emulator/faults sets dropNext and rates, and clear removes them', async () => {
    await emu.call('POST', '/__emulator/faults', { body: { set: { rateLimitRate: 1 }, dropNext: { path: '/streaming/players', when: 'before' } } });
    expect((await emu.call('GET', '/fastedge/v1/apps')).status).toBe(429);
    await emu.call('POST', '/__emulator/faults', { body: { clear: true } });
    expect((await emu.call('GET', '/streaming/players')).status).toBe(200);
  });

  it('POST /__emulator/faults answers 400 for a bad rule', async () => {
    expect((await emu.call('POST', '/__emulator/faults', { body: { set: { failRate: 7 } } })).status).toBe(400);
  });

  it('control routes are not subject to faults', async () => {
    emu.faults.set({ failRate: 1 });
    expect((await emu.call('GET', '/__emulator/state')).status).toBe(200);
  });

  it('GET /__emulator/requests answers the log with counts per route', async () => {
    await emu.call('GET', '/streaming/players');
    await emu.call('GET', '/streaming/players');
    const res = await emu.call('GET', '/__emulator/requests');
    expect(res.body.counts['GET /streaming/players']).toBe(2);
    expect(res.body.requests[0]).toMatchObject({ method: 'GET', path: '/streaming/players', route: '/streaming/players', status: 200 });
    expect(emu.requests.countByRoute()['GET /streaming/players']).toBe(2);
  });

  it('POST /__emulator/next-task-error makes the next task fail', async () => {
    await emu.call('POST', '/__emulator/next-task-error', { body: { kind: 'k8s_cluster', id: 'prod-eu', message: 'no capacity' } });
    const res = await emu.call('POST', '/cloud/v2/k8s/clusters/1/76/prod-eu/upgrade', { body: { version: 'v1.30.6' } });
    emu.clock.advance(1000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body).toMatchObject({ state: 'ERROR', error: 'no capacity' });
    expect((await emu.call('GET', '/cloud/v2/k8s/clusters/1/76/prod-eu')).body).toMatchObject({ version: 'v1.29.8', status: 'Provisioned', task_id: null });
  });
});
