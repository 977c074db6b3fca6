/**
 * Contract tests of the instance create (v2) and delete, and of the region's flavor list, against
 * the vendor OpenAPI (test/fixtures/openapi/cloud_api.yaml): answers match the operation's
 * response schema, requests the vendor schema rejects are rejected (400), those it accepts are served.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { makeCloudChain, type CloudChain } from '../../helpers/cloud-chain.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectValid, queryChecker, requestValidator, responseValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const CREATE = '/cloud/v2/instances/{project_id}/{region_id}';
const ONE = '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}';
const LIST = '/cloud/v1/instances/{project_id}/{region_id}';
const TASK = '/cloud/v1/tasks/{task_id}';
const FLAVORS = '/cloud/v1/flavors/{project_id}/{region_id}';
const IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';
/** Ids of the chain's network, subnet, security group and volume while the tables are built (each test makes the chain again: the same ids). */
let chain: CloudChain = { network: '', subnet: '', group: '', volume: '', key: 'demo-key' };
const NETWORK = () => chain.network;
const SUBNET = () => chain.subnet;

const full = () => ({
  name: 'web-2',
  flavor: 'g2-standard-2-4',
  volumes: [
    { source: 'image', image_id: IMAGE, size: 20, boot_index: 0, delete_on_termination: true, type_name: 'ssd_hiiops', name: 'web-boot' },
    { source: 'new-volume', size: 5 },
  ],
  interfaces: [{ type: 'subnet', network_id: NETWORK(), subnet_id: SUBNET(), floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } }, { type: 'external' }],
  security_groups: [{ id: chain.group }],
  ssh_key_name: 'demo-key',
  user_data: Buffer.from('#cloud-config\n').toString('base64'),
  tags: { 'edgeform-stack': 'web', 'edgeform-address': 'cloud_instance.vm' },
});

describe('instance create and delete: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });
  beforeEach(async () => {
    chain = await makeCloudChain(emu);
  });

  it('POST create answers TaskIDsSerializer; the instance matches InstanceSerializer while building and after; the task matches TaskSerializer', async () => {
    expectValid(requestValidator(CLOUD, 'POST', CREATE), full());
    const res = await emu.call('POST', '/cloud/v2/instances/1/76', { body: full() });
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'POST', CREATE, 200), res.body);
    const id = [...emu.state.instances.values()].find((vm) => vm.creator_task_id === res.body.tasks[0])!.id;
    expectValid(responseValidator(CLOUD, 'GET', ONE, 200), (await emu.call('GET', `/cloud/v1/instances/1/76/${id}`)).body);
    emu.clock.advance(1000);
    expectValid(responseValidator(CLOUD, 'GET', ONE, 200), (await emu.call('GET', `/cloud/v1/instances/1/76/${id}`)).body);
    expectValid(responseValidator(CLOUD, 'GET', LIST, 200), (await emu.call('GET', '/cloud/v1/instances/1/76')).body);
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expectValid(responseValidator(CLOUD, 'GET', TASK, 200), task.body);
  });

  it('DELETE answers TaskIDsSerializer, its query options are the vendor parameters', async () => {
    const query = new URLSearchParams({ delete_floatings: 'false', volumes: '3b1f6a2e-9c4d-4e8f-a1b2-c3d4e5f60718' });
    expect(queryChecker(CLOUD, 'DELETE', ONE)(query)).toEqual([]);
    const res = await emu.call('DELETE', `/cloud/v1/instances/1/76/${DEMO.instance}?${query}`);
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'DELETE', ONE, 200), res.body);
  });

  it('the region flavor list matches InstanceFlavorExtendedV1CollectionSerializer, with and without prices', async () => {
    for (const query of ['', '?include_prices=true&disabled=true']) {
      const res = await emu.call('GET', `/cloud/v1/flavors/1/76${query}`);
      expect(res.status).toBe(200);
      expectValid(responseValidator(CLOUD, 'GET', FLAVORS, 200), res.body);
    }
  });

  const rejected: Array<{ name: string; body: () => Record<string, unknown> }> = [
    { name: 'no flavor', body: () => ({ ...full(), flavor: undefined }) },
    { name: 'no volumes', body: () => ({ ...full(), volumes: undefined }) },
    { name: 'an empty interface list', body: () => ({ ...full(), interfaces: [] }) },
    { name: 'an image volume with a non-UUID image', body: () => ({ ...full(), volumes: [{ source: 'image', image_id: 'ubuntu' }] }) },
    { name: 'a new volume without size', body: () => ({ ...full(), volumes: [{ source: 'new-volume' }] }) },
    { name: 'a volume of size 0', body: () => ({ ...full(), volumes: [{ source: 'new-volume', size: 0 }] }) },
    { name: 'an existing volume without volume_id', body: () => ({ ...full(), volumes: [{ source: 'existing-volume' }] }) },
    { name: 'an any_subnet interface without network_id', body: () => ({ ...full(), interfaces: [{ type: 'any_subnet' }] }) },
    {
      name: 'a floating IP of an unknown source',
      body: () => ({ ...full(), interfaces: [{ type: 'subnet', network_id: NETWORK(), subnet_id: SUBNET(), floating_ip: { source: 'reserved' } }] }),
    },
    { name: 'security groups by name', body: () => ({ ...full(), security_groups: [{ name: 'web' }] }) },
    { name: 'a name with a leading dash', body: () => ({ ...full(), name: '-web' }) },
    { name: 'a null tag value', body: () => ({ ...full(), tags: { env: null } }) },
  ];

  it.each(rejected)('rejects a create the vendor schema rejects: $name', async ({ body }) => {
    const sent = JSON.parse(JSON.stringify(body())) as unknown;
    expect(requestValidator(CLOUD, 'POST', CREATE)(sent)).toBe(false);
    expect((await emu.call('POST', '/cloud/v2/instances/1/76', { body: sent })).status).toBe(400);
  });

  const accepted: Array<{ name: string; body: () => Record<string, unknown> }> = [
    {
      name: 'the smallest create (flavor, an external interface, an image volume)',
      body: () => ({ flavor: 'g2-standard-2-4', interfaces: [{ type: 'external' }], volumes: [{ source: 'image', image_id: IMAGE }] }),
    },
    {
      name: 'an existing volume on an any_subnet interface with a new floating IP',
      body: () => ({
        flavor: 'g2-standard-4-8',
        interfaces: [{ type: 'any_subnet', network_id: NETWORK(), floating_ip: { source: 'new' } }],
        volumes: [{ source: 'existing-volume', volume_id: chain.volume }],
      }),
    },
    { name: 'every field edgeform sends', body: full },
  ];

  it.each(accepted)('accepts a create the vendor schema accepts: $name', async ({ body }) => {
    expectValid(requestValidator(CLOUD, 'POST', CREATE), body());
    const res = await emu.call('POST', '/cloud/v2/instances/1/76', { body: body() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
