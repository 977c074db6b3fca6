import { buildDriftReport, type DriftReport } from '../plan/drift.js';
import { renderDriftMarkdown, renderDriftText } from '../render/drift.js';
import { toDiagnosticsJson } from '../render/diagnostics.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';
import { withInterrupts } from './interrupt.js';
import { checkParallelism, planStack } from './plan-stack.js';
import { printInvalid } from './plan.js';

interface DriftArgs {
  path: string;
  format: 'text' | 'json' | 'markdown';
  detailedExitcode: boolean;
  parallelism: number;
}

/**
 * `edgeform drift`: the scheduled job. Plans without saving and reports every declared field
 * whose platform value differs, failing checks, and resources that disappeared or came back.
 * Exit 0 in sync, 2 drift found, 1 error (an unreachable API is an error, never "in sync").
 */
export const driftCommand = defineCommand<DriftArgs>({
  command: 'drift <path>',
  describe: 'Report where the platform differs from the stack (exit 0 in sync, 2 drift, 1 error)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory of *.yaml files', demandOption: true })
      .option('format', { choices: ['text', 'json', 'markdown'] as const, default: 'text' as const, describe: 'Output format (markdown is ready for an issue body)' })
      .option('detailed-exitcode', { type: 'boolean', default: true, describe: 'Exit 2 when drift is found (default); --no-detailed-exitcode exits 0 on drift, 1 only on errors' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Resources read at the same time' }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    return withInterrupts(io, async (signal) => {
      const result = await planStack({ path: args.path, env: io.env, parallelism: args.parallelism, targets: [], signal });
      if (result.kind === 'invalid') {
        printInvalid(io, args.format, args.path, result);
        return ExitCode.error;
      }
      try {
        const report = buildDriftReport(result.plan);
        io.out(renderDrift(report, args.format, args.path));
        return driftExitCode(report, args.detailedExitcode);
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

function renderDrift(report: DriftReport, format: DriftArgs['format'], stackLabel: string): string {
  if (format === 'json') return JSON.stringify({ ...report, errors: toDiagnosticsJson(report.errors).diagnostics }, null, 2);
  if (format === 'markdown') return renderDriftMarkdown(report, stackLabel);
  return renderDriftText(report);
}
