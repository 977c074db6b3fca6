import type { Diagnostic } from '../config/diagnostics.js';
import type { DriftReport } from '../plan/drift.js';
import { createColors } from './colors.js';
import { formatDiagnosticsJson } from './diagnostics.js';
import { jsonLines } from './json-lines.js';
import { renderDriftMarkdown, renderDriftText, toDriftFailureJson, toDriftJson } from './drift.js';
import { diagnosticsText, invalidStackMarkdown, runFailureMarkdown, type RunFailure, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform drift`. */
export const DRIFT_FORMATS = ['text', 'json', 'markdown'] as const;

/** One of {@link DRIFT_FORMATS}. */
export type DriftFormat = (typeof DRIFT_FORMATS)[number];

/** Everything `edgeform drift` prints; one implementation per format, chosen by {@link createDriftView}. */
export interface DriftView {
  /** The stack is invalid: nothing was read. */
  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** The drift report, and the exit code the run ends with (the JSON report states it). */
  report(report: DriftReport, exitCode: number): void;
  /**
   * The run stopped before anything could be compared (the key refused, the platform down, an
   * interrupt): JSON and Markdown still print their document saying so; text prints nothing
   * (the error boundary prints the one error line on stderr).
   */
  failed(failure: RunFailure): void;
}

/**
 * The view of a format: text (coloured when the run's colour is on; an invalid stack's
 * diagnostics on stderr), JSON (the report with its errors as JSON diagnostics, or the
 * diagnostics document), or Markdown (an issue body; an invalid stack as plan reports it).
 */
export function createDriftView(format: DriftFormat, output: ViewOutput, options: { stackLabel: string; now?: () => number }): DriftView {
  const now = options.now ?? Date.now;
  const colors = createColors(output.color);
  const views: Record<DriftFormat, () => DriftView> = {
    text: () => ({
      invalidStack: (diagnostics, files) => output.err(diagnosticsText(diagnostics, files, colors)),
      report: (report) => output.out(renderDriftText(report, colors)),
      failed: () => {},
    }),
    json: () => ({
      invalidStack: (diagnostics) => output.out(formatDiagnosticsJson(diagnostics)),
      report: (report, exitCode) => {
        for (const chunk of jsonLines(toDriftJson(report, exitCode))) output.out(chunk);
      },
      failed: (failure) => output.out(JSON.stringify(toDriftFailureJson(failure, new Date(now()).toISOString(), options.stackLabel), null, 2)),
    }),
    markdown: () => ({
      invalidStack: (diagnostics, files) => output.out(invalidStackMarkdown(options.stackLabel, diagnosticsText(diagnostics, files, colors))),
      report: (report) => output.out(renderDriftMarkdown(report, options.stackLabel)),
      failed: (failure) => output.out(runFailureMarkdown('drift', options.stackLabel, failure)),
    }),
  };
  return views[format]();
}
