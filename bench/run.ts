/**
 * `npm run bench`: speed and memory targets of edgeform, measured against the in-process
 * emulator on loopback. Each benchmark prints its numbers and whether it met its target;
 * the run exits 1 when any target is missed. Targets are set for the 2-core CI machine.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executePlan } from '../src/apply/executor.js';
import { succeeded } from '../src/apply/outcome.js';
import { DEFAULT_MAX_TASKS, planStack } from '../src/cli/plan-stack.js';
import { startEmulator, type EmulatorFixtures } from '../src/emulator/index.js';
import type { Plan } from '../src/plan/types.js';
import { providers } from '../src/kinds/providers.js';
import { renderPlanMarkdown } from '../src/render/plan-markdown.js';
import { renderPlanText } from '../src/render/plan-text.js';

interface Result {
  name: string;
  value: number;
  unit: string;
  target: number;
  detail: string;
}

const results: Result[] = [];
const record = (r: Result) => {
  results.push(r);
  const ok = r.value <= r.target;
  process.stdout.write(`${ok ? 'ok  ' : 'MISS'} ${r.name}: ${r.value.toFixed(r.unit === 'ms' ? 0 : 1)} ${r.unit} (target ≤ ${r.target} ${r.unit}) ${r.detail}\n`);
};

/** A world of `n` floating IPs whose tags all differ from the stack, and the stack itself. */
function world(n: number): { fixtures: EmulatorFixtures; stack: string } {
  const ids = Array.from({ length: n }, () => randomUUID());
  const fixtures = {
    defaults: { project_id: 1, region_id: 76 },
    floating_ips: ids.map((id, i) => ({ id, floating_ip_address: `198.51.${Math.floor(i / 250)}.${i % 250}`, status: 'DOWN', tags: { env: 'staging', idx: String(i) } })),
  } as unknown as EmulatorFixtures;
  const lines = ['version: 1', 'defaults: { project_id: 1, region_id: 76 }', 'resources:'];
  ids.forEach((id, i) => lines.push(`  ip_${i}:`, '    type: cloud_floating_ip', `    floating_ip_id: ${id}`, `    tags: { env: prod, idx: "${i}" }`));
  return { fixtures, stack: `${lines.join('\n')}\n` };
}

async function withWorld<T>(n: number, run: (path: string, env: NodeJS.ProcessEnv, plan: () => ReturnType<typeof planStack>) => Promise<T>): Promise<T> {
  const { fixtures, stack } = world(n);
  const dir = await mkdtemp(join(tmpdir(), 'edgeform-bench-'));
  const path = join(dir, 'stack.yaml');
  await writeFile(path, stack);
  const emulator = await startEmulator({ port: 0, fixtures, taskDurationMs: 0 });
  const env = { EDGEFORM_BASE_URL: emulator.url, EDGEFORM_API_KEY: emulator.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
  const plan = () => planStack({ path, env, parallelism: 10, targets: [], signal: new AbortController().signal });
  try {
    return await run(path, env, plan);
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchPlan(n: number, targetMs: number): Promise<Plan> {
  return withWorld(n, async (_path, _env, plan) => {
    const warm = await plan();
    if (warm.kind === 'planned') await warm.api.close();
    const start = performance.now();
    const result = await plan();
    const ms = performance.now() - start;
    if (result.kind !== 'planned') throw new Error('bench stack is invalid');
    await result.api.close();
    record({
      name: `plan ${n} resources`,
      value: ms,
      unit: 'ms',
      target: targetMs,
      detail: `(${result.plan.summary.change} to change; ${(n / (ms / 1000)).toFixed(0)} resources/s)`,
    });
    return result.plan;
  });
}

async function benchApply(n: number, targetMs: number): Promise<void> {
  await withWorld(n, async (_path, _env, plan) => {
    const result = await plan();
    if (result.kind !== 'planned') throw new Error('bench stack is invalid');
    const start = performance.now();
    const outcome = await executePlan({
      plan: result.plan,
      providers: providers.resources,
      ctx: result.ctx,
      maxTasks: DEFAULT_MAX_TASKS,
      confirm: { attempts: 5, delayMs: () => 20, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    });
    const ms = performance.now() - start;
    await result.api.close();
    if (!succeeded(outcome)) throw new Error('bench apply failed');
    record({ name: `apply ${n} tag patches (tasks, confirmation reads)`, value: ms, unit: 'ms', target: targetMs, detail: `(${(n / (ms / 1000)).toFixed(0)} resources/s)` });
  });
}

function benchRender(plan: Plan, targetMs: number): void {
  const start = performance.now();
  const text = renderPlanText(plan);
  const markdown = renderPlanMarkdown(plan, text, { stackLabel: 'bench.yaml' });
  const ms = performance.now() - start;
  record({
    name: `render text + markdown of ${plan.resource_changes.length} changes`,
    value: ms,
    unit: 'ms',
    target: targetMs,
    detail: `(${text.length} chars text, ${markdown.length} chars markdown)`,
  });
}

const before = process.memoryUsage().rss;
const big = await benchPlan(2000, 5_000);
await benchPlan(200, 1_000);
await benchApply(300, 5_000);
benchRender(big, 500);
const rssMb = (process.memoryUsage().rss - before) / 1024 / 1024;
record({ name: 'memory growth over the run (RSS)', value: rssMb, unit: 'MiB', target: 300, detail: '' });

const missed = results.filter((r) => r.value > r.target);
process.stdout.write(missed.length === 0 ? '\nAll benchmark targets met.\n' : `\n${missed.length} benchmark target(s) missed.\n`);
process.exitCode = missed.length === 0 ? 0 : 1;
