import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI as shipped, the bundle (npm test builds it first through the pretest script). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/bin/edgeform.js', import.meta.url));

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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * The CLI's environment: the test runner's minus every EDGEFORM_ variable and FORCE_COLOR,
 * NO_COLOR set, EDGEFORM_PROGRESS_INTERVAL at an hour (no "Reading N/TOTAL resources…" or
 * "Still ..." line whose presence would depend on the machine's speed), then the overrides.
 */
export function cliEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('EDGEFORM_')) env[k] = v;
  }
  env.NO_COLOR = '1';
  env.EDGEFORM_PROGRESS_INTERVAL = '3600000';
  delete env.FORCE_COLOR;
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A CLI process still running: its output so far, a way to wait for a line, and its end. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything written so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Waits until stdout or stderr matches (rejects when the CLI exits first, or after `timeoutMs` when given). */
  waitForOutput(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves when the process exited, with everything it wrote. */
  exited: Promise<CliResult>;
}

/**
 * Spawns the built CLI like {@link runCli} but returns at once, so a test can send signals and
 * read the output while the command runs. stdin is closed (not a TTY) unless `input` is given.
 */
export function startCli(args: string[], options: RunCliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    notify();
  });
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
      notify();
    });
  });
  child.stdin.end(options.input ?? '');
  const matches = (pattern: string | RegExp) => {
    const text = `${stdout}\n${stderr}`;
    return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
  };
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForOutput(pattern, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (matches(pattern)) {
            done();
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`the CLI exited before printing ${String(pattern)}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        // No bound unless one is given: output that never comes is a hang, which vitest's backstop ends.
        const timer =
          timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                done();
                reject(new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
              }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
