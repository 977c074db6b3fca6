import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

describe('emulator quota limit requests', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  it('lists as {count, results}', async () => {
    const res = await emu.call('GET', '/cloud/v2/limits_request');
    expect(res.body.count).toBe(2);
    expect(res.body.results.map((r: { id: number }) => r.id)).toEqual([42, 43]);
  });

  it('filters by status (repeatable)', async () => {
    expect((await emu.call('GET', '/cloud/v2/limits_request?status=done')).body.results.map((r: { id: number }) => r.id)).toEqual([43]);
    expect((await emu.call('GET', '/cloud/v2/limits_request?status=done&status=in%20progress')).body.count).toBe(2);
  });

  it('answers 400 for an unknown status filter', async () => {
    expect((await emu.call('GET', '/cloud/v2/limits_request?status=open')).status).toBe(400);
  });

  it('pages with limit and offset', async () => {
    const res = await emu.call('GET', '/cloud/v2/limits_request?limit=1&offset=1');
    expect(res.body).toMatchObject({ count: 2, results: [{ id: 43 }] });
  });

  it('filters by request_ids (repeatable)', async () => {
    const res = await emu.call('GET', '/cloud/v2/limits_request?request_ids=43&request_ids=999');
    expect(res.body).toMatchObject({ count: 1, results: [{ id: 43 }] });
    expect((await emu.call('GET', '/cloud/v2/limits_request?request_ids=x')).status).toBe(400);
  });

  it('filters by created_from and created_to (inclusive)', async () => {
    const ids = async (query: string) => (await emu.call('GET', `/cloud/v2/limits_request?${query}`)).body.results.map((r: { id: number }) => r.id);
    expect(await ids('created_from=2025-12-10T08:00:00Z')).toEqual([42]);
    expect(await ids('created_to=2025-12-10T07:59:59Z')).toEqual([43]);
    expect((await emu.call('GET', '/cloud/v2/limits_request?created_from=soon')).status).toBe(400);
  });

  it('GET one answers the request with created_at without offset', async () => {
    const res = await emu.call('GET', '/cloud/v2/limits_request/42');
    expect(res.body).toMatchObject({ id: 42, status: 'in progress', client_id: 1, created_at: '2025-12-10T08:00:00', updated_at: null });
  });

  it('GET one answers 404 NotFoundError for an unknown id', async () => {
    const res = await emu.call('GET', '/cloud/v2/limits_request/999');
    expect(res.status).toBe(404);
    expect(res.body.exception_class).toBe('NotFoundError');
  });

  it('DELETE answers 204 and the request is gone', async () => {
    const res = await emu.call('DELETE', '/cloud/v2/limits_request/42');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await emu.call('GET', '/cloud/v2/limits_request/42')).status).toBe(404);
  });

  it('POST creates an "in progress" request and answers 201', async () => {
    const res = await emu.call('POST', '/cloud/v2/limits_request', {
      body: { description: 'more', requested_limits: { global_limits: { keypair_count_limit: 10 }, regional_limits: [{ region_id: 76, vm_count_limit: 5 }] } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 44, status: 'in progress', description: 'more' });
    expect(emu.state.quotaRequests.get(44)?.requested_limits.regional_limits).toEqual([{ region_id: 76, vm_count_limit: 5 }]);
  });

  it('POST answers 400 without a description', async () => {
    expect((await emu.call('POST', '/cloud/v2/limits_request', { body: { requested_limits: {} } })).status).toBe(400);
  });

  it('POST answers 400 for an unknown limit key', async () => {
    const res = await emu.call('POST', '/cloud/v2/limits_request', { body: { description: 'x', requested_limits: { global_limits: { cpu_count_limit: 1 } } } });
    expect(res.status).toBe(400);
    expect(res.body.exception_class).toBe('ValidationError');
  });
});
