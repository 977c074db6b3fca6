import { must } from '../errors.js';
import { buildDriftReport, type DriftReport } from '../plan/drift.js';
import { createDriftView, DRIFT_FORMATS, type DriftFormat } from '../render/drift-view.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';
import { createRunReporter } from './run-reporter.js';
import { describeRunFailure, withInterrupts } from './interrupt.js';
import { checkParallelism, planStack } from './plan-stack.js';
import { checkSweepArgs, SWEEP_OPTIONS } from './sweep-options.js';

interface DriftArgs {
  path?: string;
  stacks?: string;
  shard?: string;
  changedSince?: string;
  format: DriftFormat;
  detailedExitcode: boolean;
  parallelism: number;
}

/**
 * `edgeform drift`: the scheduled job. Plans without saving and reports every declared field
 * whose platform value differs, failing checks, and resources that disappeared or came back.
 * Exit 0 in sync, 2 drift found, 1 error (an unreachable API is an error, never "in sync").
 */
export const driftCommand = defineCommand<DriftArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory of *.yaml files' })
      .options(SWEEP_OPTIONS)
      .option('format', {
        choices: DRIFT_FORMATS,
        default: 'text' as const,
        describe: 'Output format (markdown is ready for an issue body; with --stacks: text or json, one document per line and stack)',
      })
      .option('detailed-exitcode', { type: 'boolean', default: true, describe: 'Exit 2 when drift is found (default); --no-detailed-exitcode exits 0 on drift, 1 only on errors' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Requests to the platform at the same time' }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    checkSweepArgs('drift', args);
    if (args.stacks !== undefined) {
      const { runSweep } = await import('./sweep-command.js');
      return runSweep('drift', { ...args, stacks: args.stacks, format: args.format }, io);
    }
    const path = must(args.path, 'args.path');
    const view = createDriftView(args.format, io, { stackLabel: path });
    return withInterrupts(io, async (signal) => {
      const result = await planStack({
        path,
        env: io.env,
        parallelism: args.parallelism,
        targets: [],
        signal,
        reporter: createRunReporter(io),
        protect: (values) => io.protect(values),
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
        const report = buildDriftReport(result.plan);
        const exitCode = driftExitCode(report, args.detailedExitcode);
        view.report(report, exitCode);
        return exitCode;
      } finally {
        await result.api.close();
      }
    });
  },
});

/** 1 when the comparison was incomplete, 2 when anything drifted or a check fails (if detailed), else 0. */
export function driftExitCode(report: DriftReport, detailed = true): number {
  if (report.errors.length > 0) return ExitCode.error;
  return report.in_sync || !detailed ? ExitCode.ok : ExitCode.changes;
}
