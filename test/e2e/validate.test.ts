import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../helpers/ajv.js';
import { runCli } from '../helpers/cli.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.

/** Every example stack: the top-level examples/*.yaml files and the directory stack. */
const EXAMPLE_FILES = readdirSync('examples')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join('examples', f));
const EXAMPLES = [...EXAMPLE_FILES, 'examples/multi-file'];

describe('edgeform validate', () => {
  it.each(EXAMPLES)('accepts %s with exit 0', async (path) => {
    const result = await runCli(['validate', path]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Success! The stack is valid \(\d+ resources?, \d+ checks?\)\.\n$/);
    expect(result.code).toBe(0);
  });

  it('counts the quickstart blocks: every resource kind and both checks', async () => {
    const result = await runCli(['validate', 'examples/quickstart.yaml']);
    expect(result.stdout).toBe('Success! The stack is valid (7 resources, 2 checks).\n');
  });

  it('rejects an invalid stack with exit 1, file:line:col lines, code frames and counts on stderr', async () => {
    const result = await runCli(['validate', 'test/fixtures/invalid/several-errors/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((l) => /^\S+:\d+:\d+: error: /.test(l));
    expect(lines).toHaveLength(9);
    expect(lines[0]).toBe('test/fixtures/invalid/several-errors/stack.yaml:3:15: error: project_id must be a positive integer (1 or more)');
    expect(result.stderr).toContain('  > 13 |     instance_id: A7E7E8D6\n       |                  ^^^^^^^^');
    expect(result.stderr).toContain('  on resource cloud_instance.web_vm');
    expect(result.stderr.trimEnd().endsWith('9 errors, 0 warnings')).toBe(true);
    expect(result.stderr).not.toMatch(/\u001b\[/);
  });

  it('prints the versioned JSON document with --format json', async () => {
    const result = await runCli(['validate', 'test/fixtures/invalid/unknown-resource-field/stack.yaml', '--format', 'json']);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ format_version: '1.0', valid: false, error_count: 2, warning_count: 0 });
    expect(doc.diagnostics[1]).toEqual({
      severity: 'error',
      code: 'unknown-field',
      summary: 'unknown field "flavour_id" in cloud_instance; did you mean "flavor_id"?',
      detail: 'cloud_instance accepts: project_id, region_id, instance_id, flavor_id, ensure, type, depends_on.',
      address: 'cloud_instance.web_vm',
      range: { filename: 'test/fixtures/invalid/unknown-resource-field/stack.yaml', start: { line: 9, column: 5 }, end: { line: 9, column: 15 } },
    });
  });

  it('prints valid JSON for a valid stack too', async () => {
    const result = await runCli(['validate', 'examples/cloud.yaml', '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ format_version: '1.0', valid: true, error_count: 0, warning_count: 0, diagnostics: [] });
  });

  it('never prints a key found in the stack, not even in the code frame', async () => {
    const result = await runCli(['validate', 'test/fixtures/invalid/api-key-field/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('EDGEFORM_API_KEY');
    expect(result.stderr).not.toContain('c767b250');
  });

  it('reports a path that does not exist with exit 1 and no stack trace', async () => {
    const result = await runCli(['validate', 'no/such/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: no such file or directory: no/such/stack.yaml');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('shows its usage with --help and exits 0', async () => {
    const result = await runCli(['validate', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--format');
  });

  it('asks for a path when none is given', async () => {
    const result = await runCli(['validate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Run 'edgeform --help' for usage.");
  });
});

describe('edgeform schema', () => {
  async function schema(): Promise<Record<string, unknown>> {
    const result = await runCli(['schema']);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  function compile(json: Record<string, unknown>) {
    return createAjv().compile(json);
  }

  it('prints a draft 2020-12 JSON Schema that ajv compiles', async () => {
    const json = await schema();
    expect(json.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => compile(json)).not.toThrow();
  });

  it.each([...EXAMPLE_FILES, ...readdirSync('examples/multi-file').map((f) => join('examples/multi-file', f))])('accepts the example %s', async (path) => {
    const validate = compile(await schema());
    const ok = validate(parse(readFileSync(path, 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('tells blocks apart by type: fields of another kind and wrong enum values are rejected', async () => {
    const validate = compile(await schema());
    const stack = (block: Record<string, unknown>) => ({ version: 1, resources: { x: block } });
    expect(validate(stack({ type: 'fastedge_app', app_id: 1, ensure: 'absent' }))).toBe(true);
    expect(validate(stack({ type: 'fastedge_app', app_id: 1, flavor_id: 'x' }))).toBe(false);
    expect(validate(stack({ type: 'cloud_instance', instance_id: 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11', ensure: 'absent' }))).toBe(false);
    expect(validate(stack({ type: 'cloud_instance', flavor_id: 'x' }))).toBe(false);
    expect(validate(stack({ type: 'nope' }))).toBe(false);
    expect(validate({ version: 1, defaults: { project_id: '${env:PROJECT_ID}' } })).toBe(true);
  });

  it('matches the committed edgeform.schema.json', async () => {
    const result = await runCli(['schema']);
    const committed = readFileSync('edgeform.schema.json', 'utf8');
    expect(committed === result.stdout, 'edgeform.schema.json is out of date; regenerate it with: npm run build && node dist/cmd/edgeform.js schema > edgeform.schema.json').toBe(
      true,
    );
  });

  it('shows its usage with --help and exits 0', async () => {
    const result = await runCli(['schema', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('edgeform.schema.json');
  });
});
