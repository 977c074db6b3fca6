import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkoutCommit } from '../../rolldown.config.js';
import { runCli } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

  it('names the commit it was built from in edgeform version, in text and JSON (none when the source is no git checkout)', async () => {
    const json = await runCli(['version', '--format', 'json']);
    expect(json.code).toBe(0);
    const info = JSON.parse(json.stdout) as { version: string; commit: string | null; node: string; platform: string };
    expect(info).toMatchObject({ node: process.version, platform: `${process.platform}-${process.arch}` });
    const text = await runCli(['version']);
    // npm test builds the bundle first: from a git checkout it knows its commit; from a release
    // tarball's source (no .git) it knows none, as the next test holds.
    if (checkoutCommit() === undefined) {
      expect(info.commit).toBeNull();
      expect(text.stdout).toBe(`edgeform ${info.version} (node ${process.version})\n`);
    } else {
      expect(info.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(text.stdout).toBe(`edgeform ${info.version} (commit ${info.commit!.slice(0, 7)}, node ${process.version})\n`);
    }
  });

  it('builds from source without .git (a release tarball): the bundle knows no commit and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeform-no-git-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    expect(checkoutCommit(dir)).toBeUndefined();
    for (const path of ['package.json', 'rolldown.config.ts', 'dist/cmd', 'dist/src']) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const build = await run(process.execPath, [join(ROOT, 'node_modules/rolldown/bin/cli.mjs'), '-c', 'rolldown.config.ts'], dir);
    expect(build.code, build.stderr).toBe(0);
    const json = await run(process.execPath, [join(dir, 'dist/bin/edgeform.js'), 'version', '--format', 'json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), commit: null });
    const text = await run(process.execPath, [join(dir, 'dist/bin/edgeform.js'), 'version'], dir);
    expect(text.stdout).toMatch(/^edgeform \d+\.\d+\.\d+\S* \(node v[\d.]+\)\n$/);
  });
});

/** Runs a program in `cwd` and collects its output. */
function run(file: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}
