/**
 * Replacing what others use, through the CLI against the emulator (Terraform's replacement
 * semantics): a replaced block whose value reaches a dependant's create-only field replaces the
 * dependant too, and the plan says why; apply destroys the dependants, then the dependency,
 * creates the dependency, then the dependants, each waiting on its task, in one run, and the next
 * plan is a no-op. The platform refuses to delete what is in use (409), so any other order fails.
 * A dependant edgeform never replaces (adopted by its id) is a plan error naming both blocks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driveTasks, emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { CHAIN_IMAGE as IMAGE, chainStack } from '../../helpers/cloud-chain.js';

/** Another image of the demo world's region (examples/emulator/fixtures.yaml). */
const OTHER_IMAGE = '55555555-0000-4000-8000-000000000001';

/** The writes of replacing the subnet and the instance on it: the instance destroyed first, made again last; nothing refused. */
const SUBNET_REPLACED = {
  done: [
    'DELETE /cloud/v1/instances/{project_id}/{region_id}/{instance_id}',
    'DELETE /cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}',
    'POST /cloud/v1/subnets/{project_id}/{region_id}',
    'POST /cloud/v2/instances/{project_id}/{region_id}',
  ],
  refused: [],
};

/** The writes that reached the platform (2xx), as `METHOD route`, and the refused ones. */
function writes(emu: TestEmulator): { done: string[]; refused: string[] } {
  const all = emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/'));
  return {
    done: all.filter((r) => r.status < 300).map((r) => `${r.method} ${r.route}`),
    refused: all.filter((r) => r.status >= 300).map((r) => `${r.method} ${r.route} ${r.status}`),
  };
}

describe('replacing what others use', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  /** The stack's instances (the demo world has one of its own). */
  const appInstances = () => [...emu!.state.instances.values()].filter((vm) => vm.name === 'app-1');

  /** The chain applied from nothing; tasks take 30 s of the emulator's clock, driven as they are waited on. */
  async function applied(text = chainStack()): Promise<{ file: string; env: Record<string, string>; run: (args: string[], cwd?: string) => ReturnType<typeof runCliInProcess> }> {
    emu = await startTestEmulator({ taskDurationMs: 30_000 });
    const env = emulatorEnv(emu);
    const file = join(writeStackFiles({ 'stack.yaml': text }), 'stack.yaml');
    const run = (args: string[], cwd?: string) => driveTasks(emu!, runCliInProcess(args, { env, ...(cwd === undefined ? {} : { cwd }) }));
    const created = await run(['apply', file, '--auto-approve']);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    emu.requests.length = 0;
    return { file, env, run };
  }

  it('a subnet cidr change under an instance: plans -/+ on both, the instance "replaced because" the subnet; applies in one run (instance, subnet destroyed, then made again); then no changes', async () => {
    const { file, run } = await applied();
    const [oldVm] = appInstances();
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24' }));

    const plan = await run(['plan', file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(' -/+ cloud_subnet.app\n');
    expect(plan.stdout).toContain(' -/+ cloud_instance.vm (replaced because cloud_subnet.app is replaced)\n');
    expect(plan.stdout).toContain('# cloud_instance.vm must be replaced because cloud_subnet.app is replaced (found by ownership tags of stack "app")');
    expect(plan.stdout).toContain('Plan: 2 to add, 0 to change, 2 to destroy.');
    expect(writes(emu!).done).toEqual([]);

    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 2 destroyed.');
    expect(writes(emu!)).toEqual(SUBNET_REPLACED);
    // Each address is reported once, with what happened to it.
    expect(apply.stdout.match(/^cloud_instance\.vm: Replaced after/gm)).toHaveLength(1);
    expect(apply.stdout).toMatch(/^cloud_subnet\.app: destroyed after \d+s \[task [^\]]+\]; its replacement is created once what it depends on is ready$/m);
    const [subnet] = [...emu!.state.subnets.values()];
    const [vm] = appInstances();
    expect(subnet!.cidr).toBe('10.0.1.0/24');
    expect(vm!.id).not.toBe(oldVm!.id);
    expect(vm!.ports[0]).toMatchObject({ subnet_id: subnet!.id, ip_address: '10.0.1.2' });

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('a network type change under a subnet and an instance: the three replaced in one run, destroyed dependants first and made again dependency first; then no changes', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ type: 'vlan' }));

    const plan = await run(['plan', file]);
    expect(plan.stdout).toContain(' -/+ cloud_network.net\n');
    expect(plan.stdout).toContain(' -/+ cloud_subnet.app (replaced because cloud_network.net is replaced)\n');
    expect(plan.stdout).toContain(' -/+ cloud_instance.vm (replaced because cloud_network.net and cloud_subnet.app are replaced)\n');
    expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 3 to destroy.');

    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(writes(emu!)).toEqual({
      done: [
        'DELETE /cloud/v1/instances/{project_id}/{region_id}/{instance_id}',
        'DELETE /cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}',
        'DELETE /cloud/v1/networks/{project_id}/{region_id}/{network_id}',
        'POST /cloud/v1/networks/{project_id}/{region_id}',
        'POST /cloud/v1/subnets/{project_id}/{region_id}',
        'POST /cloud/v2/instances/{project_id}/{region_id}',
      ],
      refused: [],
    });
    expect([...emu!.state.networks.values()].map((n) => n.type)).toEqual(['vlan']);

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('a boot volume image change: the instance booting from it replaced with it, in one run; then no changes', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ image: OTHER_IMAGE }));

    const plan = await run(['plan', file]);
    expect(plan.stdout).toContain(' -/+ cloud_instance.vm (replaced because cloud_volume.boot is replaced)\n');

    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(writes(emu!)).toEqual({
      done: [
        'DELETE /cloud/v1/instances/{project_id}/{region_id}/{instance_id}',
        'DELETE /cloud/v1/volumes/{project_id}/{region_id}/{volume_id}',
        'POST /cloud/v1/volumes/{project_id}/{region_id}',
        'POST /cloud/v2/instances/{project_id}/{region_id}',
      ],
      refused: [],
    });
    const [volume] = [...emu!.state.volumes.values()].filter((v) => v.name === 'app-boot');
    expect(volume!.volume_image_metadata).toMatchObject({ image_id: OTHER_IMAGE });

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('a boot volume image change to an image the region does not have: a plan error at the image, before anything is destroyed', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ image: '0a1b2c3d-0000-4000-8000-0000000000ab' }));

    const plan = await run(['plan', file]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(
      /stack\.yaml:\d+:\d+: error: cloud_volume\.boot: image_id "0a1b2c3d-0000-4000-8000-0000000000ab" names no image in region 76; did you mean "0a1b2c3d-0000-4000-8000-0000000000aa"\?/,
    );
    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(writes(emu!)).toEqual({ done: [], refused: [] });
    expect(appInstances()).toHaveLength(1);
  });

  it('the JSON plan and the plan file say replaced_because (format 2.4); the Markdown plan says it in its table; a saved plan applies it', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24' }));
    const json = JSON.parse((await run(['plan', file, '--format', 'json'])).stdout) as {
      format_version: string;
      resource_changes: { address: string; action: string; replaced_because?: string[] }[];
    };
    expect(json.format_version).toBe('2.4');
    expect(json.resource_changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c.replaced_because])).toEqual([
      ['cloud_subnet.app', undefined],
      ['cloud_instance.vm', ['cloud_subnet.app']],
    ]);
    const markdown = await run(['plan', file, '--format', 'markdown']);
    expect(markdown.stdout).toContain('| `-/+` replace (because `cloud_subnet.app` is replaced) | `cloud_instance.vm` |');

    const dir = join(file, '..');
    const saved = join(dir, 'plan.json');
    expect((await run(['plan', 'stack.yaml', '--out', 'plan.json'], dir)).code).toBe(0);
    const changes = (JSON.parse(readFileSync(saved, 'utf8')) as typeof json).resource_changes;
    expect(changes.find((c) => c.address === 'cloud_instance.vm')?.replaced_because).toEqual(['cloud_subnet.app']);
    emu!.requests.length = 0;
    const apply = await run(['apply', 'plan.json'], dir);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(writes(emu!)).toEqual(SUBNET_REPLACED);
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('the JSON apply events report each address once; a replace between its destroy and its create shows as progress', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24' }));
    const apply = await run(['apply', file, '--auto-approve', '--format', 'json']);
    expect(apply.code, apply.stderr).toBe(0);
    const events = apply.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; address?: string; action?: string; status?: string; message?: string });
    const ends = events.filter((e) => (e.type === 'apply_complete' || e.type === 'apply_errored') && e.action !== 'no-op');
    expect(ends.map((e) => [e.address, e.action, e.status])).toEqual([
      ['cloud_subnet.app', 'replace', 'applied'],
      ['cloud_instance.vm', 'replace', 'applied'],
    ]);
    expect(events.filter((e) => e.type === 'apply_start').map((e) => e.address)).toEqual(['cloud_instance.vm', 'cloud_subnet.app']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'apply_progress', address: 'cloud_subnet.app', message: 'destroyed; its replacement is created next' }));
    const summary = events.at(-1) as unknown as { type: string; add: number; destroy: number };
    expect(summary).toMatchObject({ type: 'change_summary', add: 2, destroy: 2 });
  });

  it('an instance adopted by instance_id on a subnet that would be replaced is a plan error naming both blocks and what to change; nothing is sent', async () => {
    const { file, run } = await applied();
    const [vm] = appInstances();
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24', vm: `    instance_id: ${vm!.id}\n` }));
    const plan = await run(['plan', file]);
    expect(plan.code).toBe(1);
    const text = plan.stdout + plan.stderr;
    expect(text).toContain(
      'error: cloud_instance.vm would have to be replaced with cloud_subnet.app, which is replaced (interfaces[0].subnet_id reads ${cloud_subnet.app.id}), but it is adopted by its instance_id, and edgeform never replaces a resource adopted by its id',
    );
    expect(text).toContain(
      'Remove instance_id from cloud_instance.vm: edgeform then replaces it together with cloud_subnet.app and finds it again by its ownership tags (edgeform-stack, edgeform-address). Or keep cloud_subnet.app as it is (its cidr cannot change in place).',
    );
    // The error points at the reference in the stack.
    expect(text).toMatch(/stack\.yaml:29:20: error: cloud_instance\.vm would have to be replaced/);
    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(writes(emu!).done).toEqual([]);
  });

  it('with prune: true, what prune destroys goes first: an instance on the subnet no block declares any more is gone before the subnet is replaced', async () => {
    const old = `  old:
    type: cloud_instance
    name: app-old
    flavor_id: g2-standard-2-4
    image_id: ${IMAGE}
    interfaces:
      - type: subnet
        network_id: \${cloud_network.net.id}
        subnet_id: \${cloud_subnet.app.id}
`;
    const { file, run } = await applied(chainStack({ extra: old }).replace('name: app\n', 'name: app\nprune: true\n'));
    const [oldVm] = [...emu!.state.instances.values()].filter((vm) => vm.name === 'app-old');
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24' }).replace('name: app\n', 'name: app\nprune: true\n'));
    const plan = await run(['plan', file]);
    expect(plan.stdout).toContain(' - cloud_instance.old (pruned)\n');
    expect(plan.stdout).toContain(' -/+ cloud_instance.vm (replaced because cloud_subnet.app is replaced)\n');

    emu!.requests.length = 0;
    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const { done, refused } = writes(emu!);
    expect(refused).toEqual([]);
    const at = (write: string) => done.indexOf(write);
    expect(at(`DELETE /cloud/v1/instances/{project_id}/{region_id}/{instance_id}`)).toBeGreaterThanOrEqual(0);
    expect(done.filter((w) => w.startsWith('DELETE /cloud/v1/instances/'))).toHaveLength(2);
    expect(done.lastIndexOf('DELETE /cloud/v1/instances/{project_id}/{region_id}/{instance_id}')).toBeLessThan(at('DELETE /cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}'));
    expect(appInstances()).toHaveLength(1);
    expect(emu!.state.instances.has(oldVm!.id)).toBe(false);
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('--target on a replaced block that another block reads, which the selection leaves out, is a plan error naming both; nothing is sent', async () => {
    const { file, run } = await applied();
    writeFileSync(file, chainStack({ cidr: '10.0.1.0/24' }));
    const plan = await run(['plan', file, '--target', 'cloud_subnet.app']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(
      'error: cloud_subnet.app is replaced, but cloud_instance.vm, which reads it (interfaces[0].subnet_id), is not in the --target selection: it would be left on what is destroyed',
    );
    expect(plan.stdout + plan.stderr).toContain('Add --target cloud_instance.vm');
    const apply = await run(['apply', file, '--auto-approve', '--target', 'cloud_subnet.app']);
    expect(apply.code).toBe(1);
    expect(writes(emu!).done).toEqual([]);
    // With the instance selected too, it applies.
    const both = await run(['apply', file, '--auto-approve', '--target', 'cloud_instance.vm']);
    expect(both.code, both.stdout + both.stderr).toBe(0);
    expect(writes(emu!).refused).toEqual([]);
  });

  it('a dependant whose field reading a replaced block changes in place is an update with (known after apply), made after the replacement', async () => {
    const extra = `  other:
    type: cloud_instance
    name: \${cloud_network.net.name}
    flavor_id: g2-standard-2-4
    image_id: ${IMAGE}
    interfaces: [{ type: external }]
`;
    const { file, run } = await applied(chainStack({ extra }));
    writeFileSync(file, chainStack({ type: 'vlan', extra }));
    const plan = await run(['plan', file]);
    expect(plan.stdout).toContain('  ~ cloud_instance.other\n');
    expect(plan.stdout).toContain('~ name: "app-net" -> (known after apply)');
    expect(plan.stdout).toContain('Plan: 3 to add, 1 to change, 3 to destroy.');
    const apply = await run(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    // The new network has the same name: nothing to send for the other instance.
    expect(apply.stdout).toContain('cloud_instance.other: already as planned; nothing sent');
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });
});
