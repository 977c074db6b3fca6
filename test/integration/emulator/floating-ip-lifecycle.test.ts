import { describe, expect, it } from 'vitest';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const LIST = '/cloud/v1/floatingips/1/76';
const ONE = (id: string) => `/cloud/v1/floatingips/1/76/${id}`;
const tagsOf = (fip: { tags: Array<{ key: string; value: string }> }): Record<string, string> => Object.fromEntries(fip.tags.map((t) => [t.key, t.value]));

describe('emulator floating IPs: create, delete and the tag filter', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  async function create(body: unknown = { tags: { 'edgeform-stack': 'prod', env: 'dev' } }): Promise<{ taskId: string; id: string }> {
    const res = await emu.call('POST', LIST, { body });
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks as string[];
    const fip = [...emu.state.floatingIps.values()].find((f) => f.creator_task_id === taskId)!;
    return { taskId: taskId!, id: fip.id };
  }

  it('POST answers a create_fip task; the IP exists at once, tagged as asked, locked by that task until it finishes', async () => {
    const { taskId, id } = await create();
    const during = await emu.call('GET', ONE(id));
    expect(during.body).toMatchObject({ id, task_id: taskId, creator_task_id: taskId, status: 'DOWN', port_id: null });
    expect(tagsOf(during.body)).toEqual({ 'edgeform-stack': 'prod', env: 'dev' });
    expect(during.body.floating_ip_address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const task = await emu.call('GET', `/cloud/v1/tasks/${taskId}`);
    expect(task.body).toMatchObject({ task_type: 'create_fip', state: 'NEW', created_resources: null });
    emu.clock.advance(1000);
    expect((await emu.call('GET', ONE(id))).body.task_id).toBeNull();
  });

  it('the finished create task lists the new IP under created_resources.floatingips', async () => {
    const { taskId, id } = await create();
    emu.clock.advance(1000);
    const task = await emu.call('GET', `/cloud/v1/tasks/${taskId}`);
    expect(task.body).toMatchObject({ state: 'FINISHED', created_resources: { floatingips: [id] } });
  });

  it('gives each created IP its own id and address', async () => {
    const a = await create({});
    const b = await create({});
    expect(a.id).not.toBe(b.id);
    expect(emu.state.floatingIps.get(a.id)!.floating_ip_address).not.toBe(emu.state.floatingIps.get(b.id)!.floating_ip_address);
  });

  it('has addresses in its pool beyond the 489 of the documentation ranges (the benchmark creates 1,000)', async () => {
    // Every address of 203.0.113.20–254 and 198.51.100.1–254 taken: the next create still gets one.
    let n = 0;
    for (const [prefix, first] of [
      ['203.0.113.', 20],
      ['198.51.100.', 1],
    ] as const) {
      for (let host = first; host <= 254; host++) {
        const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
        emu.state.floatingIps.set(id, { ...[...emu.state.floatingIps.values()][0]!, id, floating_ip_address: `${prefix}${host}` });
      }
    }
    expect(n).toBe(489);
    const { id } = await create();
    expect(emu.state.floatingIps.get(id)!.floating_ip_address).toMatch(/^198\.1[89]\.\d+\.\d+$/);
  });

  it('never gives a created IP the id of one deleted before it', async () => {
    const first = await create({});
    emu.clock.advance(1000);
    await emu.call('DELETE', ONE(first.id));
    emu.clock.advance(1000);
    expect((await create({})).id).not.toBe(first.id);
  });

  it('a create task that fails leaves no floating IP behind', async () => {
    emu.faults.set({ taskFailRate: 1 });
    const { taskId, id } = await create();
    emu.clock.advance(1000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body).toMatchObject({ state: 'ERROR', created_resources: null });
    expect((await emu.call('GET', ONE(id))).status).toBe(404);
  });

  it.each([
    ['tags that are not a dictionary', { tags: ['env'] }],
    ['a tag value null (nothing to remove on a create)', { tags: { env: null } }],
    ['an empty tag value', { tags: { env: '' } }],
    ['a tag key with =', { tags: { 'a=b': 'x' } }],
    ['a port_id that is not a UUID', { port_id: 'port-1' }],
    ['fixed_ip_address without port_id', { fixed_ip_address: '10.0.0.9' }],
    ['a body that is not an object', ['x']],
  ])('rejects a create with %s (400 ValidationError), making nothing', async (_name, body) => {
    const before = emu.state.floatingIps.size;
    const res = await emu.call('POST', LIST, { body });
    expect(res.status).toBe(400);
    expect(res.body.exception_class).toBe('ValidationError');
    expect(emu.state.floatingIps.size).toBe(before);
    expect(emu.state.tasks.size).toBe(0);
  });

  it('DELETE answers a delete_fip task; the IP stays, locked, until the task finishes, then reads 404', async () => {
    const res = await emu.call('DELETE', ONE(DEMO.fipDown));
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks;
    expect((await emu.call('GET', ONE(DEMO.fipDown))).body.task_id).toBe(taskId);
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body.task_type).toBe('delete_fip');
    emu.clock.advance(1000);
    expect((await emu.call('GET', ONE(DEMO.fipDown))).status).toBe(404);
    expect((await emu.call('GET', LIST)).body.count).toBe(1);
  });

  it('DELETE of a locked IP answers 409, of an unknown one 404', async () => {
    await emu.call('DELETE', ONE(DEMO.fipDown));
    expect((await emu.call('DELETE', ONE(DEMO.fipDown))).status).toBe(409);
    expect((await emu.call('DELETE', ONE('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
  });

  it('the list filters by tag_key_value (every pair must match) and by tag_key', async () => {
    const a = await create({ tags: { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.a' } });
    await create({ tags: { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.b' } });
    await create({ tags: { 'edgeform-stack': 'staging', 'edgeform-address': 'cloud_floating_ip.a' } });
    const ids = async (query: string) => ((await emu.call('GET', `${LIST}?${query}`)).body.results as Array<{ id: string }>).map((r) => r.id);
    expect(await ids(`tag_key_value=${encodeURIComponent(JSON.stringify({ 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.a' }))}`)).toEqual([a.id]);
    expect(await ids(`tag_key_value=${encodeURIComponent(JSON.stringify({ 'edgeform-stack': 'prod' }))}`)).toHaveLength(2);
    expect(await ids('tag_key=edgeform-stack')).toHaveLength(3);
    expect((await emu.call('GET', `${LIST}?tag_key_value=nope`)).status).toBe(400);
  });
});
