import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * validate and schema through the built executable: the exit code, stderr and a large stdout
 * through real pipes, and --help (yargs prints it to the process's stdout, not through io). The
 * rest of their behaviour is held in-process (test/integration/cli/validate.test.ts).
 */
describe('edgeform validate (built CLI)', () => {
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

  it('shows its usage with --help and exits 0', async () => {
    const result = await runCli(['validate', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--format');
  });
});

describe('edgeform schema (built CLI)', () => {
  it('matches the committed edgeform.schema.json', async () => {
    const result = await runCli(['schema']);
    const committed = readFileSync('edgeform.schema.json', 'utf8');
    expect(committed === result.stdout, 'edgeform.schema.json is out of date; regenerate it with: npm run build && node dist/bin/edgeform.js schema > edgeform.schema.json').toBe(
      true,
    );
  });

  it('shows its usage with --help and exits 0', async () => {
    const result = await runCli(['schema', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('edgeform.schema.json');
  });
});
