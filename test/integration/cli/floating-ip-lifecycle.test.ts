import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../../src/emulator/index.js';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, floatingIpTags, seedFloatingIp, startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { example } from '../../helpers/demo-stacks.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const LIST = '/cloud/v1/floatingips/1/76';

/** A stack named "prod" with one floating IP block without id (created and found by its ownership tags). */
const stackYaml = (block: string, top = 'name: prod') => `version: 1
${top}
defaults: { project_id: 1, region_id: 76 }
resources:
${block}`;
const WEB = (fields = 'tags: { env: prod }') => `  web_ip:
    type: cloud_floating_ip
    ${fields}
`;

describe('cloud_floating_ip through the CLI: create, adopt by tags, update, destroy, prune', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  async function start(options: EmulatorOptions = {}): Promise<{ emu: TestEmulator; env: Record<string, string> }> {
    emu = await startTestEmulator({ taskDurationMs: 0, ...options });
    return { emu, env: emulatorEnv(emu) };
  }
  const owned = (e: TestEmulator, address = 'cloud_floating_ip.web_ip', stack = 'prod') =>
    [...e.state.floatingIps.values()].filter(
      (f) => f.tags.some((t) => t.key === 'edgeform-stack' && t.value === stack) && f.tags.some((t) => t.key === 'edgeform-address' && t.value === address),
    );
  const tagsOf = floatingIpTags;
  const seed = seedFloatingIp;

  it('creates, then plans no changes, updates its tags, and destroys it with ensure: absent', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(WEB()) });
    const stack = join(dir, 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('# cloud_floating_ip.web_ip will be created (to be found by ownership tags of stack "prod")');
    expect(plan.stdout).toContain('+ floating_ip_id: (known after apply)');
    expect(plan.stdout).not.toContain('+ edgeform-');
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    const [fip] = owned(emu);
    expect(owned(emu)).toHaveLength(1);
    expect(tagsOf(emu, fip!.id)).toEqual({ env: 'prod', 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web_ip' });
    expect(created.stdout).toContain(`[id ${fip!.id}, found by ownership tags of stack "prod"]`);
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`]);

    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');

    writeFileSync(stack, stackYaml(WEB('tags: { env: prod, team: edge }')));
    const updated = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('(found by ownership tags of stack "prod")');
    expect(tagsOf(emu, fip!.id)).toEqual({ env: 'prod', team: 'edge', 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web_ip' });

    writeFileSync(stack, stackYaml(WEB('ensure: absent')));
    const destroyed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain('1 destroyed');
    expect(emu.state.floatingIps.has(fip!.id)).toBe(false);
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`, `PATCH /cloud/v2/floatingips/1/76/${fip!.id}`, `DELETE ${LIST}/${fip!.id}`]);

    const gone = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(gone.code).toBe(0);
  });

  it('resumes a create interrupted after its POST: the next apply finds the floating IP by its tags and creates nothing', async () => {
    // The first apply's create task never finishes within its --task-timeout (the emulator's
    // clock stands still), so that apply fails after the platform made the floating IP.
    const { emu, env } = await start({ taskDurationMs: 600_000 });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB()) }), 'stack.yaml');
    const first = await runCliInProcess(['apply', stack, '--auto-approve', '--task-timeout', '300ms'], { env });
    expect(first.code).toBe(1);
    expect(owned(emu)).toHaveLength(1);

    emu.clock.advance(600_000);
    const second = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('No changes');
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`]);
    expect(owned(emu)).toHaveLength(1);
  });

  it('applies a saved plan of a create, and refuses it once the IP exists (the plan is stale)', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(WEB()) });
    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', 'plan.json'], { env, cwd: dir })).code).toBe(0);
    const applied = await runCliInProcess(['apply', 'plan.json'], { env, cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    expect(owned(emu)).toHaveLength(1);
    const again = await runCliInProcess(['apply', 'plan.json'], { env, cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('cloud_floating_ip.web_ip');
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`]);
  });

  it('finishes a create whose answer was lost within the same apply, with one POST', async () => {
    const { emu, env } = await start();
    emu.faults.dropNext({ method: 'POST', path: LIST, when: 'after' });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB()) }), 'stack.yaml');
    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`]);
    expect(owned(emu)).toHaveLength(1);
  });

  it("refuses to plan when two floating IPs carry the block's ownership tags, naming both ids", async () => {
    const { emu, env } = await start();
    const tags = { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web_ip' };
    const a = await seed(emu, tags);
    const b = await seed(emu, tags);
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB()) }), 'stack.yaml');
    const result = await runCliInProcess(['plan', stack], { env });
    expect(result.code).toBe(1);
    const text = `${result.stdout}\n${result.stderr}`;
    expect(text).toContain('2 cloud_floating_ip resources match ownership tags of stack "prod"');
    expect(text).toContain(a);
    expect(text).toContain(b);
    expect(text).toContain('set floating_ip_id in the block to pick one');
  });

  it('prune destroys a floating IP tagged by this stack whose block is gone, and never one without the tags or tagged by another stack', async () => {
    const { emu, env } = await start();
    const old = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.old_ip' });
    const other = await seed(emu, { 'edgeform-stack': 'staging', 'edgeform-address': 'cloud_floating_ip.old_ip' });
    const untagged = await seed(emu, { env: 'prod' });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB(), 'name: prod\nprune: true') }), 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('- cloud_floating_ip.old_ip (pruned)');
    expect(plan.stdout.indexOf('cloud_floating_ip.old_ip')).toBeLessThan(plan.stdout.indexOf('cloud_floating_ip.web_ip'));
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');

    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(emu.state.floatingIps.has(old)).toBe(false);
    for (const kept of [other, untagged, DEMO.fip, DEMO.fipDown]) expect(emu.state.floatingIps.has(kept)).toBe(true);
    expect(owned(emu)).toHaveLength(1);
  });

  it('applies a reviewed plan that prunes: the saved plan is planned again whole, and the tagged IP is destroyed', async () => {
    const { emu, env } = await start();
    const old = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.old_ip' });
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(WEB(), 'name: prod\nprune: true') });
    const planFile = join(dir, 'plan.json');
    const plan = await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--out', planFile], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const applied = await runCliInProcess(['apply', planFile, '--stack', join(dir, 'stack.yaml')], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(emu.state.floatingIps.has(old)).toBe(false);
  });

  it('drift of a stack with prune: true reports a floating IP carrying its tags that no block declares (exit 2)', async () => {
    const { emu, env } = await start();
    await runCliInProcess(['apply', join(writeStackFiles({ 'stack.yaml': stackYaml(WEB()) }), 'stack.yaml'), '--auto-approve'], { env });
    await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.old_ip' });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB(), 'name: prod\nprune: true') }), 'stack.yaml');
    const drift = await runCliInProcess(['drift', stack], { env });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('cloud_floating_ip.old_ip');
    expect(drift.stdout).toContain("carries this stack's ownership tags, but no block declares it");
    expect(drift.stdout).not.toContain('cloud_floating_ip.web_ip');
  });

  it('without prune, a tagged floating IP whose block is gone is left alone', async () => {
    const { emu, env } = await start();
    const old = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.old_ip' });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB()) }), 'stack.yaml');
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(emu.state.floatingIps.has(old)).toBe(true);
  });

  it('applies examples/floating-ips.yaml against the demo world: one floating IP created, then no changes', async () => {
    const { emu, env } = await start();
    const applied = await runCliInProcess(['apply', example('floating-ips.yaml'), '--auto-approve'], { env });
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(owned(emu, 'cloud_floating_ip.api_ip', 'demo')).toHaveLength(1);
    const again = await runCliInProcess(['plan', example('floating-ips.yaml'), '--detailed-exitcode'], { env });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('validate refuses a block without id in a stack without name:, and a block declaring an edgeform-* tag, each at its line and column', async () => {
    const noName = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB(), '') }), 'stack.yaml');
    const first = await runCliInProcess(['validate', noName]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("stack.yaml:5:3: error: cloud_floating_ip.web_ip has no floating_ip_id, so edgeform finds it by ownership tags, which need the stack's name");

    const declared = join(writeStackFiles({ 'stack.yaml': stackYaml(WEB("tags: { env: prod, edgeform-address: 'x' }")) }), 'stack.yaml');
    const second = await runCliInProcess(['validate', declared]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('stack.yaml:7:24: error: invalid key "edgeform-address" in tags');
  });
});
