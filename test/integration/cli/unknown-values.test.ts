/**
 * A block whose values are `(known after apply)` is applied with exactly the body the plan
 * promised, on the first apply: every check that runs again at apply, once the references are
 * resolved, sees the block as the plan saw it. Through the CLI against the emulator.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const SCRIPT = '#cloud-config\nruncmd:\n  - echo hello > /tmp/hello\n';

const stack = `version: 1
name: app
defaults: { project_id: 1, region_id: 76 }
resources:
  net:
    type: cloud_network
    name: app-net
  subnet:
    type: cloud_subnet
    name: app-subnet
    network_id: \${cloud_network.net.id}
    cidr: 10.0.0.0/24
  vm:
    type: cloud_instance
    name: app-1
    flavor_id: g2-standard-2-4
    image_id: 0a1b2c3d-0000-4000-8000-0000000000aa
    user_data_file: init.yaml
    interfaces:
      - type: subnet
        network_id: \${cloud_network.net.id}
        subnet_id: \${cloud_subnet.subnet.id}
`;

describe('values known after apply', () => {
  const start = useCliEmulators();

  it('an instance with user_data_file whose references are unknown at plan time is created on the first apply, with the script the plan promised, and again when it is replaced with its subnet; the next plan is a no-op', async () => {
    const { emu, env } = await start();
    const file = join(writeStackFiles({ 'stack.yaml': stack, 'init.yaml': SCRIPT }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', file], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('# interfaces[0].subnet_id = ${cloud_subnet.subnet.id} (known after apply)');

    const apply = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
    const creates = emu.requests.filter((r) => r.method === 'POST' && !r.route.endsWith('/check_limits') && r.status < 300).map((r) => r.route);
    expect(creates).toEqual(['/cloud/v1/networks/{project_id}/{region_id}', '/cloud/v1/subnets/{project_id}/{region_id}', '/cloud/v2/instances/{project_id}/{region_id}']);
    const [vm] = [...emu.state.instances.values()].filter((x) => x.name === 'app-1');
    expect(Buffer.from(vm!.user_data ?? '', 'base64').toString('utf8')).toBe(SCRIPT);
    const [subnet] = [...emu.state.subnets.values()];
    expect(vm!.ports.map((p) => p.subnet_id)).toEqual([subnet!.id]);

    const again = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);

    // Replaced with its subnet (a new cidr): created again with the same script, in one run.
    writeFileSync(file, stack.replace('10.0.0.0/24', '10.0.1.0/24'));
    const replaced = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(replaced.code, replaced.stdout + replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 2 destroyed.');
    const [vm2] = [...emu.state.instances.values()].filter((x) => x.name === 'app-1');
    expect(vm2!.id).not.toBe(vm!.id);
    expect(Buffer.from(vm2!.user_data ?? '', 'base64').toString('utf8')).toBe(SCRIPT);
    expect((await runCliInProcess(['plan', file, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});
