/**
 * Contract tests of networks, subnets and SSH keys against the vendor OpenAPI
 * (test/fixtures/openapi/cloud_api.yaml): every operation's answer matches its response schema,
 * requests the vendor schema rejects are rejected (400), those it accepts are served.
 */
import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectDocumentedAnswer, expectValid, queryParameterValidator, requestValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const NETS = '/cloud/v1/networks/{project_id}/{region_id}';
const NET = `${NETS}/{network_id}`;
const SUBS = '/cloud/v1/subnets/{project_id}/{region_id}';
const SUB = `${SUBS}/{subnet_id}`;
const KEYS = '/cloud/v1/ssh_keys/{project_id}';
const KEY = `${KEYS}/{ssh_key_id}`;
const TASK = '/cloud/v1/tasks/{task_id}';
const nets = '/cloud/v1/networks/1/76';
const subs = '/cloud/v1/subnets/1/76';
const keys = '/cloud/v1/ssh_keys/1';
/** An Ed25519 public key line (made for these tests; its private half was never kept). */
export const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj ops@example';

describe('networks, subnets and SSH keys: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  /** Creates a network (and waits for its task); resolves with its id. */
  async function createNetwork(body: Record<string, unknown> = { name: 'net-1' }): Promise<string> {
    const answer = await expectDocumentedAnswer(emu, CLOUD, 'POST', NETS, nets, 200, body);
    emu.clock.advance(1000);
    const task = await expectDocumentedAnswer(emu, CLOUD, 'GET', TASK, `/cloud/v1/tasks/${answer.tasks[0]}`, 200);
    return task.created_resources.networks[0];
  }

  /** Creates a subnet (and waits for its task); resolves with its id. */
  async function createSubnet(body: Record<string, unknown>): Promise<string> {
    const answer = await expectDocumentedAnswer(emu, CLOUD, 'POST', SUBS, subs, 200, body);
    emu.clock.advance(1000);
    const task = await expectDocumentedAnswer(emu, CLOUD, 'GET', TASK, `/cloud/v1/tasks/${answer.tasks[0]}`, 200);
    return task.created_resources.subnets[0];
  }

  it('network create, get (locked and after), list with tag_key_value, PATCH and delete answer as the spec says', async () => {
    const body = { name: 'net-1', type: 'vxlan', tags: { 'edgeform-stack': 'prod', env: 'a' } };
    expectValid(requestValidator(CLOUD, 'POST', NETS), body);
    const created = await expectDocumentedAnswer(emu, CLOUD, 'POST', NETS, nets, 200, body);
    const id = [...emu.state.networks.values()].find((n) => n.creator_task_id === created.tasks[0])!.id;
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', NET, `${nets}/${id}`, 200)).task_id).toBe(created.tasks[0]);
    emu.clock.advance(1000);
    await expectDocumentedAnswer(emu, CLOUD, 'GET', NET, `${nets}/${id}`, 200);
    const filter = JSON.stringify({ 'edgeform-stack': 'prod' });
    expect(queryParameterValidator(CLOUD, 'GET', NETS, 'tag_key_value')(filter)).toBe(true);
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', NETS, `${nets}?tag_key_value=${encodeURIComponent(filter)}&limit=1000&offset=0`, 200);
    expect(listed.results.map((n: { id: string }) => n.id)).toEqual([id]);
    const patch = { name: 'net-2', tags: { env: null, team: 'edge' } };
    expectValid(requestValidator(CLOUD, 'PATCH', NET), patch);
    const patched = await expectDocumentedAnswer(emu, CLOUD, 'PATCH', NET, `${nets}/${id}`, 200, patch);
    expect(patched.name).toBe('net-2');
    expect(patched.tags).toEqual([
      { key: 'edgeform-stack', value: 'prod', read_only: false },
      { key: 'team', value: 'edge', read_only: false },
    ]);
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', NET, `${nets}/${id}`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${nets}/${id}`)).status).toBe(404);
  });

  it('a network with subnets is not deleted: 409 naming each subnet', async () => {
    const network = await createNetwork();
    const subnet = await createSubnet({ name: 'sub-1', network_id: network, cidr: '10.0.0.0/24' });
    const res = await emu.call('DELETE', `${nets}/${network}`);
    expect(res.status).toBe(409);
    expect(res.body.message).toContain(subnet);
    expect(res.body.message).toContain('sub-1');
    expect(emu.state.networks.get(network)!.task_id).toBeNull();
  });

  it('subnet create, get, list by network and tag, PATCH and delete answer as the spec says', async () => {
    const network = await createNetwork();
    const body = {
      name: 'sub-1',
      network_id: network,
      cidr: '10.0.0.0/24',
      ip_version: 4,
      enable_dhcp: true,
      dns_nameservers: ['8.8.8.8'],
      host_routes: [{ destination: '10.1.0.0/16', nexthop: '10.0.0.254' }],
      gateway_ip: '10.0.0.1',
      connect_to_network_router: true,
      tags: { 'edgeform-stack': 'prod' },
    };
    expectValid(requestValidator(CLOUD, 'POST', SUBS), body);
    const id = await createSubnet(body);
    const one = await expectDocumentedAnswer(emu, CLOUD, 'GET', SUB, `${subs}/${id}`, 200);
    expect(one).toMatchObject({ cidr: '10.0.0.0/24', gateway_ip: '10.0.0.1', dns_nameservers: ['8.8.8.8'], network_id: network, ip_version: 4 });
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', NET, `${nets}/${network}`, 200)).subnets).toEqual([id]);
    const filter = JSON.stringify({ 'edgeform-stack': 'prod' });
    expect(queryParameterValidator(CLOUD, 'GET', SUBS, 'tag_key_value')(filter)).toBe(true);
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', SUBS, `${subs}?network_id=${network}&tag_key_value=${encodeURIComponent(filter)}&limit=1000&offset=0`, 200);
    expect(listed.count).toBe(1);
    const patch = { name: 'sub-2', dns_nameservers: ['1.1.1.1'], host_routes: [], gateway_ip: '10.0.0.254', tags: { env: 'b' } };
    expectValid(requestValidator(CLOUD, 'PATCH', SUB), patch);
    expect(await expectDocumentedAnswer(emu, CLOUD, 'PATCH', SUB, `${subs}/${id}`, 200, patch)).toMatchObject({
      name: 'sub-2',
      dns_nameservers: ['1.1.1.1'],
      host_routes: [],
      gateway_ip: '10.0.0.254',
    });
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', SUB, `${subs}/${id}`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${subs}/${id}`)).status).toBe(404);
  });

  it('a subnet into an unknown network is refused (404), and one overlapping another subnet of the network (400)', async () => {
    const unknown = { name: 'sub-1', network_id: 'b39792c3-3160-4356-912e-ba396c95cdcf', cidr: '10.0.0.0/24' };
    expectValid(requestValidator(CLOUD, 'POST', SUBS), unknown);
    expect((await emu.call('POST', subs, { body: unknown })).status).toBe(404);
    const network = await createNetwork();
    await createSubnet({ name: 'sub-1', network_id: network, cidr: '10.0.0.0/16' });
    const res = await emu.call('POST', subs, { body: { name: 'sub-2', network_id: network, cidr: '10.0.5.0/24' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('overlaps');
    const other = await createNetwork({ name: 'net-2' });
    expect((await emu.call('POST', subs, { body: { name: 'sub-2', network_id: other, cidr: '10.0.5.0/24' } })).status).toBe(200);
  });

  const rejected: Array<{ name: string; path: string; template: string; body: unknown }> = [
    { name: 'a network without a name', path: nets, template: NETS, body: {} },
    { name: 'a network named with a slash', path: nets, template: NETS, body: { name: 'a/b' } },
    { name: 'a network of type flat', path: nets, template: NETS, body: { name: 'net', type: 'flat' } },
    { name: 'a subnet without cidr', path: subs, template: SUBS, body: { name: 'sub', network_id: 'b39792c3-3160-4356-912e-ba396c95cdcf' } },
    { name: 'an SSH key without a name', path: keys, template: KEYS, body: { public_key: PUBLIC_KEY } },
  ];

  it.each(rejected)('rejects what the vendor schema rejects: $name', async ({ path, template, body }) => {
    expect(requestValidator(CLOUD, 'POST', template)(body)).toBe(false);
    expect((await emu.call('POST', path, { body })).status).toBe(400);
  });

  it.each([
    ['a CIDR with host bits set', '10.0.0.5/24'],
    ['a CIDR that is not one', '10.0.0.0/33'],
    ['an address without a prefix', '10.0.0.0'],
  ])('refuses %s (400)', async (_name, cidr) => {
    const network = await createNetwork();
    expect((await emu.call('POST', subs, { body: { name: 'sub', network_id: network, cidr } })).status).toBe(400);
  });

  it('SSH key create (201, no private key for a given public key), get, list by name, PATCH and delete answer as the spec says', async () => {
    const body = { name: 'ops', public_key: PUBLIC_KEY };
    expectValid(requestValidator(CLOUD, 'POST', KEYS), body);
    const created = await expectDocumentedAnswer(emu, CLOUD, 'POST', KEYS, keys, 201, body);
    expect(created).toMatchObject({ name: 'ops', public_key: PUBLIC_KEY, fingerprint: 'd6:58:f2:3b:2b:a4:0d:81:57:f3:00:9b:9c:33:25:74', private_key: null });
    await expectDocumentedAnswer(emu, CLOUD, 'GET', KEY, `${keys}/${created.id}`, 200);
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', KEYS, `${keys}?name=ops&limit=1000&offset=0`, 200);
    expect(listed.results.map((k: { id: string }) => k.id)).toEqual([created.id]);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'PATCH', KEY, `${keys}/${created.id}`, 200, { shared_in_project: false })).shared_in_project).toBe(false);
    const deleted = await emu.call('DELETE', `${keys}/${created.id}`);
    expect(deleted.status).toBe(204);
    expect((await emu.call('GET', `${keys}/${created.id}`)).status).toBe(404);
  });

  it('an SSH key without public_key is generated by the platform, its private half answered once', async () => {
    const created = await expectDocumentedAnswer(emu, CLOUD, 'POST', KEYS, keys, 201, { name: 'gen' });
    expect(created.private_key).toContain('PRIVATE KEY');
    expect(created.public_key).toMatch(/^ssh-ed25519 /);
    expect(Object.keys(await expectDocumentedAnswer(emu, CLOUD, 'GET', KEY, `${keys}/${created.id}`, 200))).not.toContain('private_key');
  });

  it('a malformed public key is refused (400), and a name the project has already (409)', async () => {
    for (const publicKey of ['ssh-ed25519 not-base64', 'hello', 'ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj']) {
      expect((await emu.call('POST', keys, { body: { name: 'ops', public_key: publicKey } })).status).toBe(400);
    }
    expect((await emu.call('POST', keys, { body: { name: 'ops', public_key: PUBLIC_KEY } })).status).toBe(201);
    expect((await emu.call('POST', keys, { body: { name: 'ops', public_key: PUBLIC_KEY } })).status).toBe(409);
  });
});
