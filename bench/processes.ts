/**
 * The processes `npm run bench` measures, each as a user runs it: the built CLI
 * (`node dist/bin/edgeform.js ...`, the bundle as shipped) and the emulator (`edgeform emulator ...`) in processes of
 * their own, so nothing of the benchmark shares their event loop or their heap.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProcessUsage } from './usage-reporter.js';

/** The built CLI (npm run bench builds first). */
export const CLI = fileURLToPath(new URL('../bin/edgeform.js', import.meta.url));
const USAGE_REPORTER = pathToFileURL(fileURLToPath(new URL('./usage-reporter.js', import.meta.url))).href;

/** One finished process: its wall time, what it wrote, and (when asked for) its own account of its peak memory. */
export interface Run {
  code: number | null;
  wallMs: number;
  stdout: string;
  /** Bytes written to stdout (also when it was not kept: see runNode's `discardStdout`). */
  stdoutBytes: number;
  stderr: string;
  /** Peak resident set and CPU time, as the process reported them at exit (see usage-reporter.ts). */
  usage?: ProcessUsage;
  /** When each stdout line arrived (performance.timeOrigin + performance.now(), ms epoch). */
  lineTimes: number[];
}

/**
 * Runs `node ARGS` to its end. With `usageDir`, the process reports its peak RSS and CPU time
 * through a preloaded module; start-up is timed without it.
 */
export function runNode(args: string[], options: { env?: Record<string, string>; usageDir?: string; discardStdout?: boolean } = {}): Promise<Run> {
  const usageFile = options.usageDir ? join(options.usageDir, `usage-${randomBytes(6).toString('hex')}.json`) : undefined;
  const env: Record<string, string> = { ...cleanEnv(), NO_COLOR: '1', ...options.env };
  if (usageFile) Object.assign(env, { NODE_OPTIONS: `--import=${USAGE_REPORTER}`, EDGEFORM_BENCH_USAGE_FILE: usageFile });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: string[] = [];
    const err: string[] = [];
    const lineTimes: number[] = [];
    let stdoutBytes = 0;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdoutBytes += Buffer.byteLength(chunk);
      // A plan of hundreds of megabytes is counted, not kept, so the benchmark's own memory stays small.
      if (options.discardStdout) return;
      out.push(chunk);
      const now = performance.timeOrigin + performance.now();
      for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lineTimes.push(now);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      let usage: ProcessUsage | undefined;
      if (usageFile) {
        usage = JSON.parse(readFileSync(usageFile, 'utf8')) as ProcessUsage;
        rmSync(usageFile, { force: true });
      }
      resolve({ code, wallMs, stdout: out.join(''), stdoutBytes, stderr: err.join(''), usage, lineTimes });
    });
  });
}

/** Runs the built CLI (`cli`: another build's executable, default this checkout's). */
export function runCli(args: string[], options: { env?: Record<string, string>; usageDir?: string; discardStdout?: boolean; cli?: string } = {}): Promise<Run> {
  return runNode([options.cli ?? CLI, ...args], options);
}

/** The benchmark's environment minus anything that would change how node or edgeform run. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('EDGEFORM_') && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

/** An emulator process and the control routes the benchmark uses. */
export interface EmulatorProcess {
  url: string;
  apiKey: string;
  /** EDGEFORM_BASE_URL and EDGEFORM_API_KEY for a CLI run against it. */
  env: Record<string, string>;
  /** Back to the fixtures: state, tasks, clock, and an empty request log. */
  reset(): Promise<void>;
  /** The requests served since the last reset (control routes not counted). */
  requests(): Promise<Array<{ method: string; path: string; route: string; status: number }>>;
  /** The changes made since the last reset, with the time each took effect (a task's end). */
  mutations(): Promise<Array<{ time: number; kind: string; id: string; change: string; taskId: string | null }>>;
  /**
   * The emulator process's CPU time so far (user + system, ms), read from /proc: it runs on the
   * same cores as the CLI, so what it spends answering is in the CLI's wall too. Undefined where
   * /proc is not there (not Linux).
   */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** Starts `edgeform emulator` with the control routes on a free port and waits for its banner. */
export async function startEmulator(options: { fixtures: string; latencyMs: number; taskDurationMs?: number }): Promise<EmulatorProcess> {
  const apiKey = `bench$${randomBytes(16).toString('hex')}`;
  const args = [CLI, 'emulator', '--port', '0', '--control', '--api-key', apiKey, '--fixtures', options.fixtures, '--latency', String(options.latencyMs)];
  if (options.taskDurationMs !== undefined) args.push('--task-duration', String(options.taskDurationMs));
  const child = spawn(process.execPath, args, { env: { ...cleanEnv(), NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening:\n${err}`)));
  });
  const control = async <T>(method: string, path: string): Promise<T> => {
    const res = await fetch(`${url}/__emulator/${path}`, { method });
    if (!res.ok) throw new Error(`emulator ${method} ${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    url,
    apiKey,
    env: { EDGEFORM_BASE_URL: url, EDGEFORM_API_KEY: apiKey },
    reset: async () => void (await control('POST', 'reset')),
    // The log holds the control request that reads it too: left out, as the other control routes.
    requests: async () =>
      (await control<{ requests: Array<{ method: string; path: string; route: string; status: number }> }>('GET', 'requests')).requests.filter(
        (r) => !r.path.startsWith('/__emulator/'),
      ),
    mutations: async () => (await control<{ mutations: Array<{ time: number; kind: string; id: string; change: string; taskId: string | null }> }>('GET', 'mutations')).mutations,
    cpuMs: () => processCpuMs(child.pid),
    stop: () => stopProcess(child),
  };
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on every Linux architecture node runs on). */
const USER_HZ = 100;

/** A child process's user + system CPU time in ms, from /proc/PID/stat; undefined when it cannot be read. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a /proc/PID/stat line, in ms: the 14th and 15th fields, counted after the
 * command name in parentheses (which may hold spaces and parentheses itself). Pure.
 */
export function cpuMsOfStat(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields from the 3rd (state) on: utime is the 14th of the line, the 12th here.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * L: the median wall time of a trivial request (GET of one floating IP) to the emulator, over
 * a kept-alive connection, measured from this process. What one request costs at this
 * emulator's latency, whatever the client.
 */
export async function measureLatency(emulator: EmulatorProcess, path: string, samples = 21): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const res = await fetch(`${emulator.url}${path}`, { headers: { authorization: `APIKey ${emulator.apiKey}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
    times.push(performance.now() - started);
  }
  return median(times.slice(1));
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
