import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { tempDir, importTo, expectPlansClean } from '../../helpers/import.js';

const FIXTURES = {
  cdn_origin_groups: [
    {
      id: 10,
      name: 'web-origins',
      use_next: true,
      proxy_next_upstream: ['error', 'timeout'],
      sources: [{ source: 'origin.example.com' }, { source: 'spare.example.com', backup: true }],
    },
  ],
  cdn_resources: [
    {
      id: 220,
      cname: 'cdn.example.com',
      originGroup: 10,
      description: 'main',
      secondaryHostnames: ['www-cdn.example.com'],
      options: { gzipOn: { enabled: true, value: true }, edge_cache_settings: { enabled: true, value: '4d' } },
    },
  ],
  cdn_rules: [{ id: 5, resource: 220, name: 'images', rule: '/images/.*', originGroup: 10, options: { edge_cache_settings: { enabled: true, value: '30d' } } }],
};

/** Two resources sharing one origin group, a third on another group; four rules; a Let's Encrypt certificate and an own one. */
const SHARED = {
  cdn_origin_groups: [FIXTURES.cdn_origin_groups[0]!, { id: 11, name: 'other-origins', sources: [{ source: 'other-origin.example.com' }] }],
  // A Let's Encrypt certificate, and an own one.
  cdn_resources: [
    FIXTURES.cdn_resources[0]!,
    { id: 221, cname: 'img.example.com', originGroup: 10, sslEnabled: true, sslData: 40 },
    { id: 222, cname: 'other.example.com', originGroup: 11, sslEnabled: true, sslData: 41 },
  ],
  cdn_certificates: [
    { id: 40, name: 'letsencrypt img.example.com', automated: true },
    { id: 41, name: 'own', automated: false },
  ],
  cdn_rules: [
    FIXTURES.cdn_rules[0]!,
    { id: 6, resource: 220, name: 'api', rule: '/api/.*' },
    { id: 7, resource: 221, name: 'thumbs', rule: '/t/.*' },
    { id: 8, resource: 222, name: 'other-rule', rule: '/o/.*' },
  ],
};

describe('edgeform import of CDN kinds', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('imports the origin group, the resource and its rule with references between them, and the result plans clean', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const { file, text } = await importTo(['--all'], env);
    expect(text).toContain('origin_group: "${cdn_origin_group.web-origins.id}"');
    expect(text).toContain('resource_id: "${cdn_resource.cdn_example_com.id}"');
    expect(text).toContain('description: main\n');
    expect(text).toContain('gzipOn:');
    await expectPlansClean(file, env);
  });
  it('import cdn_resource --cname: each named resource with its rules and its origin group (written once though shared), with references, planning clean', async () => {
    emu = await startTestEmulator({ fixtures: SHARED });
    const env = emulatorEnv(emu);
    const { file, text } = await importTo(['cdn_resource', '--cname', 'cdn.example.com', '--cname', 'IMG.example.com'], env);
    // The shared group once, the other group and resource not at all.
    expect(text.match(/type: cdn_origin_group/g)).toHaveLength(1);
    expect(text).toContain('origin_group_id: 10');
    expect(text).not.toContain('origin_group_id: 11');
    expect(text).not.toContain('other.example.com');
    expect(text.match(/type: cdn_resource/g)).toHaveLength(2);
    // Both resources and the rule "images" (whose own origin group is that group) name it by reference.
    expect(text.match(/origin_group: "\$\{cdn_origin_group.web-origins.id\}"/g)).toHaveLength(3);
    // Each resource's rules, naming it by reference; the other resource's rule is not written.
    expect(text.match(/type: cdn_rule/g)).toHaveLength(3);
    expect(text.match(/resource_id: "\$\{cdn_resource.cdn_example_com.id\}"/g)).toHaveLength(2);
    expect(text.match(/resource_id: "\$\{cdn_resource.img_example_com.id\}"/g)).toHaveLength(1);
    expect(text).not.toContain('rule_id: 8');
    // The Let's Encrypt certificate as ssl_automated (the next plan reads it so: no changes).
    expect(text).toContain('ssl_automated: true');
    expect(text).not.toContain('ssl_data: 40');
    // Only the named resources' rules are listed: no request for the rules of resource 222.
    const ruleLists = emu.requests.filter((r) => r.method === 'GET' && /^\/cdn\/resources\/\d+\/rules/.test(r.path)).map((r) => r.path.split('?')[0]);
    expect(ruleLists.sort()).toEqual(['/cdn/resources/220/rules', '/cdn/resources/221/rules']);
    await expectPlansClean(file, env);
  });

  it("leaves out a resource another stack's mark names, and its rules, with a warning naming that stack", async () => {
    emu = await startTestEmulator({
      fixtures: {
        ...SHARED,
        cdn_resources: [{ ...SHARED.cdn_resources[0]!, description: 'main [edgeform:prod]' }, ...SHARED.cdn_resources.slice(1)],
      },
    });
    const env = emulatorEnv(emu);
    const imported = await runCliInProcess(['import', 'cdn_resource'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.match(/type: cdn_resource/g)).toHaveLength(2);
    expect(imported.stdout).not.toContain('cname: cdn.example.com');
    // Its two rules go with it; the other resources' two stay.
    expect(imported.stdout.match(/type: cdn_rule/g)).toHaveLength(2);
    const said = imported.stdout + imported.stderr;
    expect(said).toContain(
      'edgeform stack "prod" created it (its description ends with the stack mark [edgeform:prod]); import leaves it to that stack (to take it over, declare it in that stack, or remove the mark from its description on the platform)',
    );
    expect(said).toContain('its resource_id 220 is a cdn_resource edgeform stack "prod" owns; import leaves it to that stack');
  });

  it("leaves out a resource another stack's mark names when a purge record follows the mark", async () => {
    emu = await startTestEmulator({
      fixtures: {
        ...SHARED,
        cdn_resources: [{ ...SHARED.cdn_resources[0]!, description: 'main [edgeform:prod] [edgeform-purged:resource=41]' }, ...SHARED.cdn_resources.slice(1)],
      },
    });
    const imported = await runCliInProcess(['import', 'cdn_resource'], { env: emulatorEnv(emu) });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.match(/type: cdn_resource/g)).toHaveLength(2);
    expect(imported.stdout).not.toContain('cname: cdn.example.com');
    expect(imported.stdout).not.toContain('edgeform-purged');
    expect(imported.stdout + imported.stderr).toContain('edgeform stack "prod" created it');
  });

  it('import cdn_resource without --cname writes every resource with its rules and the groups they use, not an unused group', async () => {
    emu = await startTestEmulator({
      fixtures: { ...SHARED, cdn_origin_groups: [...SHARED.cdn_origin_groups, { id: 12, name: 'unused', sources: [{ source: 'u.example.com' }] }] },
    });
    const env = emulatorEnv(emu);
    const imported = await runCliInProcess(['import', 'cdn_resource'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.match(/type: cdn_resource/g)).toHaveLength(3);
    expect(imported.stdout.match(/type: cdn_rule/g)).toHaveLength(4);
    expect(imported.stdout.match(/type: cdn_origin_group/g)).toHaveLength(2);
    expect(imported.stdout).not.toContain('origin_group_id: 12');
    expect(imported.stdout).toContain('ssl_data: 41');
    expect(imported.stdout.match(/ssl_automated: true/g)).toHaveLength(1);
  });

  it('import cdn_resource --cname of a cname no resource has fails (exit 1) naming it, and writes nothing', async () => {
    emu = await startTestEmulator({ fixtures: SHARED });
    const env = emulatorEnv(emu);
    const file = join(tempDir(), 'stack.yaml');
    const imported = await runCliInProcess(['import', 'cdn_resource', '--cname', 'cdn.example.com', '--cname', 'nope.example.com', '--out', file], { env });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('import cdn_resource --cname: no cdn_resource of the account is named "nope.example.com"; nothing written');
    expect(existsSync(file)).toBe(false);
    const toStdout = await runCliInProcess(['import', 'cdn_resource', '--name', 'nope.example.com'], { env });
    expect(toStdout.code).toBe(1);
    expect(toStdout.stdout).toBe('');
  });

  it('--cname is refused for a kind not named by cname, and with --all, before anything is read', async () => {
    emu = await startTestEmulator({ fixtures: SHARED });
    const env = emulatorEnv(emu);
    const zone = await runCliInProcess(['import', 'dns_zone', '--cname', 'example.com'], { env });
    expect(zone.code).toBe(1);
    expect(zone.stderr).toContain('--cname applies to cdn_resource (named by cname); dns_zone is named with --name NAME');
    const all = await runCliInProcess(['import', '--all', '--cname', 'cdn.example.com'], { env });
    expect(all.code).toBe(1);
    expect(all.stderr).toContain('--cname applies to one KIND, not to --all');
    expect(emu.requests.filter((r) => !r.path.startsWith('/__emulator/'))).toEqual([]);
  });
});
