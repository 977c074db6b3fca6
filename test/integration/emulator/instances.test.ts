import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const ONE = `/cloud/v1/instances/1/76/${DEMO.instance}`;

describe('emulator instances', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 2000, readLagMs: 500 });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

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
