import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the CI scripts the example pipelines run. */
export const CI_SCRIPTS = fileURLToPath(new URL('../../examples/ci/scripts/', import.meta.url));

/** What a CI script did: exit code, output, and the step outputs it wrote to `$GITHUB_OUTPUT`. */
export interface CiScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

/** A scratch working directory for script runs, with files written into it. */
export interface ScratchDir {
  path: string;
  write(name: string, text: string): string;
  remove(): void;
}

/** Creates a scratch directory under the system's temporary folder. */
export function createScratchDir(): ScratchDir {
  const path = mkdtempSync(join(tmpdir(), 'edgeform-ci-'));
  return {
    path,
    write(name, text) {
      const file = join(path, name);
      writeFileSync(file, text);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/**
 * Runs `node examples/ci/scripts/<script>` in `cwd` with only PATH and `env` in its environment
 * (nothing of the CI the tests may themselves run in leaks in), `$GITHUB_OUTPUT` pointing at a
 * fresh file whose `name=value` lines are returned as `outputs`.
 */
export function runCiScript(script: string, args: string[], env: Record<string, string>, cwd: string): Promise<CiScriptResult> {
  const outputFile = join(cwd, `outputs-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(outputFile, '');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(CI_SCRIPTS, script), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', GITHUB_OUTPUT: outputFile, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const outputs = Object.fromEntries(
        readFileSync(outputFile, 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      rmSync(outputFile, { force: true });
      resolve({ code, stdout, stderr, outputs });
    });
  });
}
