import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen, useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, floatingIpTags, seedFloatingIp, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const LIST = '/cloud/v1/floatingips/1/76';

const stackYaml = (top: string, blocks: string) => `version: 1
${top}
defaults: { project_id: 1, region_id: 76 }
resources:
${blocks}`;
const block = (name: string, extra = '') => `  ${name}:
    type: cloud_floating_ip
    tags: { env: prod }
${extra}`;

describe('renames and foreign ownership through the CLI', () => {
  const start = useCliEmulators();
  const tagsOf = floatingIpTags;
  const seed = seedFloatingIp;
  const owned = (stack: string, address: string) => ({ env: 'prod', 'edgeform-stack': stack, 'edgeform-address': address });

  it('moved_from: plan shows the move, apply rewrites the ownership tags only (no create, no destroy), the next plan is a no-op with moved_from kept', async () => {
    const { emu, env } = await start();
    const id = await seed(emu, owned('prod', 'cloud_floating_ip.old_ip'));
    const dir = writeStackFiles({ 'stack.yaml': stackYaml('name: prod\nprune: true', block('web_ip', '    moved_from: cloud_floating_ip.old_ip\n')) });
    const stack = join(dir, 'stack.yaml');
    const before = emu.state.floatingIps.size;

    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ cloud_floating_ip.web_ip (moved from prod/cloud_floating_ip.old_ip)');
    expect(plan.stdout).toContain('# cloud_floating_ip.web_ip will be updated in-place (moved from prod/cloud_floating_ip.old_ip)');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    const json = JSON.parse((await runCliInProcess(['plan', stack, '--format', 'json'], { env })).stdout);
    expect(json.resource_changes).toEqual([expect.objectContaining({ address: 'cloud_floating_ip.web_ip', action: 'update', moved_from: 'prod/cloud_floating_ip.old_ip' })]);
    const markdown = await runCliInProcess(['plan', stack, '--format', 'markdown'], { env });
    expect(markdown.stdout).toContain('| `~` update (moved from `prod/cloud_floating_ip.old_ip`) | `cloud_floating_ip.web_ip` |');

    const writesBefore = writesSeen(emu).length;
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writesSeen(emu).slice(writesBefore)).toEqual([`PATCH /cloud/v2/floatingips/1/76/${id}`]);
    expect(emu.state.floatingIps.size).toBe(before);
    expect(tagsOf(emu, id)).toEqual(owned('prod', 'cloud_floating_ip.web_ip'));

    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');
    writeFileSync(stack, stackYaml('name: prod\nprune: true', block('web_ip')));
    const without = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(without.code, without.stdout + without.stderr).toBe(0);
  });

  it('renamed_from: every block of the renamed stack is re-tagged with the new name, then no changes', async () => {
    const { emu, env } = await start();
    const a = await seed(emu, owned('old', 'cloud_floating_ip.a'));
    const b = await seed(emu, owned('old', 'cloud_floating_ip.b'));
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml('name: new\nrenamed_from: old', block('a') + block('b')) }), 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ cloud_floating_ip.a (moved from old/cloud_floating_ip.a)');
    expect(plan.stdout).toContain('~ cloud_floating_ip.b (moved from old/cloud_floating_ip.b)');
    expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');

    const writesBefore = writesSeen(emu).length;
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writesSeen(emu).slice(writesBefore).sort()).toEqual([`PATCH /cloud/v2/floatingips/1/76/${a}`, `PATCH /cloud/v2/floatingips/1/76/${b}`].sort());
    expect(tagsOf(emu, a)).toEqual(owned('new', 'cloud_floating_ip.a'));
    expect(tagsOf(emu, b)).toEqual(owned('new', 'cloud_floating_ip.b'));
    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('a saved plan carries the move and apply checks it like any other change', async () => {
    const { emu, env } = await start();
    const id = await seed(emu, owned('prod', 'cloud_floating_ip.old_ip'));
    const dir = writeStackFiles({ 'stack.yaml': stackYaml('name: prod', block('web_ip', '    moved_from: cloud_floating_ip.old_ip\n')) });
    const planFile = join(dir, 'plan.json');
    expect((await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--out', planFile], { env })).code).toBe(0);
    const saved = JSON.parse((await import('node:fs')).readFileSync(planFile, 'utf8'));
    expect(saved.resource_changes[0]).toMatchObject({ moved_from: 'prod/cloud_floating_ip.old_ip', action: 'update' });
    // An edited move is refused.
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...saved, resource_changes: [{ ...saved.resource_changes[0], moved_from: 'prod/cloud_floating_ip.other' }] }));
    const refused = await runCliInProcess(['apply', tampered, '--stack', join(dir, 'stack.yaml')], { env });
    expect(refused.code).toBe(1);
    expect(tagsOf(emu, id)['edgeform-address']).toBe('cloud_floating_ip.old_ip');
    const applied = await runCliInProcess(['apply', planFile, '--stack', join(dir, 'stack.yaml')], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(tagsOf(emu, id)['edgeform-address']).toBe('cloud_floating_ip.web_ip');
  });

  it('without moved_from, a block that would be created warns of the resource it was likely renamed from, naming both', async () => {
    const { emu, env } = await start();
    await seed(emu, owned('old', 'cloud_floating_ip.web_ip'));
    await seed(emu, owned('prod', 'cloud_floating_ip.legacy_ip'));
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml('name: prod', block('web_ip')) }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const all = plan.stdout + plan.stderr;
    expect(all).toContain('warning: cloud_floating_ip.web_ip would be created, and stack "old" holds a resource at the same address: was this stack renamed from "old"?');
    expect(all).toContain('If it was, add "renamed_from: old" at the top of this stack');
    expect(all).toContain('stack "prod" holds cloud_floating_ip.legacy_ip');
    expect(all).toContain('moved_from: cloud_floating_ip.legacy_ip');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });

  it('both the old and the new address existing is a plan error naming both', async () => {
    const { emu, env } = await start();
    await seed(emu, owned('prod', 'cloud_floating_ip.old_ip'));
    await seed(emu, owned('prod', 'cloud_floating_ip.web_ip'));
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml('name: prod', block('web_ip', '    moved_from: cloud_floating_ip.old_ip\n')) }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('both the old and the new address exist');
    expect(plan.stdout).toContain('prod/cloud_floating_ip.old_ip');
    expect(plan.stdout).toContain('prod/cloud_floating_ip.web_ip');
  });

  it("adopting by id a floating IP that carries another stack's ownership tags is a plan error naming that stack and how to take it over", async () => {
    const { emu, env } = await start();
    const id = await seed(emu, owned('other', 'cloud_floating_ip.shared'));
    const adopt = (extra = '') => stackYaml('name: prod', block('mine', `    floating_ip_id: ${id}\n${extra}`));
    const stack = join(writeStackFiles({ 'stack.yaml': adopt() }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(`stack.yaml:8:21: error: cloud_floating_ip.mine: cloud_floating_ip "${id}" carries the ownership tags of stack "other"`);
    expect(plan.stdout).toContain('moved_from: other/cloud_floating_ip.shared');

    writeFileSync(stack, adopt('    moved_from: other/cloud_floating_ip.shared\n'));
    const taken = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(taken.code, taken.stdout + taken.stderr).toBe(0);
    expect(tagsOf(emu, id)).toEqual(owned('prod', 'cloud_floating_ip.mine'));
    expect((await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env })).code).toBe(0);
    // An adopted IP without ownership tags stays adoptable as before.
    const plain = join(writeStackFiles({ 'stack.yaml': stackYaml('name: prod', block('demo', `    floating_ip_id: ${DEMO.fip}\n`)) }), 'stack.yaml');
    expect((await runCliInProcess(['plan', plain], { env })).code).toBe(0);
  });

  it('validate refuses a look-alike ownership tag key and bad moves, each at its line and column', async () => {
    const lookalike = join(writeStackFiles({ 'stack.yaml': stackYaml('name: prod', '  web_ip:\n    type: cloud_floating_ip\n    tags: { EDGEFORM-stack: x }\n') }), 'stack.yaml');
    const first = await runCliInProcess(['validate', lookalike]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('stack.yaml:7:13: error: invalid key "EDGEFORM-stack" in tags');
    expect(first.stderr).toContain('"edgeform-stack"');

    const twice = stackYaml('name: prod', block('a', '    moved_from: cloud_floating_ip.old\n') + block('b', '    moved_from: prod/cloud_floating_ip.old\n'));
    const second = await runCliInProcess(['validate', join(writeStackFiles({ 'stack.yaml': twice }), 'stack.yaml')]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('stack.yaml:12:17: error: cloud_floating_ip.b and cloud_floating_ip.a both move from prod/cloud_floating_ip.old');

    const otherType = stackYaml('name: prod', block('a', '    moved_from: cloud_instance.old\n'));
    const third = await runCliInProcess(['validate', join(writeStackFiles({ 'stack.yaml': otherType }), 'stack.yaml')]);
    expect(third.code).toBe(1);
    expect(third.stderr).toContain('stack.yaml:8:17: error: moved_from names a cloud_instance, but this block is a cloud_floating_ip');
  });

  describe('a network → subnet → instance chain', () => {
    /** The chain under the stack `name` (`top`: more top-level lines), its blocks named `names`, each with `extra[block]` lines. */
    const chain = (
      name: string,
      o: { top?: string; names?: { net: string; subnet: string; vm: string }; extra?: Partial<Record<'net' | 'subnet' | 'vm', string>>; cidr?: string } = {},
    ) => {
      const n = o.names ?? { net: 'net', subnet: 'subnet', vm: 'vm' };
      return `version: 1
name: ${name}
${o.top ?? ''}defaults: { project_id: 1, region_id: 76 }
resources:
  ${n.net}:
    type: cloud_network
    name: app-net
${o.extra?.net ?? ''}  ${n.subnet}:
    type: cloud_subnet
    name: app-subnet
    network_id: \${cloud_network.${n.net}.id}
    cidr: ${o.cidr ?? '10.0.0.0/24'}
${o.extra?.subnet ?? ''}  ${n.vm}:
    type: cloud_instance
    name: app-1
    flavor_id: g2-standard-2-4
    image_id: 0a1b2c3d-0000-4000-8000-0000000000aa
    interfaces:
      - type: subnet
        network_id: \${cloud_network.${n.net}.id}
        subnet_id: \${cloud_subnet.${n.subnet}.id}
${o.extra?.vm ?? ''}`;
    };
    /** The chain applied under stack "a"; the stack file to edit and a run in the emulator. */
    async function applied(): Promise<{ emu: TestEmulator; file: string; run: (args: string[]) => ReturnType<typeof runCliInProcess> }> {
      const { emu, env } = await start();
      const file = join(writeStackFiles({ 'stack.yaml': chain('a') }), 'stack.yaml');
      const run = (args: string[]) => runCliInProcess(args, { env });
      const first = await run(['apply', file, '--auto-approve']);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      emu.requests.length = 0;
      return { emu, file, run };
    }
    const ownersOf = (emu: TestEmulator) =>
      [
        ...[...emu.state.networks.values()].map((r) => r.tags),
        ...[...emu.state.subnets.values()].map((r) => r.tags),
        ...[...emu.state.instances.values()].filter((vm) => vm.name === 'app-1').map((r) => r.tags),
      ].map((tags) => `${tags.find((t) => t.key === 'edgeform-stack')?.value}/${tags.find((t) => t.key === 'edgeform-address')?.value}`);

    it('renamed_from: the whole chain plans as tag updates (moved from ...), applies as three PATCHes, and re-plans clean', async () => {
      const { emu, file, run } = await applied();
      writeFileSync(file, chain('b', { top: 'renamed_from: a\n' }));
      const plan = await run(['plan', file]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain('   ~ cloud_network.net (moved from a/cloud_network.net)\n');
      expect(plan.stdout).toContain('   ~ cloud_subnet.subnet (moved from a/cloud_subnet.subnet)\n');
      expect(plan.stdout).toContain('   ~ cloud_instance.vm (moved from a/cloud_instance.vm)\n');
      expect(plan.stdout).toContain('Plan: 0 to add, 3 to change, 0 to destroy.');
      const apply = await run(['apply', file, '--auto-approve']);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      expect(
        writesSeen(emu)
          .map((w) => w.replace(/[0-9a-f-]{36}/g, 'ID'))
          .sort(),
      ).toEqual(['PATCH /cloud/v1/instances/1/76/ID', 'PATCH /cloud/v1/networks/1/76/ID', 'PATCH /cloud/v1/subnets/1/76/ID'].sort());
      expect(ownersOf(emu)).toEqual(['b/cloud_network.net', 'b/cloud_subnet.subnet', 'b/cloud_instance.vm']);
      const again = await run(['plan', file, '--detailed-exitcode']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
    });

    it('moved_from on every block of the chain (renamed blocks, references to the new names), with prune: true: tag updates only, nothing pruned, then no changes', async () => {
      const { emu, file, run } = await applied();
      const names = { net: 'network', subnet: 'app', vm: 'web' };
      writeFileSync(
        file,
        chain('a', {
          top: 'prune: true\n',
          names,
          extra: { net: '    moved_from: cloud_network.net\n', subnet: '    moved_from: cloud_subnet.subnet\n', vm: '    moved_from: cloud_instance.vm\n' },
        }),
      );
      const plan = await run(['plan', file]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain('   ~ cloud_subnet.app (moved from a/cloud_subnet.subnet)\n');
      expect(plan.stdout).toContain('Plan: 0 to add, 3 to change, 0 to destroy.');
      const apply = await run(['apply', file, '--auto-approve']);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      expect(writesSeen(emu).every((w) => w.startsWith('PATCH '))).toBe(true);
      expect(ownersOf(emu)).toEqual(['a/cloud_network.network', 'a/cloud_subnet.app', 'a/cloud_instance.web']);
      expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    });

    it('a saved plan of the renamed chain applies as it was reviewed; an edited one is refused', async () => {
      const { emu, file, run } = await applied();
      writeFileSync(file, chain('b', { top: 'renamed_from: a\n' }));
      const dir = join(file, '..');
      const saved = await runCliInProcess(['plan', 'stack.yaml', '--out', 'plan.json'], { env: emulatorEnv(emu), cwd: dir });
      expect(saved.code, saved.stdout + saved.stderr).toBe(0);
      const document = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { resource_changes: { address: string; moved_from?: string }[] };
      document.resource_changes.find((c) => c.address === 'cloud_subnet.subnet')!.moved_from = 'a/cloud_subnet.other';
      writeFileSync(join(dir, 'edited.json'), JSON.stringify(document));
      expect((await runCliInProcess(['apply', 'edited.json'], { env: emulatorEnv(emu), cwd: dir })).code).toBe(1);
      expect(writesSeen(emu)).toEqual([]);
      const apply = await runCliInProcess(['apply', 'plan.json'], { env: emulatorEnv(emu), cwd: dir });
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      expect(ownersOf(emu)).toEqual(['b/cloud_network.net', 'b/cloud_subnet.subnet', 'b/cloud_instance.vm']);
      expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    });

    it('a move with a field that cannot change in place is one plan error at that field, whose hint names only fields the block has', async () => {
      const { file, run } = await applied();
      writeFileSync(file, chain('b', { top: 'renamed_from: a\n', cidr: '10.0.1.0/24' }));
      const plan = await run(['plan', file]);
      expect(plan.code, plan.stdout).toBe(1);
      const text = plan.stdout + plan.stderr;
      expect(text).toMatch(/stack\.yaml:13:11: error: cloud_subnet\.subnet: moved from a\/cloud_subnet\.subnet, but cidr cannot change in place: move it first, then change it/);
      expect(text).toContain('Apply the move alone (with cidr as the resource has it), then change it in another apply.');
      expect(text).not.toMatch(/subnet_id|instance_id|network_id of/);
      expect(text).toContain('1 error,');
    });

    it('a stack that shares an address with an unrelated one is asked once, as a possibility, whether it was renamed; a chain of three is asked once too', async () => {
      const { file, run } = await applied();
      const other = join(file, '..', 'other.yaml');
      writeFileSync(other, chain('c'));
      const plan = await run(['plan', other]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      const warnings = (plan.stdout + plan.stderr).match(/warning: .*/g) ?? [];
      expect(warnings).toEqual([
        'warning: 3 blocks would be created (cloud_network.net, cloud_subnet.subnet, cloud_instance.vm), and stack "a" holds resources at the same addresses: was this stack renamed from "a"?',
      ]);
      expect(plan.stdout + plan.stderr).toContain('Unrelated stacks may use the same addresses; then nothing needs to change.');
    });
  });
});
