import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

describe('emulator FastEdge apps', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started));

  it('lists apps as {apps, count}', async () => {
    const res = await emu.call('GET', '/fastedge/v1/apps');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.apps.map((a: { id: number }) => a.id)).toEqual([1234, 1300]);
  });

  it('pages the list with limit and offset', async () => {
    const res = await emu.call('GET', '/fastedge/v1/apps?limit=1&offset=1');
    expect(res.body).toMatchObject({ count: 2, apps: [{ id: 1300, name: 'edge-router' }] });
  });

  it('answers 400 {error} for limit=0', async () => {
    const res = await emu.call('GET', '/fastedge/v1/apps?limit=0');
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });

  it('GET one answers the app', async () => {
    const res = await emu.call('GET', '/fastedge/v1/apps/1234');
    expect(res.body).toMatchObject({ id: 1234, name: 'legacy-app', status: 1 });
  });

  it('DELETE answers 204 with no body and the app is gone', async () => {
    const res = await emu.call('DELETE', '/fastedge/v1/apps/1234');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(emu.state.fastedgeApps.has(1234)).toBe(false);
    expect((await emu.call('GET', '/fastedge/v1/apps/1234')).status).toBe(404);
  });

  it('DELETE of an unknown app answers 404 with no body', async () => {
    const res = await emu.call('DELETE', '/fastedge/v1/apps/999');
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
  });

  it('DELETE with a malformed id answers 400 JSON {error}', async () => {
    const res = await emu.call('DELETE', '/fastedge/v1/apps/abc');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body)).toEqual(['error']);
  });

  it('a 503 answer is a text/plain string', async () => {
    emu.faults.failNext({ method: 'DELETE', path: '/fastedge/v1/apps/{app_id}', status: 503 });
    const res = await emu.call('DELETE', '/fastedge/v1/apps/1234');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text.length).toBeGreaterThan(0);
    expect(emu.state.fastedgeApps.has(1234)).toBe(true);
  });
});
