import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * examples/web-service.yaml, the virtual machine from nothing (its cloud-init script from
 * user_data_file), through the CLI in-process against the emulator: the first plan (every id and address known after apply), apply's creates in
 * dependency order, a no-op plan, and `ensure: absent` on every block destroying in reverse order.
 */
let emu: TestEmulator;
let env: Record<string, string>;
useTestEmulator((started) => ([emu, env] = [started, emulatorEnv(started)]), { taskDurationMs: 0, resetEach: false });

const EXAMPLE = 'examples/web-service.yaml';
const writes = (method: string) => emu.requests.filter((r) => r.method === method && r.status < 300).map((r) => r.route);

describe('examples/web-service.yaml', () => {
  it('plans 7 creates with ids and addresses known after apply, creates in dependency order, plans no changes, then destroys in reverse order', async () => {
    const plan = await runCliInProcess(['plan', EXAMPLE, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('Plan: 7 to add, 0 to change, 0 to destroy.');
    expect(plan.stdout).toMatch(/\+ instance_id: \(known after apply\)/);
    expect(plan.stdout).toMatch(/\+ fixed_ip_address: \(known after apply\)/);
    expect(plan.stdout).toMatch(/\+ floating_ip_address: \(known after apply\)/);
    expect(plan.stdout).toContain('# interfaces[0].subnet_id = ${cloud_subnet.subnet.id} (known after apply)');
    expect(plan.stdout).toContain('# ssh_key_name = ${cloud_ssh_key.deploy.name} (known after apply)');
    expect(plan.stdout).toContain('# boot_volume_id = ${cloud_volume.boot.id} (known after apply)');

    emu.requests.length = 0;
    const applied = await runCliInProcess(['apply', EXAMPLE, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
    const posts = writes('POST');
    const at = (route: string) => posts.indexOf(route);
    for (const route of [
      '/cloud/v1/networks/{project_id}/{region_id}',
      '/cloud/v1/subnets/{project_id}/{region_id}',
      '/cloud/v2/security_groups/{project_id}/{region_id}',
      '/cloud/v1/ssh_keys/{project_id}',
      '/cloud/v1/volumes/{project_id}/{region_id}',
      '/cloud/v1/floatingips/{project_id}/{region_id}',
      '/cloud/v2/instances/{project_id}/{region_id}',
    ])
      expect(
        posts.filter((r) => r === route),
        route,
      ).toHaveLength(1);
    expect(at('/cloud/v1/networks/{project_id}/{region_id}')).toBeLessThan(at('/cloud/v1/subnets/{project_id}/{region_id}'));
    for (const before of [
      '/cloud/v1/subnets/{project_id}/{region_id}',
      '/cloud/v2/security_groups/{project_id}/{region_id}',
      '/cloud/v1/ssh_keys/{project_id}',
      '/cloud/v1/volumes/{project_id}/{region_id}',
      '/cloud/v1/floatingips/{project_id}/{region_id}',
    ])
      expect(at(before), before).toBeLessThan(at('/cloud/v2/instances/{project_id}/{region_id}'));
    const made = () => [...emu.state.instances.values()].filter((x) => x.tags.some((t) => t.key === 'edgeform-stack' && t.value === 'web-service'));
    const [vm] = made();
    expect([vm!.status, vm!.ssh_key_name, vm!.security_groups]).toEqual(['ACTIVE', 'web-deploy', ['web']]);
    expect(vm!.ports[0]).toMatchObject({ ip_address: '10.20.0.2', network_name: 'web-net', subnet_name: 'web-subnet' });
    // Its cloud-init script, from user_data_file, sent on the first apply although its references were unknown at plan time.
    expect(Buffer.from(vm!.user_data ?? '', 'base64').toString('utf8')).toBe(readFileSync('examples/web-service.user-data', 'utf8'));

    const again = await runCliInProcess(['plan', EXAMPLE, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');

    const absent = readFileSync(EXAMPLE, 'utf8').replace(/^(  [a-z]+:\n    type: .*)$/gm, '$1\n    ensure: absent');
    const dir = writeStackFiles({
      'web-service.yaml': absent,
      'web-service.pub': readFileSync('examples/web-service.pub', 'utf8'),
      'web-service.user-data': readFileSync('examples/web-service.user-data', 'utf8'),
    });
    emu.requests.length = 0;
    const destroyed = await runCliInProcess(['apply', join(dir, 'web-service.yaml'), '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stdout + destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 7 destroyed.');
    const deletes = writes('DELETE');
    const del = (prefix: string) => deletes.findIndex((r) => r.startsWith(prefix));
    expect(del('/cloud/v1/instances/')).toBe(0);
    for (const after of ['/cloud/v1/subnets/', '/cloud/v1/securitygroups/', '/cloud/v1/ssh_keys/', '/cloud/v1/volumes/', '/cloud/v1/floatingips/'])
      expect(del(after), after).toBeGreaterThan(0);
    expect(del('/cloud/v1/subnets/')).toBeLessThan(del('/cloud/v1/networks/'));
    expect(made()).toEqual([]);
  });
});
