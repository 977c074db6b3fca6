/**
 * What the platform would refuse a create for, and edgeform can know before any write, is a plan
 * error at the value (file:line:col, with a did-you-mean where a list exists), never an apply
 * failure after other blocks were made: `plan` and `apply` exit 1 and send nothing but reads
 * (the emulator's request log is asserted). Each case also shows the emulator refusing the same
 * request, so the error replaces a failure the platform would answer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** An Ed25519 public key line (made for these tests; its private half was never kept). */
const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj ops@example';
const IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';
const HEADER = 'version: 1\nname: refusals\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started), { taskDurationMs: 0, resetEach: false });
beforeEach(() => {
  emu.reset();
  emu.state.sshKeys.set('77777777-0000-4000-8000-000000000001', {
    id: '77777777-0000-4000-8000-000000000001',
    project_id: 1,
    name: 'deploy',
    public_key: PUBLIC_KEY,
    fingerprint: 'aa',
    shared_in_project: true,
    created_at: 0,
  });
});

/** Writes the stack; runs `edgeform COMMAND` on it. */
async function run(command: 'plan' | 'apply', resources: string) {
  const stack = join(writeStackFiles({ 'stack.yaml': HEADER + resources }), 'stack.yaml');
  const args = command === 'apply' ? ['apply', stack, '--auto-approve'] : ['plan', stack];
  return runCliInProcess(args, { env: emulatorEnv(emu) });
}

/** The error diagnostics' first lines (`stack.yaml:L:C: error: ...`) of a run's output. */
const errorLines = (output: string) => output.split('\n').filter((l) => / error: /.test(l));

const vm = (fields: string) => `  vm:\n    type: cloud_instance\n    flavor_id: g2-standard-2-4\n    interfaces: [{ type: external }]\n${fields}`;

describe('cloud_instance: a create the platform would refuse is a plan error at the value', () => {
  it('an SSH key name no key of the project has: located, with did-you-mean; plan and apply send no write', async () => {
    const stack = vm(`    image_id: ${IMAGE}\n    ssh_key_name: deplyo\n`);
    for (const command of ['plan', 'apply'] as const) {
      const result = await run(command, stack);
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(/stack\.yaml:10:19: error: cloud_instance\.vm: ssh_key_name "deplyo" names no SSH key in project 1; did you mean "deploy"\?$/),
      ]);
      expect(result.stdout).toContain('SSH keys in project 1: deploy. To have edgeform add the key first, declare a cloud_ssh_key block');
    }
    expect(writesSeen(emu)).toEqual([]);
    // What apply would have met: the platform's 404.
    const refused = await emu.call('POST', '/cloud/v2/instances/1/76', {
      body: { flavor: 'g2-standard-2-4', interfaces: [{ type: 'external' }], volumes: [{ source: 'image', image_id: IMAGE, boot_index: 0 }], ssh_key_name: 'deplyo' },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('SSH key deplyo not found');
  });

  it('an image the region does not have: located, with did-you-mean and the images by name', async () => {
    const typo = IMAGE.replace(/a$/, 'b');
    const result = await run('plan', vm(`    image_id: ${typo}\n`));
    expect(result.code).toBe(1);
    expect(errorLines(result.stdout)).toEqual([
      expect.stringMatching(new RegExp(`stack\\.yaml:9:15: error: cloud_instance\\.vm: image_id "${typo}" names no image in region 76; did you mean "${IMAGE}"\\?$`)),
    ]);
    expect(result.stdout).toContain(`Images in region 76: ${IMAGE} (ubuntu-24.04-x64), 55555555-0000-4000-8000-000000000001 (debian-12-x64)`);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('a flavor the region does not have: located, with did-you-mean', async () => {
    const result = await run('plan', `  vm:\n    type: cloud_instance\n    flavor_id: g2-standard-4-9\n    interfaces: [{ type: external }]\n    image_id: ${IMAGE}\n`);
    expect(result.code).toBe(1);
    expect(errorLines(result.stdout)).toEqual([
      expect.stringMatching(/stack\.yaml:7:16: error: cloud_instance\.vm: flavor "g2-standard-4-9" is not one of the flavors of region 76; did you mean "g2-standard-4-8"\?$/),
    ]);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('an SSH key another block of the stack creates (by reference or by name), or one the project has: no error; the key list is read once for every instance', async () => {
    const key = `  key:\n    type: cloud_ssh_key\n    name: ops\n    public_key: ${PUBLIC_KEY}\n`;
    const second = `  vm2:\n    type: cloud_instance\n    flavor_id: g2-standard-2-4\n    interfaces: [{ type: external }]\n    image_id: ${IMAGE}\n    ssh_key_name: deploy\n`;
    // The key block's own read finds it by name (a filtered list); the instances' check reads the project's keys once.
    for (const [name, lists] of [
      ['${cloud_ssh_key.key.name}', 2],
      ['ops', 2],
      ['deploy', 2],
    ] as const) {
      emu.requests.length = 0;
      const result = await run('plan', key + vm(`    image_id: ${IMAGE}\n    ssh_key_name: ${name}\n`) + second);
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toContain('Plan: 3 to add');
      expect(emu.requests.filter((r) => r.path === '/cloud/v1/ssh_keys/1').length).toBe(lists);
      expect(emu.requests.filter((r) => r.path === '/cloud/v1/images/1/76').length).toBe(1);
    }
  });
});

describe('cloud_volume: a volume made from an image the region does not have is a plan error at image_id', () => {
  it('located, with did-you-mean; plan and apply send no write; the platform would answer 404', async () => {
    const typo = IMAGE.replace(/a$/, 'b');
    const volume = `  boot:\n    type: cloud_volume\n    name: boot\n    size: 10\n    source: image\n    image_id: ${typo}\n`;
    for (const command of ['plan', 'apply'] as const) {
      const result = await run(command, volume);
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(new RegExp(`stack\\.yaml:10:15: error: cloud_volume\\.boot: image_id "${typo}" names no image in region 76; did you mean "${IMAGE}"\\?$`)),
      ]);
    }
    expect(writesSeen(emu)).toEqual([]);
    const refused = await emu.call('POST', '/cloud/v1/volumes/1/76', { body: { source: 'image', name: 'boot', size: 10, image_id: typo } });
    expect(refused.status).toBe(404);
  });
});

describe('dns_rrset: a record set in a zone the account does not have, and no block declares, is a plan error at its zone', () => {
  const rrset = (zone: string) => `  www:\n    type: dns_rrset\n    zone: ${zone}\n    name: www\n    record_type: A\n    resource_records: [{ content: [192.0.2.1] }]\n`;

  it('located at the zone, with did-you-mean from the account’s zones; plan and apply send no write', async () => {
    for (const command of ['plan', 'apply'] as const) {
      const result = await run(command, rrset('exmaple.org'));
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(/stack\.yaml:7:11: error: dns_rrset\.www: zone "exmaple\.org" names no DNS zone in the account; did you mean "example\.org"\?$/),
      ]);
      expect(result.stdout).toContain('DNS zones in the account: example.org. To have edgeform create the zone first, declare a dns_zone block for it');
    }
    expect(writesSeen(emu)).toEqual([]);
    // What apply would have met: the platform's 404.
    const refused = await emu.call('POST', '/dns/v2/zones/exmaple.org/www.exmaple.org/A', { body: { resource_records: [{ content: ['192.0.2.1'] }] } });
    expect(refused.status).toBe(404);
  });

  it('a record set beside a CNAME the zone has at its name (or a CNAME beside others): a plan error at record_type, from the zone list its read fetched anyway', async () => {
    emu.requests.length = 0;
    const result = await run(
      'plan',
      rrset('example.org') + rrset('example.org').replace(/www/g, 'api').replace('record_type: A', 'record_type: CNAME').replace('192.0.2.1', 'example.org.'),
    );
    expect(result.code).toBe(1);
    expect(errorLines(result.stdout).map((l) => l.replace(/^.*stack\.yaml:/, ''))).toEqual([
      '9:18: error: dns_rrset.www: www.example.org has a CNAME record set in zone example.org, and a CNAME cannot stand beside other types',
      '15:18: error: dns_rrset.api: api.example.org has AAAA record sets in zone example.org, and a CNAME cannot stand beside other types',
    ]);
    expect(emu.requests.filter((r) => r.path === '/dns/v2/zones/example.org/rrsets').length).toBe(1);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('the zone list is read by the plan only: apply of record sets to create reads it once, not again before each create', async () => {
    emu.requests.length = 0;
    const result = await run('apply', rrset('example.org').replace(/www/g, 'shop') + rrset('example.org').replace(/www/g, 'blog'));
    expect(result.code, result.stdout).toBe(0);
    expect(writesSeen(emu).sort()).toEqual(['POST /dns/v2/zones/example.org/blog.example.org/A', 'POST /dns/v2/zones/example.org/shop.example.org/A']);
    expect(emu.requests.filter((r) => r.path === '/dns/v2/zones').length).toBe(1);
  });

  it('a zone the account has, or one a dns_zone block of the stack declares (by reference or by name): no error', async () => {
    const zone = '  main:\n    type: dns_zone\n    name: new.example\n';
    for (const resources of [rrset('example.org').replace(/www/g, 'shop'), zone + rrset('${dns_zone.main.name}'), zone + rrset('new.example')]) {
      const result = await run('plan', resources);
      expect(result.code, result.stdout).toBe(0);
    }
    expect(writesSeen(emu)).toEqual([]);
  });
});

describe('cdn_rule: a pattern the platform would refuse is an error at the value', () => {
  let cdn: TestEmulator;
  beforeAll(async () => {
    cdn = await startTestEmulator({
      taskDurationMs: 0,
      fixtures: {
        cdn_origin_groups: [{ id: 1, name: 'origins', sources: [{ source: 'origin.example.com' }] }],
        cdn_resources: [{ id: 220, cname: 'cdn.example.com', originGroup: 1 }],
        cdn_rules: [
          { id: 5, resource: 220, name: 'images', rule: '/images/.*', ruleType: 0 },
          { id: 6, resource: 220, name: 'video', rule: '/video/.*', ruleType: 0 },
        ],
      },
    });
  });
  afterAll(() => cdn.close());

  it('a new pattern of an adopted rule (rule_type 0 on the platform) without its leading "/": a plan error at the value, nothing sent', async () => {
    const stack = join(
      writeStackFiles({ 'stack.yaml': `${HEADER}  images:\n    type: cdn_rule\n    rule_id: 5\n    resource_id: 220\n    name: images\n    rule: img/.*\n` }),
      'stack.yaml',
    );
    for (const command of [
      ['plan', stack],
      ['apply', stack, '--auto-approve'],
    ]) {
      const result = await runCliInProcess(command, { env: emulatorEnv(cdn) });
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(/stack\.yaml:10:11: error: cdn_rule\.images: rule must start with "\/" or "\^\/" \(rule_type 0 matches the whole path\), e\.g\. "\/img\/\.\*"$/),
      ]);
    }
    expect(writesSeen(cdn)).toEqual([]);
    // What apply would have met: the platform's 400.
    const refused = await cdn.call('PATCH', '/cdn/resources/220/rules/5', { body: { rule: 'img/.*' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ errors: { rule: ['Rule should be a valid regular expression - check it via https://regex101.com.'] } });
  });

  it('a pattern another rule of the resource has: a plan error at the value, from the rule list its read fetched anyway (one request)', async () => {
    cdn.requests.length = 0;
    const stack = join(
      writeStackFiles({ 'stack.yaml': `${HEADER}  copy:\n    type: cdn_rule\n    resource_id: 220\n    name: copy\n    rule: /images/.*\n    rule_type: 0\n` }),
      'stack.yaml',
    );
    const result = await runCliInProcess(['plan', stack], { env: emulatorEnv(cdn) });
    expect(result.code).toBe(1);
    expect(errorLines(result.stdout)).toEqual([
      expect.stringMatching(/stack\.yaml:9:11: error: cdn_rule\.copy: rule "\/images\/\.\*" is already the pattern of rule "images" of resource 220$/),
    ]);
    expect(cdn.requests.filter((r) => r.path === '/cdn/resources/220/rules').length).toBe(1);
    expect(writesSeen(cdn)).toEqual([]);
  });

  it('an origin group the account does not have, for a rule or a resource to create: a plan error at the value, with did-you-mean', async () => {
    cdn.requests.length = 0;
    const stack = join(
      writeStackFiles({
        'stack.yaml': `${HEADER}  copy:\n    type: cdn_rule\n    resource_id: 220\n    name: copy\n    rule: /video2/.*\n    rule_type: 0\n    origin_group: 2\n  site:\n    type: cdn_resource\n    cname: new.example.com\n    origin_group: 2\n`,
      }),
      'stack.yaml',
    );
    const result = await runCliInProcess(['plan', stack], { env: emulatorEnv(cdn) });
    expect(result.code).toBe(1);
    expect(errorLines(result.stdout).map((l) => l.replace(/^.*stack\.yaml:/, ''))).toEqual([
      '11:19: error: cdn_rule.copy: origin_group "2" names no CDN origin group in the account',
      '15:19: error: cdn_resource.site: origin_group "2" names no CDN origin group in the account',
    ]);
    expect(result.stdout).toContain('CDN origin groups in the account: 1 (origins).');
    expect(cdn.requests.filter((r) => r.path === '/cdn/origin_groups').length).toBe(1);
    expect(writesSeen(cdn)).toEqual([]);
  });

  it("what only the platform can say (a pattern changed in place to another rule's): apply fails, and says to change the stack, not to apply again", async () => {
    const stack = join(
      writeStackFiles({ 'stack.yaml': `${HEADER}  video:\n    type: cdn_rule\n    rule_id: 6\n    resource_id: 220\n    name: video\n    rule: /images/.*\n` }),
      'stack.yaml',
    );
    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(cdn) });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('The field rule_string must be unique');
    expect(result.stdout).toContain(
      'The platform refused the change of cdn_rule.video for a reason applying again does not change: change the stack as the error says, then run edgeform plan (finished work is not repeated).',
    );
    expect(result.stdout).not.toContain('apply again to converge');
  });
});

describe('cloud_subnet and cloud_security_group: a create the platform would refuse is a plan error at the value', () => {
  const NET = '2c000000-0000-4000-8000-000000000001';
  const SG = '3a000000-0000-4000-8000-000000000001';
  const VOL = '4b000000-0000-4000-8000-000000000001';
  let cloud: TestEmulator;
  beforeAll(async () => {
    cloud = await startTestEmulator({
      taskDurationMs: 0,
      fixtures: {
        networks: [{ id: NET, name: 'prod-net' }],
        subnets: [{ id: '2d000000-0000-4000-8000-000000000001', name: 'prod-sub', network_id: NET, cidr: '10.0.0.0/16' }],
        security_groups: [{ id: SG, name: 'bastion' }],
        flavors: [{ flavor_id: 'g2-standard-2-4' }],
        images: [{ id: IMAGE, name: 'ubuntu-24.04-x64' }],
        volumes: [{ id: VOL, name: 'data', size: 10 }],
        instances: [{ id: '11111111-0000-4000-8000-000000000001', name: 'db-1', flavor_id: 'g2-standard-2-4', volumes: [{ id: VOL }] }],
      },
    });
  });
  afterAll(() => cloud.close());

  const plan = async (command: 'plan' | 'apply', resources: string) => {
    const stack = join(writeStackFiles({ 'stack.yaml': HEADER + resources }), 'stack.yaml');
    return runCliInProcess(command === 'plan' ? ['plan', stack] : ['apply', stack, '--auto-approve'], { env: emulatorEnv(cloud) });
  };
  const subnet = (network: string, cidr: string) => `  sub:\n    type: cloud_subnet\n    name: app-sub\n    network_id: ${network}\n    cidr: ${cidr}\n`;

  it('a network the place does not have (did-you-mean), and a CIDR overlapping another subnet of the network (also through a reference): nothing sent', async () => {
    const typo = NET.replace(/1$/, '2');
    for (const command of ['plan', 'apply'] as const) {
      const result = await plan(command, subnet(typo, '10.1.0.0/24'));
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(new RegExp(`stack\\.yaml:8:17: error: cloud_subnet\\.sub: network_id "${typo}" names no network in project 1, region 76; did you mean "${NET}"\\?$`)),
      ]);
    }
    const overlap = await plan('plan', subnet(NET, '10.0.8.0/24'));
    expect(errorLines(overlap.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `stack\\.yaml:9:11: error: cloud_subnet\\.sub: cidr 10\\.0\\.8\\.0/24 overlaps subnet prod-sub \\(2d000000-0000-4000-8000-000000000001, 10\\.0\\.0\\.0/16\\) of network ${NET}$`,
        ),
      ),
    ]);
    const adopted = `  net:\n    type: cloud_network\n    network_id: ${NET}\n    name: prod-net\n`;
    const referenced = await plan('plan', adopted + subnet('${cloud_network.net.id}', '10.0.8.0/24'));
    expect(errorLines(referenced.stdout)).toEqual([expect.stringMatching(/error: cloud_subnet\.sub: cidr 10\.0\.8\.0\/24 overlaps subnet prod-sub/)]);
    expect(writesSeen(cloud)).toEqual([]);
    // What apply would have met: the platform's 400.
    const refused = await cloud.call('POST', '/cloud/v1/subnets/1/76', { body: { name: 'app-sub', network_id: NET, cidr: '10.0.8.0/24' } });
    expect(refused.status).toBe(400);
    expect(await plan('plan', subnet(NET, '10.1.0.0/24'))).toMatchObject({ code: 0 });
  });

  it('a rule naming a security group the place does not have: an error naming the rule, with did-you-mean; nothing sent', async () => {
    cloud.requests.length = 0;
    const typo = SG.replace(/1$/, '2');
    const group = (remote: string) =>
      `  web:\n    type: cloud_security_group\n    name: web\n    rules:\n      - { direction: ingress, protocol: tcp, port_range_min: 22, remote_group_id: ${remote} }\n`;
    for (const command of ['plan', 'apply'] as const) {
      const result = await plan(command, group(typo));
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout)).toEqual([
        expect.stringMatching(
          new RegExp(
            `stack\\.yaml:9:7: error: cloud_security_group\\.web: rules\\[0\\]\\.remote_group_id "${typo}" names no security group in project 1, region 76; did you mean "${SG}"\\?$`,
          ),
        ),
      ]);
    }
    expect(writesSeen(cloud)).toEqual([]);
    const refused = await cloud.call('POST', '/cloud/v2/security_groups/1/76', {
      body: { name: 'web', rules: [{ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_group_id: typo }] },
    });
    expect(refused.status).toBe(404);
    expect(await plan('plan', group(SG))).toMatchObject({ code: 0 });
    expect(await plan('plan', group('self'))).toMatchObject({ code: 0 });
  });

  it('an instance naming a network, subnet or security group the place does not have, or a volume another instance holds: errors naming each, nothing sent', async () => {
    cloud.requests.length = 0;
    const wrongNet = NET.replace(/1$/, '3');
    const instance = [
      '  vm:',
      '    type: cloud_instance',
      '    flavor_id: g2-standard-2-4',
      `    image_id: ${IMAGE}`,
      `    interfaces: [{ type: subnet, network_id: ${wrongNet}, subnet_id: 2d000000-0000-4000-8000-000000000001 }]`,
      `    security_group_ids: [${SG.replace(/1$/, '2')}]`,
      `    volume_ids: [${VOL}]`,
      '',
    ].join('\n');
    for (const command of ['plan', 'apply'] as const) {
      const result = await plan(command, instance);
      expect(result.code).toBe(1);
      expect(errorLines(result.stdout).map((l) => l.replace(/^.*stack\.yaml:/, ''))).toEqual([
        `9:17: error: cloud_instance.vm: interfaces[0].network_id "${wrongNet}" names no network in project 1, region 76; did you mean "${NET}"?`,
        `9:17: error: cloud_instance.vm: interfaces[0].subnet_id "2d000000-0000-4000-8000-000000000001" is a subnet of network ${NET}, not of ${wrongNet}`,
        `10:25: error: cloud_instance.vm: security_group_ids[0] "${SG.replace(/1$/, '2')}" names no security group in project 1, region 76; did you mean "${SG}"?`,
        `11:17: error: cloud_instance.vm: volume_ids[0] "${VOL}" is attached to an instance already: a volume must be available`,
      ]);
    }
    expect(writesSeen(cloud)).toEqual([]);
  });
});
