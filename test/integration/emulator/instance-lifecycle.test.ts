import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const CREATE = '/cloud/v2/instances/1/76';
const LIST = '/cloud/v1/instances/1/76';
const NETWORK = '0a1b2c3d-0000-4000-8000-000000000001';
const SUBNET = '0a1b2c3d-0000-4000-8000-000000000002';
const IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';

const body = (extra: Record<string, unknown> = {}) => ({
  name: 'web-2',
  flavor: 'g2-standard-2-4',
  volumes: [{ source: 'image', image_id: IMAGE, size: 20, boot_index: 0, delete_on_termination: true }],
  interfaces: [{ type: 'subnet', network_id: NETWORK, subnet_id: SUBNET, floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } }],
  ssh_key_name: 'demo-key',
  user_data: Buffer.from('#cloud-config\n').toString('base64'),
  tags: { 'edgeform-stack': 'web', 'edgeform-address': 'cloud_instance.vm' },
  ...extra,
});

describe('emulator instance create and delete', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 1000 });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  async function create(extra: Record<string, unknown> = {}): Promise<{ id: string; taskId: string }> {
    const res = await emu.call('POST', CREATE, { body: body(extra) });
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks as string[];
    const vm = [...emu.state.instances.values()].find((x) => x.creator_task_id === taskId)!;
    return { id: vm.id, taskId: taskId! };
  }

  it('creates the instance BUILD and locked by create_vm, ACTIVE with its addresses, volumes, tags and floating IP once the task finished', async () => {
    const { id, taskId } = await create();
    const building = (await emu.call('GET', `${LIST}/${id}`)).body;
    expect(building).toMatchObject({ id, name: 'web-2', status: 'BUILD', task_id: taskId, flavor: { flavor_id: 'g2-standard-2-4' }, ssh_key_name: 'demo-key' });
    emu.clock.advance(1000);
    const vm = (await emu.call('GET', `${LIST}/${id}`)).body;
    expect(vm).toMatchObject({
      status: 'ACTIVE',
      task_id: null,
      tags: [
        { key: 'edgeform-stack', value: 'web', read_only: false },
        { key: 'edgeform-address', value: 'cloud_instance.vm', read_only: false },
      ],
    });
    expect(vm.volumes).toEqual([{ id: expect.any(String), delete_on_termination: true }]);
    expect(vm.addresses[NETWORK]).toEqual([
      { addr: '10.0.0.2', type: 'fixed', interface_name: null, subnet_id: SUBNET, subnet_name: SUBNET },
      { addr: emu.state.floatingIps.get(DEMO.fipDown)!.floating_ip_address, type: 'floating' },
    ]);
    expect(emu.state.floatingIps.get(DEMO.fipDown)).toMatchObject({ instance_id: id, fixed_ip_address: '10.0.0.2', status: 'ACTIVE' });
    const task = (await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body;
    expect(task).toMatchObject({ state: 'FINISHED', task_type: 'create_vm', created_resources: { instances: [id], volumes: vm.volumes.map((v: { id: string }) => v.id) } });
    const listed = (await emu.call('GET', `${LIST}?tag_key_value=${encodeURIComponent(JSON.stringify({ 'edgeform-stack': 'web' }))}`)).body;
    expect(listed.results.map((x: { id: string }) => x.id)).toEqual([id]);
  });

  it('a failed create task removes the instance and leaves the floating IP free', async () => {
    emu.faults.set({ taskFailRate: 1 });
    const res = await emu.call('POST', CREATE, { body: body() });
    const [taskId] = res.body.tasks as string[];
    const vm = [...emu.state.instances.values()].find((x) => x.creator_task_id === taskId)!;
    emu.clock.advance(1000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body.state).toBe('ERROR');
    expect((await emu.call('GET', `${LIST}/${vm.id}`)).status).toBe(404);
    expect(emu.state.floatingIps.get(DEMO.fipDown)).toMatchObject({ instance_id: null, port_id: null });
  });

  it.each([
    ['no flavor', { flavor: undefined }, 'flavor: Field required'],
    ['a flavor the region does not offer', { flavor: 'g9-huge-64-256' }, 'flavor: Flavor g9-huge-64-256 is not available in region 76'],
    ['no volumes', { volumes: [] }, 'volumes: List should have at least 1 item'],
    ['an image volume without image_id', { volumes: [{ source: 'image' }] }, 'volumes.0.image_id: Field required'],
    ['a subnet interface without subnet_id', { interfaces: [{ type: 'subnet', network_id: NETWORK }] }, 'interfaces.0.subnet_id: Field required'],
    ['a bad interface type', { interfaces: [{ type: 'wifi' }] }, "interfaces.0: Input tag 'wifi'"],
    ['user_data not base64', { user_data: '#cloud-config' }, 'user_data: must be a string in base64 format'],
    ['a security group without id', { security_groups: [{ name: 'web' }] }, 'security_groups.0.id: Field required'],
    ['a bad name', { name: '-x' }, 'name: String should match pattern'],
  ])('refuses a create with %s (400, nothing made)', async (_name, extra, message) => {
    const before = emu.state.instances.size;
    const res = await emu.call('POST', CREATE, { body: body(extra) });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    expect(emu.state.instances.size).toBe(before);
  });

  it('refuses a floating IP that is already assigned (409) or unknown (404)', async () => {
    await create();
    emu.clock.advance(1000);
    expect((await emu.call('POST', CREATE, { body: body() })).status).toBe(409);
    const unknown = body({
      interfaces: [{ type: 'subnet', network_id: NETWORK, subnet_id: SUBNET, floating_ip: { source: 'existing', existing_floating_id: '00000000-0000-4000-8000-000000000000' } }],
    });
    expect((await emu.call('POST', CREATE, { body: unknown })).status).toBe(404);
  });

  it('serves the region flavors, with disabled ones only when asked', async () => {
    const res = await emu.call('GET', '/cloud/v1/flavors/1/76');
    expect(res.status).toBe(200);
    expect(res.body.results.map((f: { flavor_id: string }) => f.flavor_id)).toContain('g2-standard-2-4');
  });

  it('DELETE answers delete_vm; the instance goes, its floating IP stays disassociated, delete_on_termination volumes go with it', async () => {
    const { id } = await create();
    emu.clock.advance(1000);
    const res = await emu.call('DELETE', `${LIST}/${id}`);
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks as string[];
    emu.clock.advance(1000);
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body).toMatchObject({ state: 'FINISHED', task_type: 'delete_vm' });
    expect((await emu.call('GET', `${LIST}/${id}`)).status).toBe(404);
    expect(emu.state.floatingIps.get(DEMO.fipDown)).toMatchObject({ instance_id: null, port_id: null, fixed_ip_address: null, status: 'DOWN' });
  });

  it('DELETE with delete_floatings deletes the floating IPs too; with floatings as well it is refused', async () => {
    const { id } = await create();
    emu.clock.advance(1000);
    expect((await emu.call('DELETE', `${LIST}/${id}?delete_floatings=true&floatings=${DEMO.fipDown}`)).status).toBe(400);
    expect((await emu.call('DELETE', `${LIST}/${id}?volumes=00000000-0000-4000-8000-000000000000`)).status).toBe(400);
    await emu.call('DELETE', `${LIST}/${id}?delete_floatings=true`);
    emu.clock.advance(1000);
    expect(emu.state.floatingIps.has(DEMO.fipDown)).toBe(false);
  });

  it('DELETE is refused while a task holds the instance (409)', async () => {
    const { id } = await create();
    expect((await emu.call('DELETE', `${LIST}/${id}`)).status).toBe(409);
  });
});
