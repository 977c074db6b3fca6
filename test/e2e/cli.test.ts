import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * The built executable starts, answers and exits with the CLI's exit code. Usage errors are
 * held in-process (test/integration/cli/cli.test.ts).
 */
describe('edgeform CLI (built)', () => {
  it('prints its version with --version and exits 0', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('rejects an unknown command with a clear message and exit 1, no stack trace', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('frobnicate');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
