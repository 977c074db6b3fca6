import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI (npm test builds it first through the pretest script). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cmd/edgeform.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
}

/**
 * Spawns the built edgeform CLI with NO_COLOR set and a clean edgeform environment, and
 * collects its output. The caller's env entries override (undefined removes a variable).
 */
export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('EDGEFORM_')) env[k] = v;
  }
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
