/**
 * cloud_network, cloud_subnet and cloud_ssh_key through the CLI against the emulator: created in
 * dependency order, a clean plan after, updated in place, replaced (`-/+`) when the CIDR changes,
 * destroyed in reverse order, and the platform's refusal to delete a network with subnets
 * reported with what uses it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { importTo, expectPlansClean } from '../../helpers/import.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj ops@example';
const OTHER_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEZMPu+JqxgKHxVqkzwJNlR59IjIDogEwInP20Rpo/NV ops@example';

const stack = (opts: { cidr?: string; dns?: string; netName?: string; ensure?: string; keyFile?: boolean } = {}) => `version: 1
name: prod
defaults: { project_id: 1, region_id: 76 }
resources:
  net:
    type: cloud_network
    name: ${opts.netName ?? 'prod-net'}
    tags: { env: prod }
${opts.ensure ? `    ensure: ${opts.ensure}\n` : ''}  subnet:
    type: cloud_subnet
    name: prod-subnet
    network_id: \${cloud_network.net.id}
    cidr: ${opts.cidr ?? '10.0.0.0/24'}
    dns_nameservers: [${opts.dns ?? '8.8.8.8'}]
${opts.ensure ? `    ensure: ${opts.ensure}\n` : ''}  key:
    type: cloud_ssh_key
    name: deploy
    ${opts.keyFile ? 'public_key_file: keys/deploy.pub' : `public_key: ${PUBLIC_KEY}`}
${opts.ensure ? `    ensure: ${opts.ensure}\n` : ''}`;

describe('networks, subnets and SSH keys through the CLI', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('creates network → subnet and a key, plans clean, updates in place, replaces the subnet on a new CIDR, destroys in reverse order', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = emulatorEnv(emu);
    const dir = writeStackFiles({ 'stack.yaml': stack({ keyFile: true }), 'keys/deploy.pub': `${PUBLIC_KEY}\n` });
    const file = join(dir, 'stack.yaml');

    const plan = await runCliInProcess(['plan', file], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    expect(plan.stdout).toContain('+ network_id: (known after apply)');

    const created = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    const [net] = [...emu.state.networks.values()];
    const [subnet] = [...emu.state.subnets.values()];
    const [key] = [...emu.state.sshKeys.values()];
    expect(net).toMatchObject({ name: 'prod-net' });
    expect(subnet).toMatchObject({ network_id: net!.id, cidr: '10.0.0.0/24', dns_nameservers: ['8.8.8.8'] });
    expect(key).toMatchObject({ name: 'deploy', public_key: PUBLIC_KEY });
    const writes = writesSeen(emu);
    expect(writes.indexOf('POST /cloud/v1/networks/1/76')).toBeLessThan(writes.indexOf('POST /cloud/v1/subnets/1/76'));

    const again = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes');

    writeFileSync(file, stack({ keyFile: true, netName: 'prod-net-2', dns: '1.1.1.1' }));
    const updated = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(updated.code, updated.stderr).toBe(0);
    expect(emu.state.networks.get(net!.id)!.name).toBe('prod-net-2');
    expect(emu.state.subnets.get(subnet!.id)!.dns_nameservers).toEqual(['1.1.1.1']);

    writeFileSync(file, stack({ keyFile: true, netName: 'prod-net-2', dns: '1.1.1.1', cidr: '10.0.1.0/24' }));
    const replacePlan = await runCliInProcess(['plan', file], { env });
    expect(replacePlan.stdout).toContain('cloud_subnet.subnet must be replaced');
    expect(replacePlan.stdout).toMatch(/cidr: "10\.0\.0\.0\/24" -> "10\.0\.1\.0\/24" # forces replacement/);
    expect(replacePlan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    const replaced = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(emu.state.subnets.has(subnet!.id)).toBe(false);
    expect([...emu.state.subnets.values()].map((s) => s.cidr)).toEqual(['10.0.1.0/24']);

    writeFileSync(join(dir, 'keys/deploy.pub'), `${OTHER_KEY}\n`);
    const keyPlan = await runCliInProcess(['plan', file], { env });
    expect(keyPlan.stdout).toContain('cloud_ssh_key.key must be replaced');

    writeFileSync(file, stack({ keyFile: true, netName: 'prod-net-2', dns: '1.1.1.1', cidr: '10.0.1.0/24', ensure: 'absent' }));
    const destroyed = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stderr + destroyed.stdout).toBe(0);
    expect(destroyed.stdout).toContain('3 destroyed');
    expect(emu.state.networks.size + emu.state.subnets.size + emu.state.sshKeys.size).toBe(0);
    const deletes = writesSeen(emu).filter((w) => w.startsWith('DELETE'));
    expect(deletes.findIndex((w) => w.includes('/subnets/'))).toBeLessThan(deletes.findIndex((w) => w.includes('/networks/')));
  });

  it('a network the platform would refuse to delete (it still has a subnet this plan keeps) is refused at plan, located, before any write', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = emulatorEnv(emu);
    const dir = writeStackFiles({ 'stack.yaml': stack() });
    const file = join(dir, 'stack.yaml');
    expect((await runCliInProcess(['apply', file, '--auto-approve'], { env })).code).toBe(0);
    const [subnet] = [...emu.state.subnets.values()];
    // Only the network is removed from the stack's intent; its subnet stays.
    writeFileSync(
      file,
      stack()
        .replace('    tags: { env: prod }\n', '    tags: { env: prod }\n    ensure: absent\n')
        .replace('network_id: ${cloud_network.net.id}', `network_id: ${subnet!.network_id}`),
    );
    emu.requests.length = 0;
    const refused = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(
      `${file}:5:3: error: cloud_network.net cannot be destroyed: the platform refuses to delete it while subnet ${subnet!.id} uses it, and this plan does not destroy that`,
    );
    expect(emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/'))).toEqual([]);
    expect(emu.state.networks.size).toBe(1);
  });

  it("import --all writes a subnet's network_id as ${cloud_network.NAME.id} (refersTo), and plan on the result reports no changes", async () => {
    const network = 'b39792c3-3160-4356-912e-ba396c95cdcf';
    const subnet = '0b5c8a7e-2f64-4c0e-9a51-7c8ad1f0c2d4';
    emu = await startTestEmulator({
      fixtures: {
        networks: [{ id: network, name: 'legacy-net', tags: { team: 'edge' } }],
        subnets: [{ id: subnet, name: 'legacy-sub', network_id: network, cidr: '192.168.5.0/24', dns_nameservers: ['9.9.9.9'] }],
        ssh_keys: [{ id: 'c3e0f1a2-5b6d-4e7f-8a9b-0c1d2e3f4a5b', name: 'ops', public_key: PUBLIC_KEY }],
      },
    });
    const env = emulatorEnv(emu);
    const { file, text } = await importTo(['--all'], env);
    expect(text).toContain('network_id: "${cloud_network.legacy-net.id}"');
    expect(text).toContain(`public_key: ${PUBLIC_KEY}`);
    await expectPlansClean(file, env);
  });

  it('validate reads public_key_file next to the stack and refuses a file that is not one public key line, naming the file, line and column', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack({ keyFile: true }), 'keys/deploy.pub': '\nnot a key\n' });
    const bad = await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/keys\/deploy\.pub:2:1: error: .*not an OpenSSH public key line/);
    writeFileSync(join(dir, 'keys/deploy.pub'), `${PUBLIC_KEY}\n`);
    expect((await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env: {} })).code).toBe(0);
  });

  it('validate refuses a subnet cidr with host bits set and a gateway outside it, at their values', async () => {
    const text = stack({ cidr: '10.0.0.5/24' }).replace('    dns_nameservers: [8.8.8.8]\n', '    dns_nameservers: [8.8.8.8]\n    gateway_ip: 10.9.0.1\n');
    const dir = writeStackFiles({ 'stack.yaml': text });
    const bad = await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/stack\.yaml:13:11: error: .*has host bits set: the network is 10\.0\.0\.0\/24/);
  });
});
