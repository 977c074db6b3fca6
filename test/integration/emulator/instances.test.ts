import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const ONE = `/cloud/v1/instances/1/76/${DEMO.instance}`;

describe('emulator instances', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 2000, readLagMs: 500 });

  it('GET answers the flavor at flavor.flavor_id, status and a null task_id', async () => {
    const res = await emu.call('GET', ONE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: DEMO.instance, name: 'web-1', status: 'ACTIVE', task_id: null, flavor: { flavor_id: 'g2-standard-2-4', vcpus: 2, ram: 4096 } });
    expect(res.body).not.toHaveProperty('flavor_id');
  });

  it('GET answers 404 NotFoundError for an unknown instance', async () => {
    const res = await emu.call('GET', '/cloud/v1/instances/1/76/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.exception_class).toBe('NotFoundError');
  });

  it('GET answers 400 for a non-integer project id', async () => {
    expect((await emu.call('GET', `/cloud/v1/instances/one/76/${DEMO.instance}`)).status).toBe(400);
  });

  it('lists the available flavors as {count, results}', async () => {
    const res = await emu.call('GET', `${ONE}/available_flavors`);
    expect(res.body.count).toBe(3);
    expect(res.body.results.map((f: { flavor_id: string }) => f.flavor_id)).toEqual(['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16']);
  });

  it('changeflavor answers a resize_vm task, shows RESIZE with task_id while it runs', async () => {
    const res = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks;
    const during = await emu.call('GET', ONE);
    expect(during.body).toMatchObject({ status: 'RESIZE', task_id: taskId });
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body.task_type).toBe('resize_vm');
  });

  it('the flavor changes once the task FINISHED (after the read lag)', async () => {
    await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    emu.clock.advance(2500);
    const after = await emu.call('GET', ONE);
    expect(after.body).toMatchObject({ status: 'ACTIVE', task_id: null, flavor: { flavor_id: 'g2-standard-4-8' } });
  });

  it('GET still shows the old flavor for readLagMs after the resize task finished', async () => {
    const res = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    emu.clock.advance(2000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body.state).toBe('FINISHED');
    expect((await emu.call('GET', ONE)).body.flavor.flavor_id).toBe('g2-standard-2-4');
    emu.clock.advance(499);
    expect((await emu.call('GET', ONE)).body.flavor.flavor_id).toBe('g2-standard-2-4');
    emu.clock.advance(1);
    expect((await emu.call('GET', ONE)).body.flavor.flavor_id).toBe('g2-standard-4-8');
    expect(emu.state.instances.get(DEMO.instance)?.flavor_id).toBe('g2-standard-4-8');
  });

  it('changeflavor answers 400 for a flavor not available to the instance', async () => {
    const res = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g9-huge-64-256' } });
    expect(res.status).toBe(400);
    expect(res.body.exception_class).toBe('ValidationError');
    expect(emu.state.tasks.size).toBe(0);
  });

  it('changeflavor answers 400 without flavor_id', async () => {
    expect((await emu.call('POST', `${ONE}/changeflavor`, { body: {} })).status).toBe(400);
  });

  it('changeflavor answers 400 when flavor_id is not a string', async () => {
    expect((await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 7 } })).status).toBe(400);
  });

  it('changeflavor answers 409 while a resize runs', async () => {
    await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    const second = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-8-16' } });
    expect(second.status).toBe(409);
    expect(second.body.exception_class).toBe('ConflictError');
  });

  it('a fixture next_task_error makes the task end in ERROR, the instance unchanged and unlocked', async () => {
    const failing = await startTestEmulator({
      taskDurationMs: 1000,
      fixtures: {
        instances: [{ id: DEMO.instance, name: 'web-1', flavor_id: 'g2-standard-2-4', available_flavors: ['g2-standard-4-8'], next_task_error: 'Quota limit for vcpu exceeded' }],
      },
    });
    try {
      const res = await failing.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
      failing.clock.advance(1000);
      const task = await failing.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
      expect(task.body).toMatchObject({ state: 'ERROR', error: 'Quota limit for vcpu exceeded' });
      const vm = await failing.call('GET', ONE);
      expect(vm.body).toMatchObject({ status: 'ACTIVE', task_id: null, flavor: { flavor_id: 'g2-standard-2-4' } });
    } finally {
      await failing.close();
    }
  });

  it('next_task_error applies to one task only', async () => {
    emu.state.setNextTaskError('instance', DEMO.instance, 'boom');
    const first = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    emu.clock.advance(2000);
    const second = await emu.call('POST', `${ONE}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    emu.clock.advance(2000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${first.body.tasks[0]}`)).body.state).toBe('ERROR');
    expect((await emu.call('GET', `/cloud/v1/tasks/${second.body.tasks[0]}`)).body.state).toBe('FINISHED');
  });
});

describe('emulator instance list', () => {
  const ids = ['11111111-0000-4000-8000-000000000001', '11111111-0000-4000-8000-000000000002', '11111111-0000-4000-8000-000000000003'] as const;
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      fixtures: {
        instances: [
          { id: ids[0], name: 'web-1', flavor_id: 'g2-standard-2-4', created_at: '2026-01-01T00:00:00Z', tags: { env: 'prod' } },
          { id: ids[1], name: 'web-2', status: 'SHUTOFF', flavor_id: 'g2-standard-4-8', created_at: '2026-01-02T00:00:00Z', tags: { env: 'staging' } },
          { id: ids[2], name: 'db-1', flavor_id: 'g1-standard-2-4', created_at: '2026-01-03T00:00:00Z', addresses: { net: [{ addr: '10.0.0.7', type: 'fixed' }] } },
          { id: '11111111-0000-4000-8000-000000000009', project_id: 2, name: 'elsewhere', flavor_id: 'g2-standard-2-4' },
        ],
      },
    });
  });
  afterAll(() => emu.close());
  const list = async (query = '') => (await emu.call('GET', `/cloud/v1/instances/1/76${query}`)).body;
  const names = (body: { results: Array<{ name: string }> }) => body.results.map((vm) => vm.name);

  it('lists the instances of the project and region as {count, results}, newest first', async () => {
    const body = await list();
    expect(body.count).toBe(3);
    expect(names(body)).toEqual(['db-1', 'web-2', 'web-1']);
    expect(body.results[0]).toMatchObject({ id: ids[2], task_id: null, flavor: { flavor_id: 'g1-standard-2-4' } });
  });

  it('pages with limit and offset, the count staying the whole list', async () => {
    const first = await list('?limit=2');
    const second = await list('?limit=2&offset=2');
    expect([first.count, second.count]).toEqual([3, 3]);
    expect([...names(first), ...names(second)]).toEqual(['db-1', 'web-2', 'web-1']);
  });

  it('orders by order_by', async () => {
    expect(names(await list('?order_by=name.asc'))).toEqual(['db-1', 'web-1', 'web-2']);
    expect(names(await list('?order_by=created.asc'))).toEqual(['web-1', 'web-2', 'db-1']);
  });

  it('filters by name, flavor, status, uuid, ip and tags', async () => {
    expect(names(await list('?name=WEB'))).toEqual(['web-2', 'web-1']);
    expect(names(await list('?flavor_id=g2-standard-4-8'))).toEqual(['web-2']);
    expect(names(await list('?flavor_prefix=g2-'))).toEqual(['web-2', 'web-1']);
    expect(names(await list('?exclude_flavor_prefix=g2-'))).toEqual(['db-1']);
    expect(names(await list('?status=SHUTOFF'))).toEqual(['web-2']);
    expect(names(await list(`?uuid=${ids[0].slice(-6)}`))).toEqual(['web-1']);
    expect(names(await list('?ip=10.0.0'))).toEqual(['db-1']);
    expect(names(await list(`?tag_key_value=${encodeURIComponent('{"env":"prod"}')}`))).toEqual(['web-1']);
    expect(names(await list('?tag_value=staging'))).toEqual(['web-2']);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['offset=-1', 'offset'],
    ['status=DELETED', 'status'],
    ['order_by=id.asc', 'order_by'],
    ['include_k8s=maybe', 'include_k8s'],
    ['changes-since=yesterday', 'changes-since'],
    ['tag_key_value=env', 'tag_key_value'],
  ])('answers 400 ValidationError for %s', async (query, field) => {
    const res = await emu.call('GET', `/cloud/v1/instances/1/76?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ exception_class: 'ValidationError' });
    expect(res.body.message).toContain(field);
  });
});
