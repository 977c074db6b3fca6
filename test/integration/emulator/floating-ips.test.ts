import { describe, expect, it } from 'vitest';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const ONE = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
const V2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
const tagsOf = (fip: { tags: Array<{ key: string; value: string; read_only: boolean }> }): Record<string, string> => Object.fromEntries(fip.tags.map((t) => [t.key, t.value]));

describe('emulator floating IPs', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  it('GET one answers the FloatingIPSerializer fields with +0000 datetimes and no lock', async () => {
    const res = await emu.call('GET', ONE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: DEMO.fip, floating_ip_address: '203.0.113.10', status: 'ACTIVE', project_id: 1, region_id: 76, region: 'Luxembourg 1', task_id: null });
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    expect(res.body.tags).toContainEqual({ key: 'managed-by', value: 'platform', read_only: true });
  });

  it('GET one carries an X-Request-ID header', async () => {
    const res = await emu.call('GET', ONE);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 404 NotFoundError with a request_id matching X-Request-ID for an unknown id', async () => {
    const res = await emu.call('GET', '/cloud/v1/floatingips/1/76/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.exception_class).toBe('NotFoundError');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 404 for a floating IP of another project', async () => {
    expect((await emu.call('GET', `/cloud/v1/floatingips/2/76/${DEMO.fip}`)).status).toBe(404);
  });

  it('lists with {count, results} and the detailed fields instance and loadbalancer', async () => {
    const res = await emu.call('GET', '/cloud/v1/floatingips/1/76');
    expect(res.body.count).toBe(2);
    expect(res.body.results[0].instance.id).toBe(DEMO.instance);
    expect(res.body.results[0].loadbalancer).toBeNull();
    expect(res.body.results[1].instance).toBeNull();
  });

  it('pages the list with limit and offset', async () => {
    const res = await emu.call('GET', '/cloud/v1/floatingips/1/76?limit=1&offset=1');
    expect(res.body.count).toBe(2);
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual([DEMO.fipDown]);
  });

  it('rejects limit=0 with 400', async () => {
    expect((await emu.call('GET', '/cloud/v1/floatingips/1/76?limit=0')).status).toBe(400);
  });

  it('PATCH v2 answers a task and locks the floating IP until the task finishes', async () => {
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'prod', owner: null } } });
    expect(res.status).toBe(200);
    expect(res.body.tasks).toHaveLength(1);
    const [taskId] = res.body.tasks;
    const during = await emu.call('GET', ONE);
    expect(during.body.task_id).toBe(taskId);
    expect(tagsOf(during.body)).toMatchObject({ env: 'staging', owner: 'alice' });
    emu.clock.advance(1000);
    const after = await emu.call('GET', ONE);
    expect(after.body.task_id).toBeNull();
    expect(tagsOf(after.body)).toEqual({ env: 'prod', team: 'edge', 'managed-by': 'platform' });
  });

  it('PATCH v2 task has task_type update_floating_ip', async () => {
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'prod' } } });
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expect(task.body.task_type).toBe('update_floating_ip');
  });

  it('PATCH v2 answers {"tasks": []} when nothing would change', async () => {
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'staging', gone: null } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tasks: [] });
    expect(emu.state.floatingIps.get(DEMO.fip)?.task_id).toBeNull();
  });

  it('tags: null removes every user tag and keeps read-only tags', async () => {
    await emu.call('PATCH', V2, { body: { tags: null } });
    emu.clock.advance(1000);
    const after = await emu.call('GET', ONE);
    expect(after.body.tags).toEqual([{ key: 'managed-by', value: 'platform', read_only: true }]);
  });

  it('leaves unmentioned tags unchanged and allows delete and add in one patch', async () => {
    await emu.call('PATCH', V2, { body: { tags: { owner: null, tier: 'gold' } } });
    emu.clock.advance(1000);
    expect(tagsOf((await emu.call('GET', ONE)).body)).toEqual({ env: 'staging', team: 'edge', 'managed-by': 'platform', tier: 'gold' });
  });

  it('rejects a patch touching a read-only tag with 400 ValidationError, changing nothing', async () => {
    const res = await emu.call('PATCH', V2, { body: { tags: { 'managed-by': 'me' } } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ exception_class: 'ValidationError' });
    expect(res.body.message).toContain('managed-by');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(emu.state.tasks.size).toBe(0);
  });

  it('rejects removing a read-only tag with null', async () => {
    expect((await emu.call('PATCH', V2, { body: { tags: { 'managed-by': null } } })).status).toBe(400);
  });

  it.each([
    ['a key containing =', { 'a=b': 'x' }],
    ['a key containing a space', { 'a b': 'x' }],
    ['an empty value', { env: '' }],
    ['a value of 256 characters', { env: 'x'.repeat(256) }],
    ['a number value', { env: 5 }],
    ['a value with a newline', { env: 'a\nb' }],
  ])('rejects tags with %s (400)', async (_name, tags) => {
    expect((await emu.call('PATCH', V2, { body: { tags } })).status).toBe(400);
  });

  it('rejects tags that are not an object', async () => {
    expect((await emu.call('PATCH', V2, { body: { tags: ['env'] } })).status).toBe(400);
  });

  it('answers 409 ConflictError to a second change while locked', async () => {
    await emu.call('PATCH', V2, { body: { tags: { env: 'prod' } } });
    const second = await emu.call('PATCH', V2, { body: { tags: { env: 'dev' } } });
    expect(second.status).toBe(409);
    expect(second.body.exception_class).toBe('ConflictError');
  });

  it('PATCH v2 port_id null unassigns the floating IP (DOWN) when the task finishes', async () => {
    await emu.call('PATCH', V2, { body: { port_id: null } });
    emu.clock.advance(1000);
    const after = await emu.call('GET', ONE);
    expect(after.body).toMatchObject({ port_id: null, fixed_ip_address: null, status: 'DOWN' });
  });

  it('deprecated PATCH v1 applies the patch synchronously and answers the floating IP', async () => {
    const res = await emu.call('PATCH', ONE, { body: { tags: { env: 'prod', owner: null } } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(DEMO.fip);
    expect(tagsOf(res.body)).toEqual({ env: 'prod', team: 'edge', 'managed-by': 'platform' });
    expect(emu.state.tasks.size).toBe(0);
  });

  it('deprecated PATCH v1 carries Deprecation and a successor Link', async () => {
    const res = await emu.call('PATCH', ONE, { body: { tags: { env: 'prod' } } });
    expect(res.headers.get('deprecation')).toBe('true');
    expect(res.headers.get('link')).toBe(`</cloud/v2/floatingips/1/76/${DEMO.fip}>; rel="successor-version"`);
  });

  it('deprecated PATCH v1 rejects read-only tags too', async () => {
    expect((await emu.call('PATCH', ONE, { body: { tags: { 'managed-by': 'x' } } })).status).toBe(400);
  });

  it('a task set to fail leaves the tags unchanged and unlocks', async () => {
    emu.state.setNextTaskError('floating_ip', DEMO.fip, 'Neutron is down');
    const res = await emu.call('PATCH', V2, { body: { tags: { env: 'prod' } } });
    emu.clock.advance(1000);
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expect(task.body).toMatchObject({ state: 'ERROR', error: 'Neutron is down' });
    const after = await emu.call('GET', ONE);
    expect(after.body.task_id).toBeNull();
    expect(tagsOf(after.body).env).toBe('staging');
  });
});
