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

  it('names the commit it was built from in edgeform version, in text and JSON', async () => {
    const json = await runCli(['version', '--format', 'json']);
    expect(json.code).toBe(0);
    const info = JSON.parse(json.stdout) as { version: string; commit: string | null; node: string; platform: string };
    // The bundle is built from a git checkout here (npm test builds it first), so it knows its commit.
    expect(info.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(info).toMatchObject({ node: process.version, platform: `${process.platform}-${process.arch}` });
    const text = await runCli(['version']);
    expect(text.stdout).toBe(`edgeform ${info.version} (commit ${info.commit!.slice(0, 7)}, node ${process.version})\n`);
  });
});
