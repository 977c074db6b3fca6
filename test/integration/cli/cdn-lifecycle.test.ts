import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const EXAMPLE = readFileSync('examples/cdn.yaml', 'utf8');

describe('CDN kinds through the CLI: origin group, resource with options, rules', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('creates examples/cdn.yaml, plans no changes, changes one option, and destroys rules, resource (deactivated first), then the group', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), RELEASE: '41' };
    const dir = writeStackFiles({ 'stack.yaml': EXAMPLE });
    const stack = join(dir, 'stack.yaml');

    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(created.code, created.stderr + created.stdout).toBe(0);
    const [group] = [...emu.state.cdnOriginGroups.values()].filter((g) => g.name === 'cdn-site-origins');
    const [resource] = [...emu.state.cdnResources.values()].filter((r) => r.cname === 'cdn.example.com');
    expect(resource!.originGroup).toBe(group!.id);
    expect(resource!.description).toBe('Static assets of example.com [edgeform:cdn-site] [edgeform-purged:resource=41]');
    expect(resource!.options.gzipOn).toEqual({ enabled: true, value: true });
    const rules = [...emu.state.cdnRules.values()].filter((r) => r.resource === resource!.id);
    expect(rules.map((r) => r.name).sort()).toEqual(['api', 'images']);
    const rulesPath = `/cdn/resources/${resource!.id}/rules`;
    // The Let's Encrypt certificate is created and attached once the resource exists, before its rules.
    expect(writesSeen(emu)).toEqual([
      'POST /cdn/origin_groups',
      'POST /cdn/resources',
      'POST /cdn/sslData',
      `PATCH /cdn/resources/${resource!.id}`,
      `POST ${rulesPath}`,
      `POST ${rulesPath}`,
    ]);
    expect(resource).toMatchObject({ sslEnabled: true, sslData: [...emu.state.cdnCertificates.values()][0]!.id });

    // A plan reads each list once: the group list, the resource list, the one resource's rules.
    const before = emu.requests.length;
    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');
    const reads = emu.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(reads.filter((r) => r.startsWith('GET /cdn/origin_groups'))).toHaveLength(1);
    expect(reads.filter((r) => r.startsWith('GET /cdn/resources') && !r.includes('/rules'))).toHaveLength(1);
    expect(reads.filter((r) => r.startsWith(`GET ${rulesPath}`))).toHaveLength(1);
    expect(reads.filter((r) => r.startsWith('GET /cdn/sslData'))).toHaveLength(1);

    writeFileSync(stack, EXAMPLE.replace('edge_cache_settings: { enabled: true, value: 4d }', 'edge_cache_settings: { enabled: true, value: 7d }'));
    const writes = writesSeen(emu).length;
    const changed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(changed.code, changed.stderr + changed.stdout).toBe(0);
    expect(changed.stdout).toContain('1 changed');
    expect(writesSeen(emu).slice(writes)).toEqual([`PATCH /cdn/resources/${resource!.id}`]);
    expect(emu.state.cdnResources.get(resource!.id)!.options.edge_cache_settings).toMatchObject({ enabled: true, value: '7d' });
    expect(emu.state.cdnResources.get(resource!.id)!.description).toBe('Static assets of example.com [edgeform:cdn-site] [edgeform-purged:resource=41]');

    // Destroying the whole setup as written with references: no ids, no depends_on; the
    // references order the deletes (rules before their resource, the resource before its group).
    writeFileSync(
      stack,
      `version: 1
name: cdn-site
resources:
  origins: { type: cdn_origin_group, name: cdn-site-origins, ensure: absent }
  site: { type: cdn_resource, cname: cdn.example.com, origin_group: "\${cdn_origin_group.origins.id}", ensure: absent }
  images: { type: cdn_rule, resource_id: "\${cdn_resource.site.id}", name: images, ensure: absent }
  api: { type: cdn_rule, resource_id: "\${cdn_resource.site.id}", name: api, ensure: absent }
`,
    );
    const plan = await runCliInProcess(['plan', stack], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('- cdn_resource.site (deactivates first)');
    expect(plan.stdout).toContain('# cdn_resource.site will be destroyed (deactivates first)');
    const markdown = await runCliInProcess(['plan', stack, '--format', 'markdown'], { env });
    expect(markdown.stdout).toContain('| `-` delete (deactivates first) | `cdn_resource.site` |');
    const json = await runCliInProcess(['plan', stack, '--format', 'json'], { env });
    const site = (JSON.parse(json.stdout) as { resource_changes: Array<{ address: string; destroy_note?: string }> }).resource_changes.find(
      (c) => c.address === 'cdn_resource.site',
    );
    expect(site?.destroy_note).toBe('deactivates first');

    const deletesFrom = writesSeen(emu).length;
    const destroyed = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(destroyed.code, destroyed.stderr + destroyed.stdout).toBe(0);
    const deletes = writesSeen(emu).slice(deletesFrom);
    // Rules before their resource, the resource deactivated then deleted, the group last.
    const ruleWrites = rules.flatMap((r) => [`PATCH ${rulesPath}/${r.id}`, `DELETE ${rulesPath}/${r.id}`]);
    expect(deletes.slice(0, 4).sort()).toEqual(ruleWrites.sort());
    for (const r of rules) expect(deletes.indexOf(`PATCH ${rulesPath}/${r.id}`)).toBeLessThan(deletes.indexOf(`DELETE ${rulesPath}/${r.id}`));
    expect(deletes.slice(4)).toEqual([`PATCH /cdn/resources/${resource!.id}`, `DELETE /cdn/resources/${resource!.id}`, `DELETE /cdn/origin_groups/${group!.id}`]);
    expect(emu.state.cdnResources.has(resource!.id)).toBe(false);
    expect(emu.state.cdnOriginGroups.has(group!.id)).toBe(false);
  });

  it('validate locates an option the vendor schema does not have, with the nearest known name, and sends nothing', async () => {
    const dir = writeStackFiles({ 'stack.yaml': EXAMPLE.replace('gzipOn:', 'gzipOnn:') });
    const result = await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env: {} });
    expect(result.code).toBe(1);
    const line = EXAMPLE.split('\n').findIndex((l) => l.includes('gzipOn:')) + 1;
    expect(result.stderr + result.stdout).toContain(`stack.yaml:${line}:7: error: unknown field "gzipOnn" in cdn_resource options; did you mean "gzipOn"?`);
  });
});
