import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen, useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { closeAfterEach, DEMO, floatingIpTags, seedFloatingIp, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { createOwnerSeal } from '../../../src/kinds/owner-seal.js';

const LIST = '/cloud/v1/floatingips/1/76';
/** Distinctive keys, so that any trace of them in any output is found. */
const KEY = 'Owner-Key+distinctive/0042ZZqq';
const OLD = 'Old-Owner-Key+distinctive/0099YY';

const stackYaml = (blocks: string, top = 'name: prod\nprune: true') => `version: 1
${top}
defaults: { project_id: 1, region_id: 76 }
resources:
${blocks}`;
const WEB = `  web_ip:
    type: cloud_floating_ip
    tags: { env: prod }
`;
const markOf = (address: string, key = KEY) => createOwnerSeal(key).mark({ type: 'cloud_floating_ip', stack: 'prod', address, identity: '1/76' })!;

describe('owner marks on cloud resources: prune proves ownership with EDGEFORM_OWNER_KEY', () => {
  const start = useCliEmulators();
  const tagsOf = floatingIpTags;
  const seed = seedFloatingIp;
  /** Writes tags on an existing floating IP by hand (the platform's PATCH), as someone with a tag editor would. */
  async function retag(e: TestEmulator, id: string, tags: Record<string, string>): Promise<void> {
    await e.call('PATCH', `/cloud/v2/floatingips/1/76/${id}`, { body: { tags } });
  }
  const stackFile = (yaml: string) => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');

  it('a create writes the mark in the create request; prune destroys what carries a valid one', async () => {
    const { emu, env } = await start();
    const keyed = { ...env, EDGEFORM_OWNER_KEY: KEY };
    const both = stackFile(stackYaml(`${WEB}  old_ip:\n    type: cloud_floating_ip\n`));
    const plan = await runCliInProcess(['plan', both], { env: keyed });
    expect(plan.stdout).toContain('and an owner mark (edgeform-mark, made with EDGEFORM_OWNER_KEY)');
    expect((await runCliInProcess(['apply', both, '--auto-approve'], { env: keyed })).code).toBe(0);
    const byAddress = (address: string) => [...emu.state.floatingIps.values()].find((f) => f.tags.some((t) => t.key === 'edgeform-address' && t.value === address))!.id;
    const old = byAddress('cloud_floating_ip.old_ip');
    expect(tagsOf(emu, old)).toEqual({ 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.old_ip', 'edgeform-mark': markOf('cloud_floating_ip.old_ip') });

    const one = stackFile(stackYaml(WEB));
    const again = await runCliInProcess(['plan', one, '--detailed-exitcode'], { env: keyed });
    expect(again.code).toBe(2);
    expect(again.stdout).toContain('- cloud_floating_ip.old_ip (pruned)');
    expect(again.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
    expect((await runCliInProcess(['apply', one, '--auto-approve'], { env: keyed })).code).toBe(0);
    expect(emu.state.floatingIps.has(old)).toBe(false);
    expect(emu.state.floatingIps.has(byAddress('cloud_floating_ip.web_ip'))).toBe(true);
  });

  it('never prunes forged ownership tags (none, or a made-up mark) or a copied mark; plan warns and drift reports each', async () => {
    const { emu, env } = await start();
    const keyed = { ...env, EDGEFORM_OWNER_KEY: KEY };
    const stack = stackFile(stackYaml(WEB));
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: keyed })).code).toBe(0);
    // A colleague with a tag editor: the two tags by hand, a made-up mark, and a valid mark copied from
    // another resource (the one this stack owns at cloud_floating_ip.web_ip) onto DEMO.fip with another address.
    const bare = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.gone' });
    const madeUp = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.gone2', 'edgeform-mark': 'v1.AAAAAAAAAAAAAAAAAAAAAA' });
    await retag(emu, DEMO.fip, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.victim', 'edgeform-mark': markOf('cloud_floating_ip.web_ip') });
    // And the whole ownership of a resource the stack pruned copied onto two: one address, two resources.
    const twinA = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.twin', 'edgeform-mark': markOf('cloud_floating_ip.twin') });
    const twinB = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.twin', 'edgeform-mark': markOf('cloud_floating_ip.twin') });
    const before = writesSeen(emu).length;

    const plan = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: keyed });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes');
    const warnings = plan.stdout + plan.stderr;
    expect(warnings).toContain(
      'prune: cloud_floating_ip.gone (cloud_floating_ip "' +
        bare +
        '") names stack "prod", but carries no owner mark (tag edgeform-mark) although EDGEFORM_OWNER_KEY is set: it was made before the key was set, or marked by hand; it is left alone',
    );
    expect(warnings).toContain(`prune: cloud_floating_ip.gone2 (cloud_floating_ip "${madeUp}") names stack "prod", but its owner mark (tag edgeform-mark) does not verify`);
    expect(warnings).toContain(`prune: cloud_floating_ip.victim (cloud_floating_ip "${DEMO.fip}") names stack "prod", but its owner mark (tag edgeform-mark) does not verify`);
    for (const twin of [twinA, twinB])
      expect(warnings).toContain(`prune: cloud_floating_ip.twin (cloud_floating_ip "${twin}") names stack "prod", but it carries the same ownership`);

    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env: keyed });
    expect(applied.code, applied.stderr).toBe(0);
    for (const id of [bare, madeUp, DEMO.fip, twinA, twinB]) expect(emu.state.floatingIps.has(id)).toBe(true);
    expect(writesSeen(emu).length).toBe(before);

    for (const format of ['text', 'json']) {
      const drift = await runCliInProcess(['drift', stack, '--format', format], { env: keyed });
      expect(drift.code, drift.stderr).toBe(2);
      for (const address of ['gone', 'gone2', 'victim', 'twin']) expect(drift.stdout).toContain(`cloud_floating_ip.${address}`);
      if (format === 'json') {
        const report = JSON.parse(drift.stdout) as { drifted: Array<{ address: string; kind: string }>; errors: unknown[] };
        expect(report.drifted.map((d) => `${d.kind} ${d.address}`).sort()).toEqual([
          'unproven cloud_floating_ip.gone',
          'unproven cloud_floating_ip.gone2',
          'unproven cloud_floating_ip.twin',
          'unproven cloud_floating_ip.twin',
          'unproven cloud_floating_ip.victim',
        ]);
        expect(report.errors).toEqual([]);
      }
    }
  });

  it('without the key, prune is as before: ownership tags alone are enough (the weaker mode)', async () => {
    const { emu, env } = await start();
    const bare = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.gone' });
    const madeUp = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.gone2', 'edgeform-mark': 'v1.AAAAAAAAAAAAAAAAAAAAAA' });
    const stack = stackFile(stackYaml(WEB));
    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.stdout).toContain('- cloud_floating_ip.gone (pruned)');
    expect(plan.stdout).toContain('- cloud_floating_ip.gone2 (pruned)');
    expect(plan.stdout).not.toContain('edgeform-mark');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(0);
    expect(emu.state.floatingIps.has(bare)).toBe(false);
    expect(emu.state.floatingIps.has(madeUp)).toBe(false);
    const [web] = [...emu.state.floatingIps.values()].filter((f) => f.tags.some((t) => t.key === 'edgeform-stack'));
    expect(Object.keys(tagsOf(emu, web!.id)).sort()).toEqual(['edgeform-address', 'edgeform-stack', 'env']);
  });

  it('refuses to take a resource found by its tags whose mark does not verify: neither adopted nor re-marked', async () => {
    const { emu, env } = await start();
    const forged = await seed(emu, { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web_ip', 'edgeform-mark': markOf('cloud_floating_ip.web_ip', OLD) });
    const plan = await runCliInProcess(['plan', stackFile(stackYaml(WEB))], { env: { ...env, EDGEFORM_OWNER_KEY: KEY } });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `cloud_floating_ip.web_ip: cloud_floating_ip "${forged}" carries this stack's ownership tags, but its owner mark does not verify with EDGEFORM_OWNER_KEY`,
    );
    expect(plan.stdout).toContain('set EDGEFORM_OWNER_KEY_PREVIOUS to that key');
    expect(writesSeen(emu)).toEqual([`POST ${LIST}`]);
  });

  it('rotates the key: with the previous key beside the new one, one apply re-makes every mark; setting a key first marks what the stack holds', async () => {
    const { emu, env } = await start();
    const stack = stackFile(stackYaml(WEB));
    // Made without a key: no mark.
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(0);
    const [web] = [...emu.state.floatingIps.values()].filter((f) => f.tags.some((t) => t.key === 'edgeform-stack'));
    const id = web!.id;

    const first = await runCliInProcess(['apply', stack, '--auto-approve'], { env: { ...env, EDGEFORM_OWNER_KEY: OLD } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('the owner mark (edgeform-mark) is re-made with EDGEFORM_OWNER_KEY (it had none)');
    expect(tagsOf(emu, id)['edgeform-mark']).toBe(markOf('cloud_floating_ip.web_ip', OLD));

    // The new key alone does not verify the old mark: a plan error names the way out.
    const refused = await runCliInProcess(['plan', stack], { env: { ...env, EDGEFORM_OWNER_KEY: KEY } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('EDGEFORM_OWNER_KEY_PREVIOUS');

    const rotating = { ...env, EDGEFORM_OWNER_KEY: KEY, EDGEFORM_OWNER_KEY_PREVIOUS: OLD };
    const plan = await runCliInProcess(['plan', stack], { env: rotating });
    expect(plan.stdout).toContain('~ cloud_floating_ip.web_ip');
    expect(plan.stdout).toContain('the owner mark (edgeform-mark) is re-made with EDGEFORM_OWNER_KEY (it was made with EDGEFORM_OWNER_KEY_PREVIOUS)');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: rotating })).code).toBe(0);
    expect(tagsOf(emu, id)['edgeform-mark']).toBe(markOf('cloud_floating_ip.web_ip'));
    const done = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: { ...env, EDGEFORM_OWNER_KEY: KEY } });
    expect(done.code, done.stdout + done.stderr).toBe(0);
  });

  it('a move (moved_from) rewrites the mark with the ownership tags, so the moved resource stays provably the stack’s', async () => {
    const { emu, env } = await start();
    const keyed = { ...env, EDGEFORM_OWNER_KEY: KEY };
    expect((await runCliInProcess(['apply', stackFile(stackYaml(WEB)), '--auto-approve'], { env: keyed })).code).toBe(0);
    const [web] = [...emu.state.floatingIps.values()].filter((f) => f.tags.some((t) => t.key === 'edgeform-stack'));
    const moved = stackFile(stackYaml(`  api_ip:\n    type: cloud_floating_ip\n    tags: { env: prod }\n    moved_from: cloud_floating_ip.web_ip\n`));
    const applied = await runCliInProcess(['apply', moved, '--auto-approve'], { env: keyed });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('(moved from prod/cloud_floating_ip.web_ip)');
    expect(tagsOf(emu, web!.id)).toEqual({
      env: 'prod',
      'edgeform-stack': 'prod',
      'edgeform-address': 'cloud_floating_ip.api_ip',
      'edgeform-mark': markOf('cloud_floating_ip.api_ip'),
    });
    const again = await runCliInProcess(['plan', moved, '--detailed-exitcode'], { env: keyed });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('never prints the owner keys, and refuses a stack that reads one', async () => {
    const { emu, env } = await start();
    const rotating = { ...env, EDGEFORM_OWNER_KEY: KEY, EDGEFORM_OWNER_KEY_PREVIOUS: OLD, EDGEFORM_LOG: 'trace' };
    // The platform echoes both keys (someone pasted them into tags), which the plan shows being removed.
    await retag(emu, DEMO.fip, { note: `new ${KEY}`, memo: `old ${OLD}` });
    const dir = writeStackFiles({ 'stack.yaml': stackYaml(`${WEB}  demo_ip:\n    type: cloud_floating_ip\n    floating_ip_id: ${DEMO.fip}\n    tags: { env: prod }\n`) });
    const outputs: string[] = [];
    for (const args of [
      ['plan', 'stack.yaml'],
      ['plan', 'stack.yaml', '--format', 'json'],
      ['plan', 'stack.yaml', '--format', 'markdown'],
      ['apply', 'stack.yaml', '--auto-approve'],
      ['drift', 'stack.yaml', '--format', 'json'],
    ]) {
      const run = await runCliInProcess(args, { env: rotating, cwd: dir });
      expect(run.code, `${args.join(' ')}: ${run.stdout.slice(-1500)} ${run.stderr.slice(-3000)}`).toBe(0);
      outputs.push(run.stdout, run.stderr);
    }
    for (const i of [0, 2, 4, 6]) {
      expect(outputs[i]).toContain('new [REDACTED]');
      expect(outputs[i]).toContain('old [REDACTED]');
    }
    for (const text of outputs) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(OLD);
    }
    // A stack that would put a key into a value, by reference or by copy, is refused where it stands.
    writeFileSync(join(dir, 'stack.yaml'), stackYaml(`  web_ip:\n    type: cloud_floating_ip\n    tags:\n      env: \${env:EDGEFORM_OWNER_KEY}\n      team: "${KEY}"\n`));
    const refused = await runCliInProcess(['validate', 'stack.yaml'], { env: rotating, cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stack.yaml:9:12: error: ${env:EDGEFORM_OWNER_KEY} would put the owner key into the stack; a stack never holds secrets');
    expect(refused.stderr).toContain('stack.yaml:10:13: error: this value contains the owner key (the value of EDGEFORM_OWNER_KEY)');
    expect(refused.stdout + refused.stderr).not.toContain(KEY);
  });
});

describe('owner marks on CDN resources: the description mark carries a keyed hash of the stack and the cname', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);
  const cdnMark = (cname: string, key = KEY) => createOwnerSeal(key).mark({ type: 'cdn_resource', stack: 'shop', address: '', identity: cname })!;
  const FIXTURES = {
    cdn_origin_groups: [{ id: 10, name: 'shop-origins', sources: [{ source: 'origin.shop.example' }] }],
    cdn_resources: [
      // A valid mark, no block: pruned.
      { id: 101, cname: 'old.example.com', originGroup: 10, active: false, description: `Old [edgeform:shop:${cdnMark('old.example.com')}]` },
      // A mark written by hand, a made-up owner mark, a valid one copied from old.example.com: left alone.
      { id: 102, cname: 'bare.example.com', originGroup: 10, active: false, description: 'Bare [edgeform:shop]' },
      { id: 103, cname: 'madeup.example.com', originGroup: 10, active: false, description: 'Made up [edgeform:shop:v1.AAAAAAAAAAAAAAAAAAAAAA]' },
      { id: 104, cname: 'copied.example.com', originGroup: 10, active: false, description: `Copied [edgeform:shop:${cdnMark('old.example.com')}]` },
      // Declared, marked with the previous key: re-marked by the next apply.
      { id: 105, cname: 'site.example.com', originGroup: 10, description: `Site [edgeform:shop:${cdnMark('site.example.com', OLD)}]` },
    ],
  };
  const STACK = `version: 1
name: shop
prune: true
resources:
  site: { type: cdn_resource, cname: site.example.com, description: Site }
  fresh: { type: cdn_resource, cname: new.example.com, origin_group: 10 }
`;
  const descriptionOf = (e: TestEmulator, id: number) => e.state.cdnResources.get(id)?.description;
  const created = (e: TestEmulator) => [...e.state.cdnResources.values()].find((r) => r.cname === 'new.example.com');

  it('prunes only a valid mark, re-makes one of the previous key, marks a create, and drift reports the forged and the copied', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = { ...emulatorEnv(emu), EDGEFORM_OWNER_KEY: KEY, EDGEFORM_OWNER_KEY_PREVIOUS: OLD };
    const file = join(writeStackFiles({ 'stack.yaml': STACK }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', file], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('- cdn_resource.old.example.com (pruned)');
    for (const cname of ['bare', 'madeup', 'copied']) expect(plan.stdout).not.toContain(`- cdn_resource.${cname}.example.com`);
    expect(plan.stdout).toContain('prune: cdn_resource.bare.example.com (cdn_resource 102) names stack "shop", but carries no owner mark (in the description)');
    expect(plan.stdout).toContain('prune: cdn_resource.madeup.example.com (cdn_resource 103) names stack "shop", but its owner mark (in the description) does not verify');
    expect(plan.stdout).toContain('prune: cdn_resource.copied.example.com (cdn_resource 104) names stack "shop", but its owner mark (in the description) does not verify');
    expect(plan.stdout).toContain("the owner mark in the description's stack mark is re-made with EDGEFORM_OWNER_KEY (it was made with EDGEFORM_OWNER_KEY_PREVIOUS)");
    expect(plan.stdout).toContain('Plan: 1 to add, 1 to change, 1 to destroy.');

    const applied = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(descriptionOf(emu, 101)).toBeUndefined();
    for (const id of [102, 103, 104]) expect(emu.state.cdnResources.has(id)).toBe(true);
    expect(descriptionOf(emu, 105)).toBe(`Site [edgeform:shop:${cdnMark('site.example.com')}]`);
    expect(created(emu)?.description).toBe(`[edgeform:shop:${cdnMark('new.example.com')}]`);

    const drift = await runCliInProcess(['drift', file, '--format', 'json'], { env: { ...env, EDGEFORM_OWNER_KEY_PREVIOUS: '' } });
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout) as { drifted: Array<{ address: string; kind: string }> };
    expect(report.drifted.map((d) => `${d.kind} ${d.address}`)).toEqual([
      'unproven cdn_resource.bare.example.com',
      'unproven cdn_resource.madeup.example.com',
      'unproven cdn_resource.copied.example.com',
    ]);
  });

  it('refuses a declared resource whose mark of this stack does not verify, and without the key prunes by the stack mark alone', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const file = join(writeStackFiles({ 'stack.yaml': STACK }), 'stack.yaml');
    const refused = await runCliInProcess(['plan', file], { env: { ...emulatorEnv(emu), EDGEFORM_OWNER_KEY: KEY } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("cdn_resource.site: CDN resource 105 carries this stack's mark [edgeform:shop], but its owner mark does not verify with EDGEFORM_OWNER_KEY");

    const unkeyed = await runCliInProcess(['apply', file, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(unkeyed.code, unkeyed.stdout + unkeyed.stderr).toBe(0);
    for (const id of [101, 102, 103, 104]) expect(emu.state.cdnResources.has(id)).toBe(false);
    // The description keeps the owner mark it has; the created resource gets none.
    expect(descriptionOf(emu, 105)).toBe(`Site [edgeform:shop:${cdnMark('site.example.com', OLD)}]`);
    expect(created(emu)?.description).toBe('[edgeform:shop]');
  });
});
