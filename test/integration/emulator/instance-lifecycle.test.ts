import { beforeEach, describe, expect, it } from 'vitest';
import { makeCloudChain, type CloudChain } from '../../helpers/cloud-chain.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const CREATE = '/cloud/v2/instances/1/76';
const LIST = '/cloud/v1/instances/1/76';
const IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';

let chain: CloudChain;
const body = (extra: Record<string, unknown> = {}) => ({
  name: 'web-2',
  flavor: 'g2-standard-2-4',
  volumes: [{ source: 'image', image_id: IMAGE, size: 20, boot_index: 0, delete_on_termination: true }],
  interfaces: [{ type: 'subnet', network_id: chain.network, subnet_id: chain.subnet, floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } }],
  security_groups: [{ id: chain.group }],
  ssh_key_name: 'demo-key',
  user_data: Buffer.from('#cloud-config\n').toString('base64'),
  tags: { 'edgeform-stack': 'web', 'edgeform-address': 'cloud_instance.vm' },
  ...extra,
});

describe('emulator instance create and delete', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });
  beforeEach(async () => {
    chain = await makeCloudChain(emu);
  });

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
    expect(vm.security_groups).toEqual([{ name: 'web' }]);
    expect(vm.addresses.net).toEqual([
      { addr: '10.0.0.2', type: 'fixed', interface_name: null, subnet_id: chain.subnet, subnet_name: 'subnet' },
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
    ['a subnet interface without subnet_id', { interfaces: [{ type: 'subnet', network_id: '0a1b2c3d-0000-4000-8000-000000000001' }] }, 'interfaces.0.subnet_id: Field required'],
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
      interfaces: [
        { type: 'subnet', network_id: chain.network, subnet_id: chain.subnet, floating_ip: { source: 'existing', existing_floating_id: '00000000-0000-4000-8000-000000000000' } },
      ],
    });
    expect((await emu.call('POST', CREATE, { body: unknown })).status).toBe(404);
  });

  it('refuses what names a network, subnet, volume, security group or key pair the place does not hold (404), or a subnet of another network (400)', async () => {
    const unknown = '00000000-0000-4000-8000-0000000000ff';
    const refused = async (extra: Record<string, unknown>) => {
      const res = await emu.call('POST', CREATE, { body: body(extra) });
      return `${res.status} ${String(res.body.message)}`;
    };
    expect(await refused({ interfaces: [{ type: 'subnet', network_id: unknown, subnet_id: chain.subnet }] })).toBe(`404 Network ${unknown} not found`);
    expect(await refused({ interfaces: [{ type: 'subnet', network_id: chain.network, subnet_id: unknown }] })).toBe(`404 Subnet ${unknown} not found`);
    expect(await refused({ interfaces: [{ type: 'any_subnet', network_id: unknown }] })).toBe(`404 Network ${unknown} not found`);
    expect(await refused({ volumes: [{ source: 'existing-volume', volume_id: unknown }] })).toBe(`404 Volume ${unknown} not found`);
    expect(await refused({ security_groups: [{ id: unknown }] })).toBe(`404 Security group ${unknown} not found`);
    expect(await refused({ ssh_key_name: 'nobody' })).toBe('404 SSH key nobody not found');
    const other = (await emu.call('POST', '/cloud/v1/networks/1/76', { body: { name: 'other' } })).body.tasks[0];
    emu.clock.advance(1000);
    const otherId = emu.state.tasks.get(other)!.created_resources!.networks![0];
    expect(await refused({ interfaces: [{ type: 'subnet', network_id: otherId, subnet_id: chain.subnet }] })).toContain(
      `400 interfaces.0.subnet_id: subnet ${chain.subnet} is not in network ${otherId}`,
    );
    expect(emu.state.instances.size).toBe(1);
  });

  it('attaches an existing volume and makes the image volume in the volume service; while the instance holds them, their deletes, the security group and the subnet are refused naming it', async () => {
    const { id } = await create({
      volumes: [
        { source: 'image', image_id: IMAGE, size: 20, delete_on_termination: true },
        { source: 'existing-volume', volume_id: chain.volume },
      ],
    });
    emu.clock.advance(1000);
    const vm = emu.state.instances.get(id)!;
    const boot = vm.volumes[0]!.id;
    expect(emu.state.volumes.get(boot)).toMatchObject({ bootable: true, size: 20, volume_image_metadata: { image_id: IMAGE } });
    const volume = await emu.call('GET', `/cloud/v1/volumes/1/76/${chain.volume}`);
    expect(volume.body).toMatchObject({ status: 'in-use', attachments: [expect.objectContaining({ server_id: id })] });
    const named = `web-2 (${id})`;
    const refusal = async (path: string) => {
      const res = await emu.call('DELETE', path);
      return `${res.status} ${String(res.body.message)}`;
    };
    expect(await refusal(`/cloud/v1/volumes/1/76/${chain.volume}`)).toContain(`409 Volume ${chain.volume} is attached to instance ${named}`);
    expect(await refusal(`/cloud/v1/securitygroups/1/76/${chain.group}`)).toContain(`409 Security group ${chain.group} is in use by instance ${named}`);
    expect(await refusal(`/cloud/v1/subnets/1/76/${chain.subnet}`)).toContain(`409 Subnet ${chain.subnet} is in use by instance ${named}`);
    expect((await emu.call('POST', CREATE, { body: body({ interfaces: [{ type: 'external' }], volumes: [{ source: 'existing-volume', volume_id: chain.volume }] }) })).status).toBe(
      409,
    );

    await emu.call('DELETE', `${LIST}/${id}`);
    emu.clock.advance(1000);
    expect(emu.state.volumes.has(boot)).toBe(false);
    expect((await emu.call('DELETE', `/cloud/v1/volumes/1/76/${chain.volume}`)).status).toBe(200);
    expect((await emu.call('DELETE', `/cloud/v1/securitygroups/1/76/${chain.group}`)).status).toBe(204);
    expect((await emu.call('DELETE', `/cloud/v1/subnets/1/76/${chain.subnet}`)).status).toBe(200);
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
