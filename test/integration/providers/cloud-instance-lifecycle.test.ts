import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { CHAIN_PUBLIC_KEY, makeCloudChain, type CloudChain } from '../../helpers/cloud-chain.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * cloud_instance created, found by its ownership tags, changed, replaced and deleted, through the
 * CLI in-process against the emulator (what the request carries, what the plan shows), and the
 * adoption by instance_id as before.
 */

let emu: TestEmulator;
let env: Record<string, string>;
useTestEmulator((started) => ([emu, env] = [started, emulatorEnv(started)]), { taskDurationMs: 0, resetEach: false });
let chain: CloudChain;
beforeEach(async () => {
  emu.reset();
  chain = await makeCloudChain(emu);
  expect((await emu.call('POST', '/cloud/v1/ssh_keys/1', { body: { name: 'other-key', public_key: CHAIN_PUBLIC_KEY.replace('ops@', 'other@') } })).status).toBe(201);
});

const run = async (args: string[]): Promise<CliResult> => {
  const result = await runCliInProcess(args, { env });
  expect(`${result.stdout}${result.stderr}`).not.toContain(emu.apiKey);
  return result;
};
const IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';
const CREATE = '/cloud/v2/instances/{project_id}/{region_id}';

const stack = (block: string, files: Record<string, string> = {}) =>
  join(
    writeStackFiles({ 'stack.yaml': `version: 1\nname: web\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  vm:\n    type: cloud_instance\n${block}`, ...files }),
    'stack.yaml',
  );

const block = () => `    name: web-2
    flavor_id: g2-standard-2-4
    image_id: ${IMAGE}
    boot_volume_size: 20
    interfaces:
      - { type: subnet, network_id: ${chain.network}, subnet_id: ${chain.subnet}, floating_ip_id: ${DEMO.fipDown} }
    ssh_key_name: demo-key
    user_data_file: cloud-init.yaml
    tags: { service: web }
`;
const files = { 'cloud-init.yaml': '#cloud-config\npackages: [nginx]\n' };
const instances = () => [...emu.state.instances.values()].filter((vm) => vm.tags.some((t) => t.key === 'edgeform-address' && t.value === 'cloud_instance.vm'));

describe('cloud_instance created and found by its ownership tags', () => {
  it('plans the create with the id and addresses known after apply, sends the vendor request, finds it again, then deletes it', async () => {
    const file = stack(block(), files);
    const planned = await run(['plan', file]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('# cloud_instance.vm will be created');
    expect(planned.stdout).toMatch(/\+ instance_id: \(known after apply\)/);
    expect(planned.stdout).toMatch(/\+ fixed_ip_address: \(known after apply\)/);
    expect(planned.stdout).toMatch(/\+ floating_ip_address: \(known after apply\)/);
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const [vm] = instances();
    expect(applied.stdout).toContain(`created instance ${vm!.id}`);
    expect(emu.requests.filter((r) => r.method === 'POST' && r.route === CREATE)).toHaveLength(1);
    const createTask = [...emu.state.tasks.values()].find((t) => t.task_type === 'create_vm')!;
    expect(createTask.data).toEqual({
      name: 'web-2',
      flavor: 'g2-standard-2-4',
      volumes: [{ source: 'image', image_id: IMAGE, boot_index: 0, delete_on_termination: true, size: 20 }],
      interfaces: [{ type: 'subnet', network_id: chain.network, subnet_id: chain.subnet, floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } }],
      ssh_key_name: 'demo-key',
      user_data: Buffer.from(files['cloud-init.yaml']).toString('base64'),
      tags: { service: 'web', 'edgeform-stack': 'web', 'edgeform-address': 'cloud_instance.vm', 'edgeform-create': expect.stringMatching(/^image_id:/) },
    });
    expect(vm).toMatchObject({ status: 'ACTIVE', user_data: Buffer.from(files['cloud-init.yaml']).toString('base64') });
    expect(emu.state.floatingIps.get(DEMO.fipDown)).toMatchObject({ instance_id: vm!.id });

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');

    const destroyed = await run(['apply', stack(`${block()}    ensure: absent\n`, files), '--auto-approve']);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(instances()).toEqual([]);
    expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.route)).toEqual(['/cloud/v1/instances/{project_id}/{region_id}/{instance_id}']);
    // No query options: the floating IP and the existing volumes stay with their own blocks.
    expect([...emu.state.tasks.values()].find((t) => t.task_type === 'delete_vm')!.data).toEqual({});
    expect(emu.state.floatingIps.get(DEMO.fipDown)).toMatchObject({ instance_id: null, port_id: null });
  });

  it('renames and retags in place with one PATCH; a different SSH key plans -/+ naming the field, and apply replaces it', async () => {
    {
      const r = await run(['apply', stack(block(), files), '--auto-approve']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const [first] = instances();
    const renamed = stack(block().replace('web-2', 'web-3').replace('service: web', 'service: api'), files);
    const plan = await run(['plan', renamed]);
    expect(plan.stdout).toContain('~ name: "web-2" -> "web-3"');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect((await run(['apply', renamed, '--auto-approve'])).code).toBe(0);
    expect(emu.requests.filter((r) => r.method === 'PATCH').map((r) => r.route)).toEqual(['/cloud/v1/instances/{project_id}/{region_id}/{instance_id}']);
    expect(emu.mutations.filter((m) => m.change === 'update').map((m) => m.after)).toEqual([
      { name: 'web-3', tags: { service: 'api', 'edgeform-stack': 'web', 'edgeform-address': 'cloud_instance.vm', 'edgeform-create': expect.any(String) } },
    ]);
    expect(instances()[0]).toMatchObject({ id: first!.id, name: 'web-3' });

    const rekeyed = stack(block().replace('ssh_key_name: demo-key', 'ssh_key_name: other-key').replace('web-2', 'web-3').replace('service: web', 'service: api'), files);
    const replace = await run(['plan', rekeyed]);
    expect(replace.stdout).toContain('must be replaced');
    expect(replace.stdout).toContain('ssh_key_name cannot be changed in place');
    expect(replace.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    const applied = await run(['apply', rekeyed, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const [second] = instances();
    expect(second!.id).not.toBe(first!.id);
    expect(second!.ssh_key_name).toBe('other-key');
  });

  it('replaces an instance whose user data, interfaces or image changed (the digests its create tag holds), naming the field; the same stack stays a no-op', async () => {
    expect((await run(['apply', stack(block(), files), '--auto-approve'])).code).toBe(0);
    const [first] = instances();
    expect(first!.tags.find((t) => t.key === 'edgeform-create')?.value).toMatch(
      /^image_id:[0-9a-f]{12},boot_volume_size:[0-9a-f]{12},interfaces:[0-9a-f]{12},user_data:[0-9a-f]{12}$/,
    );
    const script = await run(['plan', stack(block(), { 'cloud-init.yaml': '#cloud-config\npackages: [caddy]\n' })]);
    expect(script.stdout).toContain('user_data cannot be changed in place');
    expect(script.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    const external = await run(['plan', stack(block().replace(/interfaces:\n.*\n/, 'interfaces: [{ type: external }]\n'), files)]);
    expect(external.stdout).toContain('interfaces cannot be changed in place');
    const image = stack(block().replace(IMAGE, '55555555-0000-4000-8000-000000000001'), files);
    expect((await run(['plan', image])).stdout).toContain('image_id cannot be changed in place');
    const replaced = await run(['apply', image, '--auto-approve']);
    expect(replaced.code, replaced.stdout + replaced.stderr).toBe(0);
    expect(instances().map((vm) => vm.id)).not.toContain(first!.id);
    expect((await run(['plan', image, '--detailed-exitcode'])).code).toBe(0);
  });

  it("plans a create whose flavor the region does not offer as an error naming the region's flavors (read once), and sends nothing", async () => {
    const file = stack(block().replace('g2-standard-2-4', 'g9-huge-64-256'), files);
    emu.requests.length = 0;
    const planned = await run(['plan', file]);
    expect(planned.code).toBe(1);
    expect(planned.stdout + planned.stderr).toContain('flavor "g9-huge-64-256" is not one of the flavors of region 76');
    expect(planned.stdout + planned.stderr).toContain('Flavors an instance can be created with there: g2-standard-2-4, g2-standard-4-8, g2-standard-8-16');
    expect(emu.requests.filter((r) => r.route === '/cloud/v1/flavors/{project_id}/{region_id}')).toHaveLength(1);
    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(emu.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('prunes an instance carrying the stack tags whose block is gone', async () => {
    {
      const r = await run(['apply', stack(block(), files), '--auto-approve']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const other = join(
      writeStackFiles({
        'stack.yaml': `version: 1\nname: web\nprune: true\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  keep:\n    type: cloud_instance\n    instance_id: ${DEMO.instance}\n    flavor_id: g2-standard-2-4\n`,
      }),
      'stack.yaml',
    );
    const plan = await run(['plan', other]);
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
    expect((await run(['apply', other, '--auto-approve'])).code).toBe(0);
    expect(instances()).toEqual([]);
  });

  it('an instance adopted by instance_id is never replaced: a different SSH key is a plan error', async () => {
    const file = stack(`    instance_id: ${DEMO.instance}\n    flavor_id: g2-standard-2-4\n    ssh_key_name: other-key\n`);
    const plan = await run(['plan', file]);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('an instance adopted by instance_id is never replaced');
  });

  it('validates user_data_file next to the stack and refuses both user_data and user_data_file', async () => {
    const missing = await run(['validate', stack(block())]);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('user_data_file "cloud-init.yaml": no such file');
    const both = await run(['validate', stack(`${block()}    user_data: "#!/bin/sh"\n`, files)]);
    expect(both.code).toBe(1);
    expect(both.stdout + both.stderr).toContain('must not be set together with user_data');
  });
});
