import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { loadStack } from '../../src/config/load-stack.js';
import { demoFixturesPath, type EmulatorFixtures } from '../../src/emulator/index.js';
import { buildPlan } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { createProviderContext } from '../../src/kinds/context.js';
import type { ProviderContext } from '../../src/kinds/provider.js';
import { readStack } from '../../src/kinds/read-stack.js';
import { providers } from '../../src/kinds/providers.js';
import type { Emulator } from '../../src/emulator/index.js';
import { writeStackFiles } from './stack-files.js';
import { FIP_PATCH, IN_SYNC, RESIZE_POST } from './demo-stacks.js';
import type { CliResult } from './cli.js';
import { runCliInProcess } from './cli-in-process.js';
import { afterEach } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { waitFor } from './wait.js';

/** The demo world's fixtures as a plain object, to extend with more resources for one test. */
export function demoFixtures(): EmulatorFixtures & { floating_ips: Record<string, unknown>[]; instances: Record<string, unknown>[] } {
  return parse(readFileSync(demoFixturesPath, 'utf8')) as ReturnType<typeof demoFixtures>;
}

/** Extra floating IPs seeded beside the demo world: `1f000000-0000-4000-8000-0000000000NN`. */
export const extraFipId = (n: number) => `1f000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The demo world plus `count` extra floating IPs (tagged env: staging), as emulator fixtures. */
export function withExtraFloatingIps(count: number): ReturnType<typeof demoFixtures> {
  const fixtures = demoFixtures();
  for (let n = 1; n <= count; n++) fixtures.floating_ips.push({ id: extraFipId(n), floating_ip_address: `203.0.113.${100 + n}`, tags: { env: 'staging' } });
  return fixtures;
}

/** Stack blocks `ip_1`..`ip_N` (under `resources:`) that retag the extra floating IPs to env: prod. */
export const extraFipBlocks = (count: number) =>
  Array.from({ length: count }, (_, i) => `  ip_${i + 1}: { type: cloud_floating_ip, floating_ip_id: ${extraFipId(i + 1)}, tags: { env: prod } }\n`).join('');

/** A client and provider context against an emulator, polling tasks every few real milliseconds. */
export function connectTo(emu: Emulator, signal?: AbortSignal): { api: ApiClient; ctx: ProviderContext } {
  const api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
  const ctx = createProviderContext({ api, signal, pollSchedule: { initialMs: 5, maxMs: 10 } });
  return { api, ctx };
}

/** Writes a stack, reads it from the emulator and plans it, as `edgeform plan` does (`env`: what `${env:NAME}` reads). */
export async function planYaml(ctx: ProviderContext, baseUrl: string, yaml: string, env: Record<string, string> = {}): Promise<Plan> {
  const path = join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
  const loaded = await loadStack(path, env);
  if (!loaded.stack) throw new Error(`invalid test stack: ${loaded.diagnostics.map((d) => d.summary).join('; ')}`);
  const observed = await readStack(ctx, loaded.stack, providers, { parallelism: 10 });
  const plan = buildPlan({
    stack: loaded.stack,
    reads: observed.reads,
    checks: observed.checks,
    planners: providers.resources,
    baseUrl,
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0-test',
  });
  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`test stack does not plan: ${errors.map((d) => d.summary).join('; ')}`);
  return plan;
}

/** Write requests (anything but GET) the emulator has seen, as `METHOD path`. */
export function writesSeen(emu: Emulator): string[] {
  return emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/')).map((r) => `${r.method} ${r.path}`);
}

/**
 * Moves a manual emulator clock whenever a task is pending, until `done` settles: lets work
 * that waits on tasks run to completion without any wall-clock dependency.
 */
export async function driveTasks<T>(emu: Emulator, done: Promise<T>, stepMs = 2000): Promise<T> {
  let finished = false;
  const result = done.finally(() => {
    finished = true;
  });
  while (!finished) {
    await Promise.race([result.catch(() => undefined), waitFor(() => finished || emu.state.pendingTasks.length > 0, { what: 'a pending task or the end' })]);
    if (!finished && emu.state.pendingTasks.length > 0) emu.clock.advance(stepMs);
  }
  return result;
}

/** The environment that points the CLI at an emulator, polling tasks every 20 ms. */
export function emulatorEnv(emu: Emulator): Record<string, string> {
  return { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
}

/**
 * Registers the closing, after each test, of the emulators the test starts, and returns the
 * starter: an emulator (tasks done at once unless `options` say otherwise) and the CLI's
 * environment for it.
 */
export function useCliEmulators(): (options?: EmulatorOptions) => Promise<{ emu: TestEmulator; env: Record<string, string> }> {
  const started: TestEmulator[] = [];
  afterEach(async () => {
    for (const emu of started.splice(0)) await emu.close();
  });
  return async (options = {}) => {
    const emu = await startTestEmulator({ taskDurationMs: 0, ...options });
    started.push(emu);
    return { emu, env: emulatorEnv(emu) };
  };
}

/** What a drift test starts from: the demo world (tasks done at once), its environment, and the stack it is in sync with, written to a temporary folder. */
export async function startInSync(): Promise<{ emu: TestEmulator; env: Record<string, string>; stack: string }> {
  const emu = await startTestEmulator({ taskDurationMs: 0 });
  return { emu, env: emulatorEnv(emu), stack: join(writeStackFiles({ 'stack.yaml': IN_SYNC }), 'stack.yaml') };
}

/**
 * Starts `edgeform apply PATH --auto-approve` in-process on a stack of the demo world's two
 * branches and resolves once it holds its locks and waits on its tasks: it resized web_vm and
 * patched web_ip, and sends nothing until their tasks finish (the clock moves). `finish` drives
 * it to the end; `cleanup` gets it too, so a failing test still ends the apply.
 */
export async function holdWithApply(
  emu: Emulator,
  path: string,
  env: Record<string, string>,
  cleanup: Array<() => Promise<unknown>>,
): Promise<{ finish: () => Promise<CliResult> }> {
  const running = runCliInProcess(['apply', path, '--auto-approve'], { env });
  const waiting = () => writesSeen(emu).includes(RESIZE_POST) && writesSeen(emu).includes(FIP_PATCH) && emu.state.pendingTasks.length >= 2;
  await Promise.race([
    running.then((r) => Promise.reject(new Error(`the holding apply ended early: ${r.stderr}`))),
    waitFor(waiting, { what: 'the holding apply to wait on its tasks' }),
  ]);
  let finished: Promise<CliResult> | undefined;
  const finish = () => (finished ??= driveTasks(emu, running));
  cleanup.push(finish);
  return { finish };
}
