import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { BASE_URL_ENV, resolveBaseUrl } from '../api/base-url.js';
import { sleep } from '../api/sleep.js';
import { executePlan } from '../apply/executor.js';
import { succeeded, type ApplyOutcome } from '../apply/outcome.js';
import { findStaleResources, withFreshChecks } from '../apply/saved-plan-checks.js';
import { loadStack } from '../config/load-stack.js';
import { EdgeformError } from '../errors.js';
import { looksLikePlanFile, parsePlanFile, StalePlanError } from '../plan/saved-plan.js';
import type { Plan } from '../plan/types.js';
import { payloadSchemas, resourceProvider, type ProviderContext } from '../providers/provider.js';
import { registry } from '../providers/registry.js';
import { createJsonApplyView, createTextApplyView, type ApplyView, type RunningAction } from '../render/apply-view.js';
import { defineCommand, UsageError } from './command.js';
import { InterruptedError } from './interrupt.js';
import { ExitCode, type CliIO } from './io.js';
import { checkParallelism, connect, planStack } from './plan-stack.js';
import { printInvalid, renderPlan } from './plan.js';

interface ApplyArgs {
  path: string;
  autoApprove: boolean;
  parallelism: number;
  taskTimeout?: string;
  target: string[];
  format: 'text' | 'json';
}

/** `edgeform apply`: carry out a plan, from a stack (after approval) or a saved plan file. */
export const applyCommand = defineCommand<ApplyArgs>({
  command: 'apply <path>',
  describe: 'Apply a stack (after showing its plan) or a saved plan file',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file, directory, or a plan file written by plan --out', demandOption: true })
      .option('auto-approve', { type: 'boolean', default: false, describe: 'Do not ask for confirmation (for pipelines)' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Actions run at the same time' })
      .option('task-timeout', { type: 'string', describe: 'Longest wait for one platform task, e.g. 30m, 90s (default 20m; 60m for k8s upgrades)' })
      .option('target', { type: 'string', array: true, default: [] as string[], describe: 'Apply only this address and what it depends on (repeatable)' })
      .option('format', { choices: ['text', 'json'] as const, default: 'text' as const, describe: 'Progress output: text, or one JSON event per line' }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    const taskTimeoutMs = args.taskTimeout === undefined ? undefined : parseDuration(args.taskTimeout);
    const interrupts = new ApplyInterrupts(io);
    try {
      const planFile = await readPlanFileIfAny(args.path);
      if (planFile !== undefined) {
        if (args.target.length > 0) throw new UsageError('--target cannot be used with a saved plan; it applies exactly what it contains');
        return await applySavedPlan(args, io, interrupts, taskTimeoutMs, parsePlanFile(planFile, args.path, payloadSchemas(registry.resources)));
      }
      return await applyStack(args, io, interrupts, taskTimeoutMs);
    } catch (error) {
      // Interrupted while reading (planning, or checking a saved plan): nothing was changed.
      if (interrupts.abort.signal.aborted) return ExitCode.interrupted;
      // The key refused, the platform unavailable, a stale plan...: the error boundary prints it,
      // and JSON output still ends with its change_summary.
      if (args.format === 'json' && error instanceof EdgeformError) summarizeNotRun(io, error);
      throw error;
    } finally {
      interrupts.dispose();
    }
  },
});

async function applyStack(args: ApplyArgs, io: CliIO, interrupts: ApplyInterrupts, taskTimeoutMs: number | undefined): Promise<number> {
  const result = await planStack({ path: args.path, env: io.env, parallelism: args.parallelism, targets: args.target, signal: interrupts.abort.signal, taskTimeoutMs });
  if (result.kind === 'invalid') {
    printInvalid(io, 'text', args.path, result);
    return ExitCode.error;
  }
  try {
    const { plan } = result;
    const show = args.format === 'json' ? (text: string) => io.err(text) : (text: string) => io.out(text);
    show(renderPlan(plan, 'text', args.path, result.files));
    if (plan.errored) return ExitCode.error;
    // Nothing to change: no question; the executor only reports every resource unchanged.
    if (!plan.applyable) return await execute(plan, result.ctx, args, io, interrupts);
    if (!args.autoApprove) {
      if (!io.stdin.isTTY) {
        io.err('Error: apply needs approval, and this is not an interactive terminal.\nPass --auto-approve to apply without asking, or save a plan with `edgeform plan --out plan.json` and run `edgeform apply plan.json`.');
        return ExitCode.error;
      }
      const answer = await askApproval(io, args.format === 'json' ? io.stderr : io.stdout, interrupts.abort.signal);
      if (answer !== 'approved') {
        show('Apply cancelled: nothing was changed.');
        return answer === 'interrupted' ? ExitCode.interrupted : ExitCode.error;
      }
    }
    return await execute(plan, result.ctx, args, io, interrupts);
  } finally {
    await result.api.close();
  }
}

async function applySavedPlan(args: ApplyArgs, io: CliIO, interrupts: ApplyInterrupts, taskTimeoutMs: number | undefined, plan: Plan): Promise<number> {
  await checkPlanDestination(plan, io.env);
  if (!plan.applyable) {
    io.out('The saved plan has no changes to apply.');
    return ExitCode.ok;
  }
  const { api, ctx } = connect(plan.base_url, { env: io.env, signal: interrupts.abort.signal, taskTimeoutMs, parallelism: args.parallelism });
  try {
    const stale = await findStaleResources(plan, registry.resources, ctx, args.parallelism);
    if (stale.length > 0) {
      const lines = stale.flatMap((s) => [`  ${s.address}:`, ...s.differences.map((d) => `    ${d}`)]);
      throw new StalePlanError(`Saved plan is stale: the platform changed since the plan was made. Nothing was applied.\n${lines.join('\n')}\nRun edgeform plan again and review the new plan.`);
    }
    const refreshed = await withFreshChecks(plan, registry.checks, ctx);
    for (const { check, was } of refreshed.changed) io.out(`${check.address}: was ${was} when planned, is ${check.status} now: ${check.message}`);
    return await execute(refreshed.plan, ctx, args, io, interrupts);
  } finally {
    await api.close();
  }
}

/**
 * A saved plan never decides where the API key goes: the platform is resolved as for any run
 * (EDGEFORM_BASE_URL, else the stack's provider.base_url, else the default), and a plan made
 * against another one is refused.
 */
async function checkPlanDestination(plan: Plan, env: NodeJS.ProcessEnv): Promise<void> {
  const target = resolveBaseUrl({ env, stackBaseUrl: await stackBaseUrl(plan.stack.sources, env) });
  if (target === plan.base_url) return;
  const source = env[BASE_URL_ENV] ? BASE_URL_ENV : 'the stack and the default';
  throw new StalePlanError(
    `the saved plan was made against ${plan.base_url}, but this run would talk to ${target} (from ${source}); refusing to apply it elsewhere. To apply it to ${plan.base_url}, set ${BASE_URL_ENV}=${plan.base_url}.`,
  );
}

/** The provider.base_url of the stack a plan was made from, when its files are still readable. */
async function stackBaseUrl(sources: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (sources.length === 0) return undefined;
  const path = sources.length === 1 ? sources[0]! : dirname(sources[0]!);
  const loaded = await loadStack(path, env).catch(() => undefined);
  return loaded?.stack?.provider.base_url;
}

async function execute(plan: Plan, ctx: ProviderContext, args: ApplyArgs, io: CliIO, interrupts: ApplyInterrupts): Promise<number> {
  const verbsOf = (c: Plan['resource_changes'][number]) => resourceProvider(registry.resources, c.type).verbs[c.action === 'delete' ? 'delete' : 'update'];
  const view: ApplyView = args.format === 'json' ? createJsonApplyView((l) => io.out(l)) : createTextApplyView((l) => io.out(l), verbsOf);
  const running = new Map<string, RunningAction>();
  interrupts.attach(view, () => [...running.values()]);
  const heartbeat = setInterval(() => view.tick(), 10_000);
  heartbeat.unref();
  let outcome: ApplyOutcome;
  try {
    outcome = await executePlan({
      plan,
      providers: registry.resources,
      ctx,
      parallelism: args.parallelism,
      stop: interrupts.stop.signal,
      confirm: { attempts: 12, delayMs: (n) => Math.min(500 * n, 3000), sleep },
      hooks: {
        onStart(change) {
          running.set(change.address, { address: change.address, taskIds: [] });
          view.onStart?.(change);
        },
        onProgress(change, message, taskIds) {
          running.set(change.address, { address: change.address, taskIds: [...taskIds] });
          view.onProgress?.(change, message, taskIds);
        },
        onFinish(change, result) {
          running.delete(change.address);
          view.onFinish?.(change, result);
        },
      },
    });
  } finally {
    clearInterval(heartbeat);
  }
  view.summary(outcome);
  if (outcome.interrupted) return ExitCode.interrupted;
  return succeeded(outcome) ? ExitCode.ok : ExitCode.error;
}

/**
 * With --format json, the events of an apply that stopped on an error before it ran anything:
 * `run_error` and a `change_summary` with no resources, whose `run_error` says why. A machine
 * reading stdout always finds the summary last; the text of the error goes to stderr as usual.
 */
function summarizeNotRun(io: CliIO, error: EdgeformError): void {
  const view = createJsonApplyView((l) => io.out(l));
  const runError = { code: error.code, message: error.message };
  view.onRunError?.(runError);
  view.summary({ resources: [], interrupted: false, aborted: false, runError });
}

/**
 * Two-stage interrupts: the first SIGINT/SIGTERM stops new actions and lets running ones
 * finish (`stop`); the second abandons them at once (`abort`), listing their task ids.
 */
class ApplyInterrupts {
  readonly stop = new AbortController();
  readonly abort = new AbortController();
  private view?: ApplyView;
  private running: () => RunningAction[] = () => [];
  private readonly handler = () => this.onSignal();

  constructor(private readonly io: CliIO) {
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  attach(view: ApplyView, running: () => RunningAction[]): void {
    this.view = view;
    this.running = running;
  }

  private onSignal(): void {
    if (!this.view) {
      // Still planning or reading: nothing was changed yet, so stop at once.
      this.io.err('\nInterrupted before any change was made; stopping.');
      this.stop.abort();
      this.abort.abort(new InterruptedError('interrupted before any change was made'));
      return;
    }
    if (!this.stop.signal.aborted) {
      this.stop.abort();
      this.view.interruptRequested(this.running());
      return;
    }
    if (!this.abort.signal.aborted) {
      this.view.abortRequested(this.running());
      this.abort.abort(new InterruptedError('interrupted twice'));
    }
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

async function readPlanFileIfAny(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return undefined;
  const text = await readFile(path, 'utf8');
  return looksLikePlanFile(text) ? text : undefined;
}

/**
 * Asks for approval on the terminal (on stderr with --format json, so stdout stays JSON lines).
 * Only "yes" approves and the end of the input declines; Ctrl+C at the prompt (readline's
 * SIGINT in raw mode) or a SIGINT/SIGTERM to the process interrupts.
 */
async function askApproval(io: CliIO, output: CliIO['stdout'], signal: AbortSignal): Promise<'approved' | 'declined' | 'interrupted'> {
  const rl = createInterface({ input: io.stdin, output });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: 'approved' | 'declined' | 'interrupted') => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(answer);
      rl.close();
    };
    const onAbort = () => settle('interrupted');
    if (signal.aborted) return settle('interrupted');
    signal.addEventListener('abort', onAbort, { once: true });
    rl.on('SIGINT', () => {
      output.write('\n');
      settle('interrupted');
    });
    rl.on('close', () => settle('declined'));
    rl.question('\nDo you want to perform these actions?\n  edgeform will perform the actions described above.\n  Only \'yes\' will be accepted to approve.\n\n  Enter a value: ').then(
      (answer) => settle(answer.trim() === 'yes' ? 'approved' : 'declined'),
      () => settle('declined'),
    );
  });
}

/** "90s", "30m", "1h", "1500ms" or plain seconds, as milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--task-timeout: "${text}" is not a duration such as 90s, 30m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(match[1]) * unit;
  if (ms <= 0) throw new UsageError('--task-timeout must be more than zero');
  return ms;
}

