import type { AssessOptions } from '../kinds/plan-economics.js';
import { buildDriftReport } from '../plan/drift.js';
import { createSweepView, type SweptStack } from '../render/sweep-view.js';
import { driftExitCode } from './drift.js';
import { ExitCode, type CliIO } from './io.js';
import { withInterrupts } from './interrupt.js';
import { planExitCode } from './plan.js';
import { createRunReporter } from './run-reporter.js';
import { loadFleet, sweepStacks } from './stack-sweep.js';

/** The flags of `plan --stacks` and `drift --stacks`. */
export interface SweepArgs {
  stacks: string;
  /** The command's --format (markdown is refused: report merge makes the Markdown summary). */
  format: string;
  shard?: string | undefined;
  changedSince?: string | undefined;
  parallelism: number;
  detailedExitcode: boolean;
  /** plan's `--cost` and `--check-quota`, held against each stack's plan as a single stack's run holds them. */
  assess?: AssessOptions | undefined;
}

/**
 * `plan --stacks ROOT` and `drift --stacks ROOT`: every stack under ROOT in one process (see
 * sweepStacks), each result printed as soon as it is known. The exit code: 1 if any stack could
 * not be planned or compared (invalid, failed, its plan errored), else 2 if any has changes
 * (plan, with --detailed-exitcode) or drifted (drift, unless --no-detailed-exitcode), else 0;
 * 130 when interrupted.
 */
export async function runSweep(command: 'plan' | 'drift', args: SweepArgs, io: CliIO): Promise<number> {
  const view = createSweepView(command, args.format, io);
  return withInterrupts(io, async (signal) => {
    const fleet = await loadFleet({ root: args.stacks, env: io.env, shard: args.shard, changedSince: args.changedSince });
    const counts = { stacks: 0, errors: 0, differ: 0, same: 0 };
    let exitCode: number = ExitCode.ok;
    await sweepStacks(
      fleet,
      {
        root: args.stacks,
        env: io.env,
        parallelism: args.parallelism,
        signal,
        reporter: createRunReporter(io),
        protect: (v) => io.protect(v),
        ...(args.assess ? { assess: args.assess } : {}),
      },
      (result) => {
        const code = stackExitCode(command, result);
        counts.stacks++;
        if (code === ExitCode.error) counts.errors++;
        else if (code === ExitCode.changes) counts.differ++;
        else counts.same++;
        view.stack(result, code);
        if (code === ExitCode.error) exitCode = ExitCode.error;
        else if (code === ExitCode.changes && exitCode === ExitCode.ok && args.detailedExitcode) exitCode = ExitCode.changes;
      },
    );
    view.summary(counts);
    return exitCode;
  });
}

/** The exit code a run of this stack alone would end with (plan: as with --detailed-exitcode). */
function stackExitCode(command: 'plan' | 'drift', result: SweptStack): number {
  if (result.kind !== 'planned') return ExitCode.error;
  return command === 'plan' ? planExitCode(result.plan, true) : driftExitCode(buildDriftReport(result.plan));
}
