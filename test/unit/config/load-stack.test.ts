import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { canonicalJson } from '../../../src/model/fingerprint.js';
import { describe, expect, it } from 'vitest';
import { loadStack, MAX_DEPENDENCY_SUGGESTIONS } from '../../../src/config/load-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';

async function load(files: Record<string, string>, target = 'stack.yaml', env: Record<string, string> = {}) {
  const dir = writeStackFiles(files);
  return { dir, ...(await loadStack(target === '.' ? dir : join(dir, target), env)) };
}

describe('loadStack: a valid stack', () => {
  const text = `version: 1
defaults:
  project_id: 1
  region_id: 76
resources:
  web_ip:
    type: cloud_floating_ip
    floating_ip_id: ${FIP}
    region_id: 77
    tags: { env: prod, owner: null }
  web_vm:
    type: cloud_instance
    instance_id: ${VM}
    flavor_id: g2-standard-4-8
    depends_on: [cloud_floating_ip.web_ip]
checks:
  failures:
    type: streaming_ai_tasks
    max_count: 0
`;

  it('fills defaults into blocks that take the field and omit it, never over a block value', async () => {
    const { stack, diagnostics } = await load({ 'stack.yaml': text });
    expect(diagnostics).toEqual([]);
    expect(stack!.resources.map((r) => r.attributes)).toEqual([
      { project_id: 1, region_id: 77, floating_ip_id: FIP, tags: { env: 'prod', owner: null }, tags_policy: 'authoritative', ensure: 'present' },
      { project_id: 1, region_id: 76, instance_id: VM, flavor_id: 'g2-standard-4-8', ensure: 'present' },
    ]);
    expect(stack!.checks[0]!.attributes).toEqual({ where: {}, max_count: 0 });
  });

  it('gives every block its address, kind, dependencies and source ranges', async () => {
    const { stack, dir } = await load({ 'stack.yaml': text });
    const vm = stack!.resources[1]!;
    expect(vm).toMatchObject({ kind: 'resource', type: 'cloud_instance', name: 'web_vm', address: 'cloud_instance.web_vm', dependsOn: ['cloud_floating_ip.web_ip'] });
    expect(vm.range).toEqual({ filename: join(dir, 'stack.yaml'), start: { line: 11, column: 3 }, end: { line: 11, column: 9 } });
    expect(vm.fieldSources.flavor_id!.range).toMatchObject({ start: { line: 14, column: 16 }, end: { line: 14, column: 31 } });
    // An inherited field points at the defaults entry it came from.
    expect(vm.fieldSources.project_id!.range).toMatchObject({ start: { line: 3, column: 15 } });
    expect(stack!.checks[0]!.kind).toBe('check');
    expect(stack!.sources).toEqual([join(dir, 'stack.yaml')]);
  });

  it('warns about a default no block uses, and stays valid', async () => {
    const { stack, diagnostics } = await load({ 'stack.yaml': `${text.replace('defaults:\n', 'defaults:\n  reseller_id: 7\n')}` });
    expect(stack).toBeDefined();
    expect(diagnostics.map((d) => [d.severity, d.code, d.range?.start.line])).toEqual([['warning', 'unused-default', 3]]);
  });

  it('warns about an empty stack', async () => {
    const { stack, diagnostics } = await load({ 'stack.yaml': 'version: 1\n' });
    expect(stack).toMatchObject({ resources: [], checks: [] });
    expect(diagnostics.map((d) => d.code)).toEqual(['empty-stack']);
  });
});

describe('loadStack: digest', () => {
  const a = `version: 1\nresources:\n  app:\n    type: fastedge_app\n    app_id: 1234\n  player:\n    type: streaming_player\n    player_id: 55\n    depends_on: [fastedge_app.app]\n`;

  it('is a sha256 hex that ignores comments, formatting, key order and block order', async () => {
    const reordered = `# a comment\nresources:\n  player: { depends_on: [fastedge_app.app], player_id: 55, type: streaming_player }\n  app:\n    app_id: 1234   # same app\n    type: fastedge_app\nversion: 1\n`;
    const first = (await load({ 'stack.yaml': a })).stack!.digest;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect((await load({ 'stack.yaml': reordered })).stack!.digest).toBe(first);
  });

  it('is the same for a directory stack holding the same blocks', async () => {
    const split = {
      'a.yaml': 'version: 1\nresources:\n  app:\n    type: fastedge_app\n    app_id: 1234\n',
      'b.yaml': 'resources:\n  player:\n    type: streaming_player\n    player_id: 55\n    depends_on: [fastedge_app.app]\n',
    };
    expect((await load(split, '.')).stack!.digest).toBe((await load({ 'stack.yaml': a })).stack!.digest);
  });

  it("is the sha256 of the stack's canonical JSON, hashed a block at a time", async () => {
    const named = `name: shop\nprune: true\nrenamed_from: old-shop\n${a}checks:\n  subs: { type: streaming_video_subtitles, video_id: 9, languages: [eng] }\n`;
    for (const text of [a, named]) {
      const stack = (await load({ 'stack.yaml': text })).stack!;
      const view = (blocks: ReadonlyArray<{ address: string; type: string; attributes: unknown; dependsOn: string[] }>) =>
        [...blocks]
          .sort((x, y) => (x.address < y.address ? -1 : 1))
          .map((b) => ({ address: b.address, type: b.type, attributes: b.attributes, depends_on: [...b.dependsOn].sort() }));
      const whole = canonicalJson({
        version: 1,
        ...(stack.name === undefined ? {} : { name: stack.name }),
        ...(stack.prune ? { prune: true } : {}),
        ...(stack.renamedFrom === undefined ? {} : { renamed_from: stack.renamedFrom }),
        provider: stack.provider,
        resources: view(stack.resources),
        checks: view(stack.checks),
      });
      expect(stack.digest).toBe(createHash('sha256').update(whole).digest('hex'));
    }
  });

  it('changes when a value, a default-filled value, a dependency or the provider changes', async () => {
    const base = (await load({ 'stack.yaml': a })).stack!.digest;
    const variants = [
      a.replace('1234', '1235'),
      a.replace('    depends_on: [fastedge_app.app]\n', ''),
      a.replace('    app_id: 1234\n', '    app_id: 1234\n    ensure: absent\n'),
      `${a}provider:\n  base_url: https://example.com\n`,
    ];
    for (const text of variants) expect((await load({ 'stack.yaml': text })).stack!.digest).not.toBe(base);
  });
});

describe('loadStack: directory stacks', () => {
  it('merges *.yaml and *.yml in sorted order and ignores other files', async () => {
    const { stack, dir } = await load(
      {
        'b.yml': 'resources:\n  b:\n    type: fastedge_app\n    app_id: 2\n',
        'a.yaml': 'version: 1\nresources:\n  a:\n    type: fastedge_app\n    app_id: 1\n',
        'notes.txt': 'not yaml: [',
        'sub/c.yaml': 'resources: {c: {type: fastedge_app, app_id: 3}}\n',
      },
      '.',
    );
    expect(stack!.sources).toEqual([join(dir, 'a.yaml'), join(dir, 'b.yml')]);
    expect(stack!.resources.map((r) => r.address)).toEqual(['fastedge_app.a', 'fastedge_app.b']);
  });

  it('accepts version in several files when each says 1', async () => {
    const { stack } = await load({ 'a.yaml': 'version: 1\n', 'b.yaml': 'version: 1\nresources: {app: {type: fastedge_app, app_id: 1}}\n' }, '.');
    expect(stack).toBeDefined();
  });

  it('takes provider and defaults from one file only, naming the first place', async () => {
    const { diagnostics, dir } = await load({ 'a.yaml': 'version: 1\nprovider: {base_url: "https://a.example"}\n', 'b.yaml': 'provider: {base_url: "https://a.example"}\n' }, '.');
    expect(diagnostics.map((d) => [d.code, d.range?.filename, d.summary])).toEqual([
      ['conflicting-setting', join(dir, 'b.yaml'), `provider is already set in ${join(dir, 'a.yaml')}:2:1`],
    ]);
  });

  it('lets blocks in one file depend on blocks of another', async () => {
    const { stack } = await load(
      { 'a.yaml': 'version: 1\nresources: {a: {type: fastedge_app, app_id: 1, depends_on: [fastedge_app.b]}}\n', 'b.yaml': 'resources: {b: {type: fastedge_app, app_id: 2}}\n' },
      '.',
    );
    expect(stack!.resources[0]!.dependsOn).toEqual(['fastedge_app.b']);
  });

  it('reports a directory without stack files', async () => {
    const { diagnostics } = await load({ 'README.md': '#' }, '.');
    expect(diagnostics.map((d) => d.code)).toEqual(['no-stack-files']);
  });

  it('does not report dependencies as missing when another file has broken YAML', async () => {
    const { diagnostics } = await load(
      { 'a.yaml': 'version: 1\nresources: {a: {type: fastedge_app, app_id: 1, depends_on: [fastedge_app.b]}}\n', 'b.yaml': 'resources: {b: [\n' },
      '.',
    );
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(new Set(diagnostics.map((d) => d.code))).toEqual(new Set(['yaml-syntax']));
  });
});

describe('loadStack: paths and secrets', () => {
  it('reports a path that does not exist without a range', async () => {
    const result = await loadStack('no/such/stack.yaml', {});
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'stack-not-found', summary: 'no such file or directory: no/such/stack.yaml' })]);
    expect(result.diagnostics[0]!.range).toBeUndefined();
  });

  it('masks secret values in the file text it returns for code frames, keeping positions', async () => {
    const text = 'version: 1\nprovider:\n  apiKey: 29841$c767b250aaaabbbbccccdddd\n';
    const { files, diagnostics, dir } = await load({ 'stack.yaml': text });
    expect(diagnostics.map((d) => d.code)).toEqual(['secret-in-stack']);
    const shown = files.get(join(dir, 'stack.yaml'))!;
    expect(shown).not.toContain('c767b250');
    expect(shown).toHaveLength(text.length);
    expect(JSON.stringify(diagnostics)).not.toContain('c767b250');
  });
});

describe('loadStack: credentials', () => {
  const stack = (tags: string) => `version: 1
resources:
  web_ip:
    type: cloud_floating_ip
    project_id: 1
    region_id: 76
    floating_ip_id: ${FIP}
    tags: ${tags}
`;

  it("accepts tag keys that merely contain a credential word: tags are the user's labels", async () => {
    const { stack: loaded, diagnostics } = await load({ 'stack.yaml': stack('{ token-bucket: "on", secret-scanning: enabled }') });
    expect(diagnostics).toEqual([]);
    expect(loaded?.resources[0]?.attributes).toMatchObject({ tags: { 'token-bucket': 'on', 'secret-scanning': 'enabled' } });
  });

  it('still refuses a tag value shaped like an API key', async () => {
    const { diagnostics } = await load({ 'stack.yaml': stack('{ note: "29841$c767b250a1b2c3d4e5f6a7b8" }') });
    expect(diagnostics.map((d) => d.code)).toContain('secret-in-stack');
  });

  it('still refuses a credential-named field outside tags', async () => {
    const { diagnostics } = await load({ 'stack.yaml': `${stack('{ env: prod }')}    api_token: x\n` });
    expect(diagnostics.map((d) => d.code)).toContain('secret-in-stack');
  });
});

describe('loadStack: values from the environment', () => {
  it('never shows an interpolated value in a diagnostic, only where it came from', async () => {
    const text = `version: 1
resources:
  alerts:
    type: iam_reseller_notification_setting
    reseller_id: 7
    notification_settings_id: 3
    notification_type: \${env:NT}
    email: ops@example.com
`;
    const { diagnostics } = await load({ 'stack.yaml': text }, 'stack.yaml', { NT: 'topsecretvalue' });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'invalid-value', detail: 'The value comes from ${env:NT}; it is not shown.' })]);
    expect(JSON.stringify(diagnostics)).not.toContain('topsecretvalue');
  });
});

describe('loadStack: unknown dependencies', () => {
  it('suggests the nearest address for the first MAX_DEPENDENCY_SUGGESTIONS of them only, so a stack of such mistakes stays linear to check', async () => {
    const n = MAX_DEPENDENCY_SUGGESTIONS + 5;
    const blocks = Array.from({ length: n }, (_, i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, depends_on: [fastedge_app.ap_${i}] }`);
    const { diagnostics } = await load({ 'stack.yaml': `version: 1\nresources:\n${blocks.join('\n')}\n` });
    const summaries = diagnostics.filter((d) => d.code === 'unknown-dependency').map((d) => d.summary);
    expect(summaries).toHaveLength(n);
    expect(summaries[0]).toBe('depends_on names fastedge_app.ap_0, which is not in the stack; did you mean "fastedge_app.app_0"?');
    expect(summaries.filter((s) => s.includes('did you mean'))).toHaveLength(MAX_DEPENDENCY_SUGGESTIONS);
    expect(summaries[n - 1]).toBe(`depends_on names fastedge_app.ap_${n - 1}, which is not in the stack`);
  });
});

describe('loadStack: name and prune', () => {
  const vm = `resources:\n  web_vm: { type: cloud_instance, project_id: 1, region_id: 76, instance_id: ${VM}, flavor_id: g2-standard-4-8 }\n`;

  it('reads name and prune, and both enter the digest only when set', async () => {
    const plain = await load({ 'stack.yaml': `version: 1\n${vm}` });
    const named = await load({ 'stack.yaml': `version: 1\nname: prod\nprune: true\n${vm}` });
    expect(named.stack).toMatchObject({ name: 'prod', prune: true });
    expect(plain.stack).toMatchObject({ prune: false });
    expect(plain.stack!.name).toBeUndefined();
    expect(named.stack!.digest).not.toBe(plain.stack!.digest);
    const renamed = await load({ 'stack.yaml': `version: 1\nname: staging\nprune: true\n${vm}` });
    expect(renamed.stack!.digest).not.toBe(named.stack!.digest);
  });

  it('refuses prune: true without a name, at the prune key', async () => {
    const { diagnostics } = await load({ 'stack.yaml': `version: 1\nprune: true\n${vm}` });
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', code: 'missing-stack-name', range: expect.objectContaining({ start: { line: 2, column: 1 } }) })]);
  });

  it('refuses a name that is not 1 to 63 plain characters, at its value', async () => {
    const { diagnostics } = await load({ 'stack.yaml': `version: 1\nname: "prod stack!"\n${vm}` });
    expect(diagnostics[0]).toMatchObject({ severity: 'error', range: { start: { line: 2, column: 7 } } });
    expect(diagnostics[0]!.summary).toContain('name');
  });

  it('says an adopt-only kind cannot be created when its id is missing', async () => {
    const { diagnostics } = await load({ 'stack.yaml': 'version: 1\nresources:\n  cluster: { type: cloud_k8s_cluster, project_id: 1, region_id: 76, version: v1.31.3 }\n' });
    expect(diagnostics[0]).toMatchObject({ code: 'missing-field', summary: 'missing required field "cluster_name" in cloud_k8s_cluster' });
    expect(diagnostics[0]!.detail).toContain('edgeform adopts cloud_k8s_cluster resources but cannot create them (the kind is adopt-only)');
  });
});

describe('loadStack: the key __proto__', () => {
  it('is refused wherever it stands (a tag named so would be dropped, and the authoritative policy would remove it live), at the key', async () => {
    const { diagnostics, stack } = await load({
      'stack.yaml': `version: 1\nresources:\n  ip:\n    type: cloud_floating_ip\n    project_id: 1\n    region_id: 76\n    floating_ip_id: ${FIP}\n    tags: { __proto__: x, env: prod }\n`,
    });
    expect(stack).toBeUndefined();
    expect(diagnostics[0]).toMatchObject({
      severity: 'error',
      code: 'invalid-key',
      summary: expect.stringContaining('"__proto__" is not supported'),
      range: { start: { line: 8, column: 13 } },
    });
  });
});
