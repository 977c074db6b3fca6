import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * prune: true for the CDN kinds through the CLI against the emulator: the rules of a resource
 * the stack declares that no block declares, and the resources carrying the stack's mark that no
 * block declares, are destroyed (each deactivated first); nothing else is touched (a resource
 * without the mark, with another stack's, with a mark edited by hand, the rules of a resource
 * the stack does not declare, origin groups, which have no description to carry a mark).
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

const FIXTURES = {
  cdn_origin_groups: [
    { id: 10, name: 'shop-origins', sources: [{ source: 'origin.shop.example' }] },
    { id: 11, name: 'stray-origins', sources: [{ source: 'stray.shop.example' }] },
  ],
  cdn_resources: [
    // Declared by cname: its undeclared rules are pruned.
    { id: 100, cname: 'shop.example.com', originGroup: 10, description: 'Shop [edgeform:shop]' },
    // This stack's mark, no block: pruned (deactivated first), its rule with it.
    { id: 101, cname: 'old.example.com', originGroup: 11, description: 'Old site [edgeform:shop]' },
    // The mark edited by hand (text after it), another stack's mark, no mark: left alone.
    { id: 102, cname: 'edited.example.com', originGroup: 11, description: 'Edited [edgeform:shop] by ops' },
    { id: 103, cname: 'blog.example.com', originGroup: 11, description: 'Blog [edgeform:blog]' },
    { id: 104, cname: 'plain.example.com', originGroup: 11, description: 'Plain' },
    // Declared by resource_id, no mark: its undeclared rule is pruned all the same.
    { id: 105, cname: 'api.example.com', originGroup: 10, description: 'API' },
    // This stack's mark, already inactive: pruned without a deactivation.
    { id: 106, cname: 'idle.example.com', originGroup: 11, active: false, description: '[edgeform:shop]' },
  ],
  cdn_rules: [
    { id: 1, resource: 100, name: 'images', rule: '/images/.*' },
    { id: 2, resource: 100, name: 'legacy', rule: '/legacy/.*' },
    { id: 3, resource: 100, name: 'idle', rule: '/idle/.*', active: false },
    { id: 4, resource: 101, name: 'old-rule', rule: '/old/.*' },
    { id: 5, resource: 103, name: 'blog-rule', rule: '/blog/.*' },
    { id: 6, resource: 104, name: 'plain-rule', rule: '/plain/.*' },
    { id: 7, resource: 105, name: 'stale', rule: '/v1/.*' },
    // The name of a rule block of another resource: still undeclared here.
    { id: 9, resource: 105, name: 'images', rule: '/v1/images/.*' },
  ],
};

const STACK = `version: 1
name: shop
prune: true
resources:
  origins: { type: cdn_origin_group, name: shop-origins }
  site: { type: cdn_resource, cname: shop.example.com }
  api: { type: cdn_resource, resource_id: 105, cname: api.example.com }
  images: { type: cdn_rule, resource_id: "\${cdn_resource.site.id}", name: images }
  fresh: { type: cdn_resource, cname: new.example.com, origin_group: "\${cdn_origin_group.origins.id}" }
`;

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

const stackIn = (text: string) => join(writeStackFiles({ 'stack.yaml': text }), 'stack.yaml');
const readsSince = (from: number) =>
  emu!.requests
    .slice(from)
    .filter((r) => r.method === 'GET')
    .map((r) => r.path);

describe('prune: true with CDN kinds', () => {
  it("plans first the undeclared rules of the stack's resources and the resources carrying its mark, applies them (deactivated first), and plans no changes after", async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const file = stackIn(STACK);

    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', file], { env });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 6 to destroy.');
    const listed = planned.stdout.split('\n').filter((l) => /^ {3}[-+~] cdn_/.test(l));
    expect(listed.slice(0, 7)).toEqual([
      '   - cdn_resource.old.example.com (pruned) (deactivates first)',
      '   - cdn_resource.idle.example.com (pruned)',
      '   - cdn_rule.100/2 (pruned) (deactivates first)',
      '   - cdn_rule.100/3 (pruned)',
      '   - cdn_rule.105/7 (pruned) (deactivates first)',
      '   - cdn_rule.105/9 (pruned) (deactivates first)',
      '   + cdn_resource.fresh',
    ]);
    expect(planned.stdout).toContain('# no block declares it, and it is a rule ("legacy") of cdn_resource.site, which this stack declares (prune: true)');
    expect(planned.stdout).toContain('# no block declares it, and it is a rule ("stale") of cdn_resource.api, which this stack declares (prune: true)');
    expect(planned.stdout).toContain("# no block declares it, and its description carries this stack's mark [edgeform:shop] (prune: true); its rules go with it");
    // One list of the account's resources (the reads' page, not fetched again for prune), one
    // rule list per declared resource that exists, none for the resource still to be created.
    const reads = readsSince(from);
    expect(reads.filter((p) => p.startsWith('/cdn/resources') && !p.includes('/rules'))).toEqual(['/cdn/resources']);
    expect(reads.filter((p) => p.includes('/rules')).sort()).toEqual(['/cdn/resources/100/rules', '/cdn/resources/105/rules']);

    const writesFrom = writesSeen(emu).length;
    const applied = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    const writes = writesSeen(emu).slice(writesFrom);
    // Each active one deactivated, then deleted; the inactive ones deleted at once.
    for (const path of ['/cdn/resources/101', '/cdn/resources/100/rules/2', '/cdn/resources/105/rules/7', '/cdn/resources/105/rules/9']) {
      expect(writes.indexOf(`PATCH ${path}`), writes.join('\n')).toBeGreaterThanOrEqual(0);
      expect(writes.indexOf(`PATCH ${path}`)).toBeLessThan(writes.indexOf(`DELETE ${path}`));
    }
    for (const path of ['/cdn/resources/106', '/cdn/resources/100/rules/3']) {
      expect(writes).toContain(`DELETE ${path}`);
      expect(writes).not.toContain(`PATCH ${path}`);
    }
    expect(writes.filter((w) => !w.startsWith('POST')).sort()).toEqual(
      [
        'PATCH /cdn/resources/101',
        'DELETE /cdn/resources/101',
        'DELETE /cdn/resources/106',
        'PATCH /cdn/resources/100/rules/2',
        'DELETE /cdn/resources/100/rules/2',
        'DELETE /cdn/resources/100/rules/3',
        'PATCH /cdn/resources/105/rules/7',
        'DELETE /cdn/resources/105/rules/7',
        'PATCH /cdn/resources/105/rules/9',
        'DELETE /cdn/resources/105/rules/9',
      ].sort(),
    );
    expect(writes.filter((w) => w.startsWith('POST'))).toEqual(['POST /cdn/resources']);
    // The pruned resource's rule went with it; everything else stands.
    const created = [...emu.state.cdnResources.values()].find((r) => r.cname === 'new.example.com')!;
    expect(created.description).toBe('[edgeform:shop]');
    expect([...emu.state.cdnResources.keys()].sort()).toEqual([100, 102, 103, 104, 105, created.id]);
    expect([...emu.state.cdnRules.keys()].sort()).toEqual([1, 5, 6]);
    expect([...emu.state.cdnOriginGroups.keys()].sort()).toEqual([10, 11]);

    // The resource created carries the mark, and is declared: nothing more to prune.
    const again = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toContain('No changes');
  });

  it('drift reports each with its reason and exits 2; without prune: true nothing is listed or pruned', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const drift = await runCliInProcess(['drift', stackIn(STACK), '--format', 'json'], { env });
    expect(drift.code, output(drift)).toBe(2);
    const report = JSON.parse(drift.stdout) as { drifted: Array<{ address: string; kind: string; message: string }> };
    const unmanaged = report.drifted.filter((d) => d.kind === 'unmanaged');
    expect(unmanaged.map((d) => d.address)).toEqual([
      'cdn_resource.old.example.com',
      'cdn_resource.idle.example.com',
      'cdn_rule.100/2',
      'cdn_rule.100/3',
      'cdn_rule.105/7',
      'cdn_rule.105/9',
    ]);
    expect(unmanaged[2]!.message).toBe('no block declares it, and it is a rule ("legacy") of cdn_resource.site, which this stack declares (prune: true); apply would prune it');
    expect(unmanaged[0]!.message).toBe(
      "no block declares it, and its description carries this stack's mark [edgeform:shop] (prune: true); its rules go with it; apply would prune it",
    );

    const from = emu.requests.length;
    const plain = await runCliInProcess(['plan', stackIn(STACK.replace('prune: true\n', ''))], { env });
    expect(plain.code, output(plain)).toBe(0);
    expect(plain.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    // Only the rule block's resource has its rules listed (for the block), the other not at all.
    expect(readsSince(from).filter((p) => p.includes('/rules'))).toEqual(['/cdn/resources/100/rules']);
  });

  it('a resource declared with ensure: absent is destroyed by its block, its rules with it, none of them pruned one by one; a rule list read for blocks is not read again for prune', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const file = stackIn(`version: 1
name: shop
prune: true
resources:
  site: { type: cdn_resource, cname: shop.example.com, ensure: absent }
  old: { type: cdn_resource, cname: old.example.com }
  old_rule: { type: cdn_rule, resource_id: 101, name: old-rule }
  idle: { type: cdn_resource, cname: idle.example.com }
  api: { type: cdn_resource, resource_id: 105, cname: api.example.com }
  stale: { type: cdn_rule, resource_id: 105, name: stale }
  images_v1: { type: cdn_rule, resource_id: 105, name: images }
`);
    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(planned.code, output(planned)).toBe(2);
    expect(planned.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
    expect(planned.stdout).toContain('- cdn_resource.site (deactivates first)');
    expect(planned.stdout).not.toContain('(pruned)');
    // One rule list per declared resource that stays (101 and 105 also read for their rule blocks), none for the one destroyed.
    expect(
      readsSince(from)
        .filter((p) => p.includes('/rules'))
        .sort(),
    ).toEqual(['/cdn/resources/101/rules', '/cdn/resources/105/rules', '/cdn/resources/106/rules']);
  });

  it('apply of a saved plan (--out, then apply PLANFILE) prunes what the plan listed', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const file = stackIn(STACK);
    const saved = join(file, '..', 'plan.json');
    const planned = await runCliInProcess(['plan', file, '--out', saved], { env });
    expect(planned.code, output(planned)).toBe(0);
    const applied = await runCliInProcess(['apply', saved, '--stack', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    expect([...emu.state.cdnRules.keys()].sort()).toEqual([1, 5, 6]);
    expect(emu.state.cdnResources.has(101)).toBe(false);
    expect(emu.state.cdnResources.has(106)).toBe(false);
  });

  it('never prunes a rule that a block names when that block cannot be read (two rules of its name), in its resource nor, its resource a reference, in another', async () => {
    emu = await startTestEmulator({ fixtures: { ...FIXTURES, cdn_rules: [...FIXTURES.cdn_rules, { id: 8, resource: 100, name: 'images', rule: '/img/.*' }] } });
    const env = emulatorEnv(emu);
    const drift = await runCliInProcess(['drift', stackIn(STACK), '--format', 'json'], { env });
    expect(drift.code, output(drift)).toBe(1);
    const report = JSON.parse(drift.stdout) as { drifted: Array<{ address: string; kind: string }>; errors: Array<{ summary: string }> };
    expect(report.errors.map((e) => e.summary).join('\n')).toContain('cdn_rule.images');
    expect(report.drifted.filter((d) => d.kind === 'unmanaged').map((d) => d.address)).toEqual([
      'cdn_resource.old.example.com',
      'cdn_resource.idle.example.com',
      'cdn_rule.100/2',
      'cdn_rule.100/3',
      'cdn_rule.105/7',
    ]);
  });

  it('destroys a pruned resource and a pruned rule before the origin group they use when the stack deletes it (the platform refuses a group in use)', async () => {
    emu = await startTestEmulator({
      fixtures: {
        cdn_origin_groups: [
          { id: 12, name: 'gone-origins', sources: [{ source: 'gone.shop.example' }] },
          { id: 13, name: 'kept-origins', sources: [{ source: 'kept.shop.example' }] },
        ],
        cdn_resources: [
          { id: 110, cname: 'gone.example.com', originGroup: 12, description: '[edgeform:shop]' },
          { id: 111, cname: 'keep.example.com', originGroup: 13, description: 'Kept' },
        ],
        cdn_rules: [{ id: 20, resource: 111, name: 'via-gone', rule: '/gone/.*', originGroup: 12 }],
      },
    });
    const env = emulatorEnv(emu);
    const file = stackIn(`version: 1
name: shop
prune: true
resources:
  gone: { type: cdn_origin_group, name: gone-origins, ensure: absent }
  keep: { type: cdn_resource, cname: keep.example.com }
`);
    const saved = join(file, '..', 'plan.json');
    const planned = await runCliInProcess(['plan', file, '--out', saved], { env });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('- cdn_resource.gone.example.com (pruned) (deactivates first)');
    expect(planned.stdout).toContain('- cdn_rule.111/20 (pruned) (deactivates first)');
    const writesFrom = writesSeen(emu).length;
    const applied = await runCliInProcess(['apply', saved, '--stack', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    const writes = writesSeen(emu).slice(writesFrom);
    expect(writes.at(-1)).toBe('DELETE /cdn/origin_groups/12');
    expect(writes.slice(0, -1).sort()).toEqual(
      ['PATCH /cdn/resources/110', 'DELETE /cdn/resources/110', 'PATCH /cdn/resources/111/rules/20', 'DELETE /cdn/resources/111/rules/20'].sort(),
    );
    expect([...emu.state.cdnOriginGroups.keys()]).toEqual([13]);
  });

  it('a stack without CDN blocks sends the CDN no request and prunes none of the resources carrying its mark', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const from = emu.requests.length;
    const planned = await runCliInProcess(
      ['plan', stackIn('version: 1\nname: shop\nprune: true\nresources:\n  zone: { type: dns_zone, name: shop.example, ensure: absent }\n'), '--detailed-exitcode'],
      {
        env,
      },
    );
    expect(planned.code, output(planned)).toBe(0);
    expect(emu.requests.slice(from).filter((r) => r.path.startsWith('/cdn'))).toEqual([]);
  });
});
