import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../helpers/ajv.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { TEST_TLS_KEY } from '../../helpers/tls-key.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** Every example stack: the top-level examples/*.yaml files and the directory stack. */
const EXAMPLE_FILES = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join('examples', f));
const EXAMPLES = [...EXAMPLE_FILES, 'examples/multi-file'];

describe('edgeform validate', () => {
  it.each(EXAMPLES)('accepts %s with exit 0', async (path) => {
    // examples/cdn.yaml purges for each release (${env:RELEASE}); examples/load-balanced.yaml reads its TLS key (${env:WEB_TLS_KEY}).
    const result = await runCliInProcess(['validate', path], { env: { RELEASE: '41', WEB_TLS_KEY: TEST_TLS_KEY } });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Success! The stack is valid \(\d+ resources?, \d+ checks?\)\.\n$/);
    expect(result.code).toBe(0);
  });

  it('answers `validate PATH` without flags (run without yargs) exactly as with its default --format text', async () => {
    for (const path of ['examples/quickstart.yaml', 'test/fixtures/invalid/unknown-resource-field/stack.yaml', 'no/such/stack.yaml']) {
      const plain = await runCliInProcess(['validate', path]);
      const flagged = await runCliInProcess(['validate', path, '--format', 'text']);
      expect(plain).toEqual(flagged);
    }
  });

  it('counts the quickstart blocks: every resource kind and both checks', async () => {
    const result = await runCliInProcess(['validate', 'examples/quickstart.yaml']);
    expect(result.stdout).toBe('Success! The stack is valid (7 resources, 2 checks).\n');
  });

  it('prints the versioned JSON document with --format json', async () => {
    const result = await runCliInProcess(['validate', 'test/fixtures/invalid/unknown-resource-field/stack.yaml', '--format', 'json']);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ format_version: '1.0', valid: false, error_count: 2, warning_count: 0 });
    expect(doc.diagnostics[1]).toEqual({
      severity: 'error',
      code: 'unknown-field',
      summary: 'unknown field "flavour_id" in cloud_instance; did you mean "flavor_id"?',
      detail:
        'cloud_instance accepts: project_id, region_id, instance_id, flavor_id, name, image_id, boot_volume_size, boot_volume_type, boot_volume_id, volume_ids, interfaces, security_group_ids, ssh_key_name, user_data, user_data_file, tags, tags_policy, ensure, type, depends_on, moved_from.',
      address: 'cloud_instance.web_vm',
      range: { filename: 'test/fixtures/invalid/unknown-resource-field/stack.yaml', start: { line: 9, column: 5 }, end: { line: 9, column: 15 } },
    });
  });

  it("docs/stack-file.md's Diagnostics section shows what validate prints, as text and as JSON", async () => {
    const docs = readFileSync('docs/stack-file.md', 'utf8');
    const section = docs.slice(docs.indexOf('\n## Diagnostics\n'));
    const fenced = (lang: string) => {
      const from = section.indexOf(`\n\`\`\`${lang}\n`) + lang.length + 5;
      return section.slice(from, section.indexOf('\n```\n', from) + 1);
    };
    const cwd = writeStackFiles({ 'stack.yaml': readFileSync('test/fixtures/invalid/unknown-resource-field/stack.yaml', 'utf8') });
    const text = await runCliInProcess(['validate', 'stack.yaml'], { cwd });
    expect(text.code).toBe(1);
    expect(fenced('text')).toBe(text.stderr);
    const json = await runCliInProcess(['validate', 'stack.yaml', '--format', 'json'], { cwd });
    expect(JSON.parse(fenced('json'))).toEqual(JSON.parse(json.stdout));
  });

  it('warns of a CDN option the vendor deprecated, at the option, naming its replacement; the stack stays valid', async () => {
    const dir = writeStackFiles({
      'stack.yaml': [
        'version: 1',
        'resources:',
        '  site:',
        '    type: cdn_resource',
        '    cname: cdn.example.com',
        '    origin: origin.example.com',
        '    options:',
        '      gzipOn: { enabled: true, value: true }',
        '      staticHeaders: { enabled: true, value: { X-A: b } }',
        '  api:',
        '    type: cdn_rule',
        '    name: api',
        '    resource_id: ${cdn_resource.site.id}',
        '    rule: /api/.*',
        '    rule_type: 0',
        '    options:',
        '      disable_cache: { enabled: true, value: true }',
        '',
      ].join('\n'),
    });
    const result = await runCliInProcess(['validate', 'stack.yaml', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ valid: true, error_count: 0, warning_count: 2 });
    expect(
      doc.diagnostics.map((d: { code: string; summary: string; address: string; range: { start: { line: number; column: number } } }) => [
        d.code,
        d.summary,
        d.address,
        d.range.start,
      ]),
    ).toEqual([
      ['deprecated', 'option staticHeaders is deprecated by the vendor: use static_response_headers instead', 'cdn_resource.site', { line: 9, column: 7 }],
      ['deprecated', 'option disable_cache is deprecated by the vendor: use edge_cache_settings instead', 'cdn_rule.api', { line: 17, column: 7 }],
    ]);
  });

  it('prints valid JSON for a valid stack too', async () => {
    const result = await runCliInProcess(['validate', 'examples/cloud.yaml', '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ format_version: '1.0', valid: true, error_count: 0, warning_count: 0, diagnostics: [] });
  });

  it('never prints a key found in the stack, not even in the code frame', async () => {
    const result = await runCliInProcess(['validate', 'test/fixtures/invalid/api-key-field/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('EDGEFORM_API_KEY');
    expect(result.stderr).not.toContain('c767b250');
  });

  it('reports a path that does not exist with exit 1 and no stack trace', async () => {
    const result = await runCliInProcess(['validate', 'no/such/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: no such file or directory: no/such/stack.yaml');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for a path when none is given', async () => {
    const result = await runCliInProcess(['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Run 'edgeform --help' for usage.");
  });
});

describe('edgeform schema', () => {
  async function schema(): Promise<Record<string, unknown>> {
    const result = await runCliInProcess(['schema']);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  function compile(json: Record<string, unknown>) {
    return createAjv().compile(json);
  }

  // The schema is about 520 kB: compiled once for the file, not once per test.
  let compiled: Promise<ReturnType<typeof compile>> | undefined;
  function validator(): Promise<ReturnType<typeof compile>> {
    compiled ??= schema().then(compile);
    return compiled;
  }

  it('prints a draft 2020-12 JSON Schema that ajv compiles', async () => {
    const json = await schema();
    expect(json.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => compile(json)).not.toThrow();
  });

  it.each([...EXAMPLE_FILES, ...readdirSync('examples/multi-file').map((f) => join('examples/multi-file', f))])('accepts the example %s', async (path) => {
    const validate = await validator();
    const ok = validate(parse(readFileSync(path, 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('tells blocks apart by type: fields of another kind and wrong enum values are rejected', async () => {
    const validate = await validator();
    const stack = (block: Record<string, unknown>) => ({ version: 1, resources: { x: block } });
    expect(validate(stack({ type: 'fastedge_app', app_id: 1, ensure: 'absent' }))).toBe(true);
    expect(validate(stack({ type: 'fastedge_app', app_id: 1, flavor_id: 'x' }))).toBe(false);
    expect(validate(stack({ type: 'cloud_k8s_cluster', cluster_name: 'prod-eu', version: 'v1.31.3', ensure: 'absent' }))).toBe(false);
    expect(validate(stack({ type: 'cloud_k8s_cluster', version: 'v1.31.3' }))).toBe(false);
    expect(validate(stack({ type: 'nope' }))).toBe(false);
    expect(validate({ version: 1, defaults: { project_id: '${env:PROJECT_ID}' } })).toBe(true);
  });

  it('accepts a whole ${TYPE.NAME.FIELD} reference in a resource field of any type, not in defaults or checks', async () => {
    const validate = await validator();
    const app = { type: 'fastedge_app', name: 'a-app', status: '${fastedge_app.b.status}', env: { IP: '${cloud_floating_ip.edge.floating_ip_address}' } };
    expect(validate({ version: 1, resources: { a: app } }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ version: 1, defaults: { project_id: '${cloud_floating_ip.edge.id}' } })).toBe(false);
    expect(validate({ version: 1, checks: { t: { type: 'streaming_ai_tasks', max_count: '${fastedge_app.a.id}' } } })).toBe(false);
  });

  it("refuses a tag key starting with edgeform- (edgeform's ownership tags), as validate does", async () => {
    const validate = await validator();
    const ip = (tags: Record<string, string | null>) => ({
      version: 1,
      resources: { web: { type: 'cloud_floating_ip', project_id: 1, region_id: 76, tags } },
    });
    expect(validate(ip({ env: 'prod', edgeform: 'x', edgeformer: 'x', 'my-edgeform-stack': 'y' })), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(ip({ 'edgeform-stack': 'prod' }))).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === 'pattern' && e.propertyName === 'edgeform-stack')).toBe(true);
    expect(validate(ip({ 'edgeform-address': null }))).toBe(false);
  });
});
