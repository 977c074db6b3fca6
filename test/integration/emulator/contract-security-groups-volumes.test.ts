/**
 * Contract tests of the security group and volume services against the vendor OpenAPI
 * (test/fixtures/openapi/cloud_api.yaml): every operation edgeform uses answers in its response
 * schema; requests the vendor schema rejects are refused (400); the platform's refusals (a group
 * an instance uses, an attached volume, a smaller size) name what is in the way.
 */
import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectValid, queryParameterValidator, requestValidator, responseValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const SG_CREATE = '/cloud/v2/security_groups/{project_id}/{region_id}';
const SG_PATCH = '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}';
const SG_RULES = '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules';
const SG_RULE = '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules/{rule_id}';
const SG_LIST = '/cloud/v1/securitygroups/{project_id}/{region_id}';
const SG_ONE = '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}';
const VOL_LIST = '/cloud/v1/volumes/{project_id}/{region_id}';
const VOL_ONE = '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}';
const VOL_EXTEND = '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/extend';
const VOL_RETYPE = '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/retype';
const TASK = '/cloud/v1/tasks/{task_id}';

const USED_SG = '22222222-0000-4000-8000-000000000001';
const FREE_SG = '22222222-0000-4000-8000-000000000002';
const ATTACHED = '33333333-0000-4000-8000-000000000001';
const FREE_VOL = '33333333-0000-4000-8000-000000000002';
const SNAPSHOT = '44444444-0000-4000-8000-000000000001';
const VM = '11111111-0000-4000-8000-000000000001';

const fixtures = {
  instances: [{ id: VM, name: 'web-1', flavor_id: 'g2-standard-2-4', security_groups: [USED_SG], volumes: [{ id: ATTACHED }] }],
  security_groups: [
    { id: USED_SG, name: 'web', tags: { env: 'prod' } },
    { id: FREE_SG, name: 'spare', rules: [{ direction: 'ingress' as const, protocol: 'tcp' as const, port_range_min: 22, port_range_max: 22, remote_ip_prefix: '10.0.0.0/8' }] },
  ],
  images: [
    { id: '55555555-0000-4000-8000-000000000001', name: 'debian-12-x64' },
    { id: '55555555-0000-4000-8000-000000000002', name: 'rocky-9-x64' },
  ],
  volumes: [
    { id: ATTACHED, name: 'boot', size: 20, image_id: '55555555-0000-4000-8000-000000000001' },
    { id: FREE_VOL, name: 'data', size: 10, snapshot_ids: [SNAPSHOT], tags: { env: 'prod' } },
  ],
};

describe('security groups: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000, fixtures });
  const base = '/cloud/v2/security_groups/1/76';
  const v1 = '/cloud/v1/securitygroups/1/76';

  it('POST create answers TaskIDsSerializer; the new group has the default egress rules (IPv4 and IPv6, any) and matches SecurityGroupSerializer', async () => {
    const body = {
      name: 'web-sg',
      description: 'web',
      tags: { 'edgeform-stack': 'prod' },
      rules: [{ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 443, port_range_max: 443, remote_ip_prefix: '0.0.0.0/0' }],
    };
    expectValid(requestValidator(CLOUD, 'POST', SG_CREATE), body);
    const res = await emu.call('POST', base, { body });
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'POST', SG_CREATE, 200), res.body);
    emu.clock.advance(1000);
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expectValid(responseValidator(CLOUD, 'GET', TASK, 200), task.body);
    const id = task.body.created_resources.security_groups[0];
    const group = await emu.call('GET', `${v1}/${id}`);
    expectValid(responseValidator(CLOUD, 'GET', SG_ONE, 200), group.body);
    const egress = group.body.security_group_rules.filter((r: { direction: string }) => r.direction === 'egress');
    // A rule of every protocol reads "any" (the v1 SecurityGroupProtocolEnum), as on the platform.
    expect(egress.map((r: { ethertype: string; protocol: string; remote_ip_prefix: null }) => [r.ethertype, r.protocol, r.remote_ip_prefix])).toEqual([
      ['IPv4', 'any', null],
      ['IPv6', 'any', null],
    ]);
    expect(group.body.security_group_rules).toHaveLength(3);
  });

  it('a create with rules: [] makes a group without rules', async () => {
    const res = await emu.call('POST', base, { body: { name: 'bare', rules: [] } });
    emu.clock.advance(1000);
    const id = (await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`)).body.created_resources.security_groups[0];
    expect((await emu.call('GET', `${v1}/${id}`)).body.security_group_rules).toEqual([]);
  });

  it('the list filtered by tag_key_value matches SecurityGroupCollectionSerializer', async () => {
    const filter = JSON.stringify({ env: 'prod' });
    expect(queryParameterValidator(CLOUD, 'GET', SG_LIST, 'tag_key_value')(filter)).toBe(true);
    const res = await emu.call('GET', `${v1}?tag_key_value=${encodeURIComponent(filter)}&limit=1000&offset=0`);
    expectValid(responseValidator(CLOUD, 'GET', SG_LIST, 200), res.body);
    expect(res.body.results.map((g: { id: string }) => g.id)).toEqual([USED_SG]);
    expect((await emu.call('GET', v1)).body.count).toBe(2);
  });

  it('a rule create and delete answer TaskIDsSerializer; the rule is there after the create task and gone after the delete task', async () => {
    const rule = { direction: 'ingress', ethertype: 'IPv6', protocol: 'udp', port_range_min: 53, port_range_max: 53, remote_ip_prefix: '2001:db8::/32' };
    expectValid(requestValidator(CLOUD, 'POST', SG_RULES), rule);
    const created = await emu.call('POST', `${base}/${FREE_SG}/rules`, { body: rule });
    expectValid(responseValidator(CLOUD, 'POST', SG_RULES, 200), created.body);
    emu.clock.advance(1000);
    const ruleId = (await emu.call('GET', `/cloud/v1/tasks/${created.body.tasks[0]}`)).body.created_resources.security_group_rules[0];
    expect((await emu.call('GET', `${v1}/${FREE_SG}`)).body.security_group_rules.map((r: { id: string }) => r.id)).toContain(ruleId);
    expect((await emu.call('POST', `${base}/${FREE_SG}/rules`, { body: rule })).status).toBe(409);
    const deleted = await emu.call('DELETE', `${base}/${FREE_SG}/rules/${ruleId}`);
    expectValid(responseValidator(CLOUD, 'DELETE', SG_RULE, 200), deleted.body);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${v1}/${FREE_SG}`)).body.security_group_rules.map((r: { id: string }) => r.id)).not.toContain(ruleId);
  });

  it('PATCH v2 answers tasks for name, description and tags, and an empty list when nothing would change', async () => {
    const body = { name: 'renamed', tags: { env: null, team: 'edge' } };
    expectValid(requestValidator(CLOUD, 'PATCH', SG_PATCH), body);
    const res = await emu.call('PATCH', `${base}/${USED_SG}`, { body });
    expectValid(responseValidator(CLOUD, 'PATCH', SG_PATCH, 200), res.body);
    expect(res.body.tasks).toHaveLength(1);
    emu.clock.advance(1000);
    const group = (await emu.call('GET', `${v1}/${USED_SG}`)).body;
    expect(group.name).toBe('renamed');
    expect(group.tags_v2).toEqual([{ key: 'team', value: 'edge', read_only: false }]);
    expect((await emu.call('PATCH', `${base}/${USED_SG}`, { body: { name: 'renamed' } })).body).toEqual({ tasks: [] });
  });

  it('PATCH v2 with rules makes the group hold exactly those rules', async () => {
    const rules = [{ direction: 'egress', ethertype: 'IPv4' }];
    await emu.call('PATCH', `${base}/${FREE_SG}`, { body: { rules } });
    emu.clock.advance(1000);
    const group = (await emu.call('GET', `${v1}/${FREE_SG}`)).body;
    expect(group.security_group_rules.map((r: { direction: string; protocol: string }) => [r.direction, r.protocol])).toEqual([['egress', 'any']]);
  });

  it('DELETE of a group an instance uses is refused with 409 naming the instance; an unused one answers 204', async () => {
    const used = await emu.call('DELETE', `${v1}/${USED_SG}`);
    expect(used.status).toBe(409);
    expect(used.body.message).toContain(`web-1 (${VM})`);
    expect((await emu.call('DELETE', `${v1}/${FREE_SG}`)).status).toBe(204);
    expect((await emu.call('GET', `${v1}/${FREE_SG}`)).status).toBe(404);
  });

  const rejected: Array<{ name: string; rule: Record<string, unknown> }> = [
    { name: 'no direction', rule: { protocol: 'tcp' } },
    { name: 'an unknown protocol', rule: { direction: 'ingress', protocol: 'any' } },
    { name: 'a port above 65535', rule: { direction: 'ingress', protocol: 'tcp', port_range_min: 70000 } },
    { name: 'a remote group that is not a UUID', rule: { direction: 'ingress', remote_group_id: 'web' } },
  ];
  it.each(rejected)('refuses a rule the vendor schema refuses: $name', async ({ rule }) => {
    expect(requestValidator(CLOUD, 'POST', SG_RULES)(rule)).toBe(false);
    expect((await emu.call('POST', `${base}/${FREE_SG}/rules`, { body: rule })).status).toBe(400);
  });

  const platformRefused: Array<{ name: string; rule: Record<string, unknown> }> = [
    { name: 'a prefix that is not a network (ipvanynetwork)', rule: { direction: 'ingress', remote_ip_prefix: 'anywhere' } },
    { name: 'a prefix of the other ethertype', rule: { direction: 'ingress', ethertype: 'IPv4', remote_ip_prefix: '2001:db8::/32' } },
    { name: 'host bits set', rule: { direction: 'ingress', remote_ip_prefix: '10.0.0.5/8' } },
    { name: 'ports in the wrong order', rule: { direction: 'ingress', protocol: 'tcp', port_range_min: 90, port_range_max: 80 } },
    { name: 'ports without a protocol that has ports', rule: { direction: 'ingress', protocol: 'icmp', port_range_min: 80 } },
  ];
  it.each(platformRefused)('refuses with 400 a rule the platform refuses: $name', async ({ rule }) => {
    expect((await emu.call('POST', `${base}/${FREE_SG}/rules`, { body: rule })).status).toBe(400);
  });
});

describe('volumes: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000, fixtures });
  const list = '/cloud/v1/volumes/1/76';

  const creates: Array<{ name: string; body: Record<string, unknown>; size: number; bootable: boolean }> = [
    { name: 'new-volume', body: { source: 'new-volume', name: 'data-2', size: 5, type_name: 'ssd_hiiops', tags: { env: 'prod' } }, size: 5, bootable: false },
    { name: 'image', body: { source: 'image', name: 'boot-2', size: 20, image_id: '55555555-0000-4000-8000-000000000002' }, size: 20, bootable: true },
    { name: 'snapshot', body: { source: 'snapshot', name: 'restored', snapshot_id: SNAPSHOT }, size: 10, bootable: false },
  ];
  it.each(creates)('POST create from $name answers tasks; the created volume matches VolumeSerializer while creating and after', async ({ body, size, bootable }) => {
    expectValid(requestValidator(CLOUD, 'POST', VOL_LIST), body);
    const res = await emu.call('POST', list, { body });
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'POST', VOL_LIST, 200), res.body);
    const id = [...emu.state.volumes.values()].find((v) => v.creator_task_id === res.body.tasks[0])!.id;
    const creating = await emu.call('GET', `${list}/${id}`);
    expectValid(responseValidator(CLOUD, 'GET', VOL_ONE, 200), creating.body);
    expect(creating.body).toMatchObject({ status: 'creating', task_id: res.body.tasks[0] });
    emu.clock.advance(1000);
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expectValid(responseValidator(CLOUD, 'GET', TASK, 200), task.body);
    expect(task.body.created_resources.volumes).toEqual([id]);
    expect((await emu.call('GET', `${list}/${id}`)).body).toMatchObject({ status: 'available', size, bootable, task_id: null });
  });

  it('the list filtered by tag_key_value matches VolumeCollectionSerializer; an attached volume is in-use with its attachment', async () => {
    const filter = JSON.stringify({ env: 'prod' });
    expect(queryParameterValidator(CLOUD, 'GET', VOL_LIST, 'tag_key_value')(filter)).toBe(true);
    const res = await emu.call('GET', `${list}?tag_key_value=${encodeURIComponent(filter)}&limit=1000&offset=0`);
    expectValid(responseValidator(CLOUD, 'GET', VOL_LIST, 200), res.body);
    expect(res.body.results.map((v: { id: string }) => v.id)).toEqual([FREE_VOL]);
    const all = await emu.call('GET', `${list}?limit=1&offset=0`);
    expect(all.body).toMatchObject({ count: 2, results: [{ id: ATTACHED, status: 'in-use', attachments: [{ server_id: VM, instance_name: 'web-1' }] }] });
    expectValid(responseValidator(CLOUD, 'GET', VOL_LIST, 200), all.body);
  });

  it('PATCH renames and patches tags, answering VolumeSerializer', async () => {
    const body = { name: 'data-renamed', tags: { env: null } };
    expectValid(requestValidator(CLOUD, 'PATCH', VOL_ONE), body);
    const res = await emu.call('PATCH', `${list}/${FREE_VOL}`, { body });
    expectValid(responseValidator(CLOUD, 'PATCH', VOL_ONE, 200), res.body);
    expect(res.body).toMatchObject({ name: 'data-renamed', tags: [] });
  });

  it('extend answers tasks and grows the volume when its task finishes; a size not larger is refused with 400', async () => {
    expectValid(requestValidator(CLOUD, 'POST', VOL_EXTEND), { size: 15 });
    const res = await emu.call('POST', `${list}/${FREE_VOL}/extend`, { body: { size: 15 } });
    expectValid(responseValidator(CLOUD, 'POST', VOL_EXTEND, 200), res.body);
    expect((await emu.call('GET', `${list}/${FREE_VOL}`)).body).toMatchObject({ status: 'extending', size: 10 });
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${list}/${FREE_VOL}`)).body).toMatchObject({ status: 'available', size: 15 });
    const smaller = await emu.call('POST', `${list}/${FREE_VOL}/extend`, { body: { size: 12 } });
    expect(smaller.status).toBe(400);
    expect(smaller.body.message).toContain('greater than the current size (15 GiB)');
  });

  it('retype answers VolumeSerializer; a volume with snapshots is refused', async () => {
    expectValid(requestValidator(CLOUD, 'POST', VOL_RETYPE), { volume_type: 'ssd_hiiops' });
    const res = await emu.call('POST', `${list}/${ATTACHED}/retype`, { body: { volume_type: 'ssd_hiiops' } });
    expectValid(responseValidator(CLOUD, 'POST', VOL_RETYPE, 200), res.body);
    expect(res.body.volume_type).toBe('ssd_hiiops');
    expect((await emu.call('POST', `${list}/${FREE_VOL}/retype`, { body: { volume_type: 'ssd_hiiops' } })).status).toBe(400);
    expect(requestValidator(CLOUD, 'POST', VOL_RETYPE)({ volume_type: 'cold' })).toBe(false);
    expect((await emu.call('POST', `${list}/${ATTACHED}/retype`, { body: { volume_type: 'cold' } })).status).toBe(400);
  });

  it('DELETE answers tasks and removes a free volume; an attached one is refused with 409 naming the instance', async () => {
    const res = await emu.call('DELETE', `${list}/${FREE_VOL}`);
    expectValid(responseValidator(CLOUD, 'DELETE', VOL_ONE, 200), res.body);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${list}/${FREE_VOL}`)).status).toBe(404);
    const attached = await emu.call('DELETE', `${list}/${ATTACHED}`);
    expect(attached.status).toBe(409);
    expect(attached.body.message).toContain(`web-1 (${VM})`);
  });

  const rejected: Array<{ name: string; body: Record<string, unknown> }> = [
    { name: 'no source', body: { name: 'x1', size: 1 } },
    { name: 'a new volume without size', body: { source: 'new-volume', name: 'x1' } },
    { name: 'an image without image_id', body: { source: 'image', name: 'x1', size: 1 } },
    { name: 'size 0', body: { source: 'new-volume', name: 'x1', size: 0 } },
    { name: 'an unknown volume type', body: { source: 'new-volume', name: 'x1', size: 1, type_name: 'fast' } },
  ];
  it.each(rejected)('refuses a create the vendor schema refuses: $name', async ({ body }) => {
    expect(requestValidator(CLOUD, 'POST', VOL_LIST)(body)).toBe(false);
    expect((await emu.call('POST', list, { body })).status).toBe(400);
  });
});
