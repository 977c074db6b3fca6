import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writesSeen, useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const SG_V2 = '/cloud/v2/security_groups/1/76';
const SG_V1 = '/cloud/v1/securitygroups/1/76';

const stackYaml = (blocks: string) => `version: 1
name: prod
defaults: { project_id: 1, region_id: 76 }
resources:
${blocks}`;

const GROUP = (rules: string, extra = '') => `  web:
    type: cloud_security_group
    name: web-sg
    ${extra}rules:
${rules}
`;
const SSH = `      - { direction: ingress, protocol: tcp, port_range_min: 22, remote_ip_prefix: 198.51.100.0/24 }`;
const HTTPS = `      - { direction: ingress, protocol: tcp, port_range_min: 443, remote_ip_prefix: 0.0.0.0/0 }`;
const HTTPS6 = `      - { direction: ingress, ethertype: IPv6, protocol: tcp, port_range_min: 443, remote_ip_prefix: "::/0" }`;
const SELF = `      - { direction: ingress, protocol: tcp, port_range_min: 5432, remote_group_id: self }`;

describe('cloud_security_group through the CLI', () => {
  const start = useCliEmulators();
  const groupOf = (e: TestEmulator) => [...e.state.securityGroups.values()].find((g) => g.tags.some((t) => t.key === 'edgeform-address' && t.value === 'cloud_security_group.web'));

  it('creates with its rules, plans no changes (the default egress rules are no drift), changes only the changed rules, and deletes', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(GROUP(`${SSH}\n${HTTPS}`)) });
    const stack = join(dir, 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('# cloud_security_group.web will be created');
    expect(plan.stdout).toContain('ingress IPv4 tcp 22 from 198.51.100.0/24');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    const group = groupOf(emu)!;
    expect(group.rules.map((r) => [r.direction, r.ethertype, r.protocol, r.port_range_min])).toEqual([
      ['ingress', 'IPv4', 'tcp', 22],
      ['ingress', 'IPv4', 'tcp', 443],
      ['egress', 'IPv4', null, null],
      ['egress', 'IPv6', null, null],
    ]);
    expect(writesSeen(emu)).toEqual([`POST ${SG_V2}`]);

    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes');

    // 22 goes, 443 over IPv6 comes, 443 over IPv4 stays: one delete and one create, nothing else.
    writeFileSync(stack, stackYaml(GROUP(`${HTTPS}\n${HTTPS6}`)));
    const changed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(changed.code, changed.stderr).toBe(0);
    const ssh = emu.mutations.find((m) => m.kind === 'security_group_rule' && m.change === 'delete_security_group_rule')!;
    expect(writesSeen(emu).slice(1)).toEqual([`DELETE ${SG_V2}/${group.id}/rules/${ssh.id}`, `POST ${SG_V2}/${group.id}/rules`]);
    expect(emu.mutations.filter((m) => m.change === 'create_security_group_rule').map((m) => m.after)).toEqual([
      {
        security_group_id: group.id,
        direction: 'ingress',
        ethertype: 'IPv6',
        protocol: 'tcp',
        port_range_min: 443,
        port_range_max: 443,
        remote_ip_prefix: '::/0',
        remote_group_id: null,
      },
    ]);
    expect((await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env })).code).toBe(0);

    writeFileSync(stack, stackYaml(GROUP(HTTPS, 'ensure: absent\n    ')));
    const destroyed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(emu.state.securityGroups.has(group.id)).toBe(false);
    expect(writesSeen(emu).at(-1)).toBe(`DELETE ${SG_V1}/${group.id}`);
  });

  it('imports a group made by hand whose rules read protocol "any" (the default egress rules), leaving those out, and the import plans no changes', async () => {
    const { emu, env } = await start();
    const rule = { direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '198.51.100.0/24' };
    const made = await emu.call('POST', SG_V2, { body: { name: 'hand-made', rules: [rule] } });
    const task = await emu.call('GET', `/cloud/v1/tasks/${made.body.tasks[0]}`);
    const id: string = task.body.created_resources.security_groups[0];
    const answer = await emu.call('GET', `${SG_V1}/${id}`);
    expect(answer.body.security_group_rules.filter((r: { direction: string }) => r.direction === 'egress').map((r: { protocol: string }) => r.protocol)).toEqual(['any', 'any']);

    const out = join(writeStackFiles({}), 'imported.yaml');
    const imported = await runCliInProcess(['import', 'cloud_security_group', '--project-id', '1', '--region-id', '76', '--out', out], { env });
    expect(imported.code, imported.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain(`security_group_id: ${id}`);
    expect(text).toContain('protocol: tcp');
    expect(text).not.toContain('egress');
    expect(text).not.toContain('Not imported');
    const plan = await runCliInProcess(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('rules_policy: authoritative deletes the default egress rules; a rule naming the group itself (self) is created once the group exists', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(GROUP(`${HTTPS}\n${SELF}`, 'rules_policy: authoritative\n    ')) });
    const stack = join(dir, 'stack.yaml');
    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    const group = groupOf(emu)!;
    expect(group.rules.map((r) => [r.direction, r.port_range_min, r.remote_group_id])).toEqual([
      ['ingress', 443, null],
      ['ingress', 5432, group.id],
    ]);
    expect((await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  it('a group an instance uses is not deleted: the apply fails naming the instance', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(GROUP(HTTPS)) });
    const stack = join(dir, 'stack.yaml');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(0);
    const group = groupOf(emu)!;
    const [vm] = emu.state.instances.values();
    vm!.security_groups.push(group.id);
    writeFileSync(stack, stackYaml(GROUP(HTTPS, 'ensure: absent\n    ')));
    const refused = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(`is in use by instance ${vm!.name} (${vm!.id})`);
    expect(emu.state.securityGroups.has(group.id)).toBe(true);
  });

  it('refuses offline a prefix of the other ethertype, host bits set and ports in the wrong order, naming file:line:col', async () => {
    const { env } = await start();
    const dir = writeStackFiles({
      'stack.yaml': stackYaml(
        GROUP(`      - { direction: ingress, remote_ip_prefix: "2001:db8::/32" }
      - { direction: ingress, protocol: tcp, port_range_min: 90, port_range_max: 80 }
      - { direction: ingress, remote_ip_prefix: 10.0.0.5/8 }
      - { direction: ingress, protocol: icmp, port_range_min: 8 }`),
      ),
    });
    const res = await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('stack.yaml:10:');
    expect(res.stderr).toContain("is an IPv6 network, the rule's ethertype is IPv4");
    expect(res.stderr).toContain('must not be below port_range_min (90)');
    expect(res.stderr).toContain('has host bits set: the network is 10.0.0.0/8');
    expect(res.stderr).toContain('ports can only be given with protocol tcp');
  });
});

const VOL_LIST = '/cloud/v1/volumes/1/76';
const VOLUME = (fields: string) => `  data:
    type: cloud_volume
    name: data
    ${fields}
`;

describe('cloud_volume through the CLI', () => {
  const start = useCliEmulators();
  const volumeOf = (e: TestEmulator) => [...e.state.volumes.values()].find((v) => v.tags.some((t) => t.key === 'edgeform-address' && t.value === 'cloud_volume.data'));

  it('creates, plans no changes, extends (a task), refuses a smaller size at the value, retypes, and destroys', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(VOLUME('size: 10\n    tags: { env: prod }')) });
    const stack = join(dir, 'stack.yaml');

    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    const volume = volumeOf(emu)!;
    expect(volume).toMatchObject({ name: 'data', size: 10, volume_type: 'standard', status: 'available' });
    expect(writesSeen(emu)).toEqual([`POST ${VOL_LIST}`]);
    expect((await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env })).code).toBe(0);

    writeFileSync(stack, stackYaml(VOLUME('size: 20\n    volume_type: ssd_hiiops\n    tags: { env: prod }')));
    const grown = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(grown.code, grown.stderr).toBe(0);
    expect(emu.state.volumes.get(volume.id)).toMatchObject({ size: 20, volume_type: 'ssd_hiiops' });
    expect(writesSeen(emu).slice(1)).toEqual([`POST ${VOL_LIST}/${volume.id}/retype`, `POST ${VOL_LIST}/${volume.id}/extend`]);
    expect(emu.mutations.filter((m) => m.kind === 'volume').map((m) => m.change)).toEqual(['create_volume', 'update', 'extend_volume']);

    writeFileSync(stack, stackYaml(VOLUME('size: 15\n    volume_type: ssd_hiiops\n    tags: { env: prod }')));
    const smaller = await runCliInProcess(['plan', stack], { env });
    expect(smaller.code).toBe(1);
    const out = smaller.stdout + smaller.stderr;
    expect(out, out).toContain('stack.yaml:8:');
    expect(out).toContain('a volume only grows: it has 20 GiB, size 15 would shrink it');
    expect(writesSeen(emu)).toHaveLength(3);

    writeFileSync(stack, stackYaml(VOLUME('ensure: absent')));
    const destroyed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(emu.state.volumes.has(volume.id)).toBe(false);
    expect(writesSeen(emu).at(-1)).toBe(`DELETE ${VOL_LIST}/${volume.id}`);
  });

  it('a changed source plans a replacement naming the field; deleting an attached volume is refused at plan, the instance named', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(VOLUME('size: 10')) });
    const stack = join(dir, 'stack.yaml');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(0);
    const volume = volumeOf(emu)!;

    writeFileSync(stack, stackYaml(VOLUME('size: 10\n    source: image\n    image_id: 55555555-0000-4000-8000-000000000001')));
    const replace = await runCliInProcess(['plan', stack], { env });
    expect(replace.code, replace.stderr).toBe(0);
    expect(replace.stdout).toContain('source cannot be changed in place');
    expect(replace.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');

    const [vm] = emu.state.instances.values();
    vm!.volumes.push({ id: volume.id, delete_on_termination: false });
    writeFileSync(stack, stackYaml(VOLUME('ensure: absent')));
    emu.requests.length = 0;
    const refused = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(
      `cloud_volume.data cannot be destroyed: the platform refuses to delete it while instance ${vm!.id} (${vm!.name}) uses it, and this plan does not destroy that`,
    );
    expect(emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/'))).toEqual([]);
    expect(emu.state.volumes.has(volume.id)).toBe(true);
  });
});
