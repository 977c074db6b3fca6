import { open, readFile, rm } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { redact, secretsFromEnv } from '../api/redact.js';
import { jsonLines } from '../render/json-lines.js';
import { createPlanView, PLAN_FORMATS, type PlanFormat, type PlanView } from '../render/plan-view.js';
import { looksLikePlanFile, toPlanDocument } from '../plan/saved-plan.js';
import type { Plan } from '../plan/types.js';
import { stackRecord } from '../plan/planner.js';
import { UsageError, must } from '../errors.js';
import { defineCommand } from './command.js';
import { commitFromEnv, ExitCode, type CliIO } from './io.js';
import { createRunReporter } from './run-reporter.js';
import { CHECK_QUOTA_OPTION, checkParallelism, planStack, RESEND_SENSITIVE_OPTION } from './plan-stack.js';
import { describeRunFailure, withInterrupts } from './interrupt.js';
import { checkSweepArgs, SWEEP_OPTIONS } from './sweep-options.js';

interface PlanArgs {
  path?: string;
  stacks?: string;
  shard?: string;
  changedSince?: string;
  format: PlanFormat;
  out?: string;
  detailedExitcode: boolean;
  parallelism: number;
  target: string[];
  /** `--resend-sensitive` (yargs defaults it to []). */
  resendSensitive?: string[];
  cost: boolean;
  checkQuota: boolean;
}

/** `edgeform plan`: read the live state and show exactly what apply would do. */
export const planCommand = defineCommand<PlanArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory of *.yaml files' })
      .options(SWEEP_OPTIONS)
      .option('format', { choices: PLAN_FORMATS, default: 'text' as const, describe: 'Output format (with --stacks: text or json, one document per line and stack)' })
      .option('out', { type: 'string', requiresArg: true, describe: 'Write the plan to this file, for `edgeform apply FILE`' })
      .option('detailed-exitcode', { type: 'boolean', default: false, describe: 'Exit 0 with no changes, 2 with changes, 1 on error' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Requests to the platform at the same time' })
      .option('target', { type: 'string', array: true, requiresArg: true, default: [] as string[], describe: 'Plan only this address and what it depends on (repeatable)' })
      .option('resend-sensitive', RESEND_SENSITIVE_OPTION)
      .option('cost', { type: 'boolean', default: false, describe: "Price the plan's creates and resizes with the platform's pricing routes (monthly, before and after)" })
      .option('check-quota', CHECK_QUOTA_OPTION(false)),
  async run(args, io) {
    checkParallelism(args.parallelism);
    checkSweepArgs('plan', args);
    if (args.stacks !== undefined) {
      if (args.out !== undefined || args.target.length > 0) throw new UsageError('--out and --target go with one stack, not --stacks');
      const { runSweep } = await import('./sweep-command.js');
      return runSweep('plan', { ...args, stacks: args.stacks, format: args.format, assess: { cost: args.cost, quota: args.checkQuota } }, io);
    }
    const path = must(args.path, 'args.path');
    const view = createPlanView(args.format, io, { stackLabel: path, commit: commitFromEnv(io.env) });
    return withInterrupts(io, async (signal) => {
      const result = await planStack({
        path,
        env: io.env,
        parallelism: args.parallelism,
        targets: args.target,
        resendSensitive: args.resendSensitive,
        protect: (values) => io.protect(values),
        assess: { cost: args.cost, quota: args.checkQuota },
        signal,
        reporter: createRunReporter(io),
      }).catch((error: unknown) => {
        // The key refused, the platform down, an interrupt: JSON and Markdown still print their document.
        view.failed(describeRunFailure(error, signal.aborted));
        throw error;
      });
      if (result.kind === 'invalid') {
        view.invalidStack(result.diagnostics, result.files);
        return ExitCode.error;
      }
      try {
        // One plan value for every output: `--format json` prints exactly the document --out writes.
        const planned = withRelativeSources(result.plan);
        await view.plan(planned, result.files);
        if (args.out) {
          if (planned.errored) await refuseToSave(args.out, view);
          else await savePlan(args.out, planned, io.env, view);
        }
        return planExitCode(planned, args.detailedExitcode);
      } finally {
        await result.api.close();
      }
    });
  },
});

/** Exit code of a plan: 1 errored; with --detailed-exitcode 2 when there are changes. */
export function planExitCode(plan: Plan, detailed: boolean): number {
  if (plan.errored) return ExitCode.error;
  if (detailed && plan.applyable) return ExitCode.changes;
  return ExitCode.ok;
}

/** What is at a --out path now: nothing, an earlier plan file, or something else (never touched). */
async function existingFileKind(file: string): Promise<'none' | 'plan' | 'other'> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return 'none';
  return looksLikePlanFile(text) ? 'plan' : 'other';
}

/**
 * Writes the Plan value as JSON (a file does not pass through io, so it is redacted here).
 * Only a new file or an earlier plan file is written over: `--out stack.yaml` by mistake must
 * not destroy the stack.
 */
async function savePlan(file: string, plan: Plan, env: CliIO['env'], view: PlanView): Promise<void> {
  if ((await existingFileKind(file)) === 'other') {
    throw new UsageError(`--out ${file}: the file exists and is not an edgeform plan file; refusing to overwrite it (choose another path)`);
  }
  // Written a change at a time (jsonLines), each chunk redacted: a chunk holds whole values, so no secret spans two.
  const secrets = secretsFromEnv(env);
  const handle = await open(file, 'w', 0o600);
  try {
    for (const chunk of jsonLines(toPlanDocument(plan))) await handle.write(redact(chunk, secrets));
  } finally {
    await handle.close();
  }
  view.saved(file);
}

/** The plan with its stack files relative to the working directory when inside it (see relativeToWorkingDirectory). */
function withRelativeSources(plan: Plan): Plan {
  return { ...plan, stack: stackRecord(plan.stack.sources.map(relativeToWorkingDirectory), plan.stack, plan.stack.name) };
}

/**
 * A stack file's path relative to the working directory when it lies inside it, so that apply
 * finds the stack again in another checkout of the same repository (see locatePlannedStack).
 */
function relativeToWorkingDirectory(source: string): string {
  const inside = relative(process.cwd(), resolve(source));
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? source : inside;
}

/**
 * An errored plan is not saved; a plan file left at the same path by an earlier run is removed,
 * so a pipeline's next step can never apply an old plan by mistake.
 */
async function refuseToSave(file: string, view: PlanView): Promise<void> {
  const removed = (await existingFileKind(file)) === 'plan' && (await rm(file).then(() => true));
  view.notSaved(file, removed);
}
