import type { Diagnostic } from '../config/diagnostics.js';
import type { DriftReport } from '../plan/drift.js';
import { createColors } from './colors.js';
import { formatDiagnosticsJson, toDiagnosticsJson } from './diagnostics.js';
import { renderDriftMarkdown, renderDriftText } from './drift.js';
import { diagnosticsText, invalidStackMarkdown, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform drift`. */
export const DRIFT_FORMATS = ['text', 'json', 'markdown'] as const;

/** One of {@link DRIFT_FORMATS}. */
export type DriftFormat = (typeof DRIFT_FORMATS)[number];

/** Everything `edgeform drift` prints; one implementation per format, chosen by {@link createDriftView}. */
export interface DriftView {
  /** The stack is invalid: nothing was read. */
  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** The drift report. */
  report(report: DriftReport): void;
}

/**
 * The view of a format: text (coloured when the run's colour is on; an invalid stack's
 * diagnostics on stderr), JSON (the report with its errors as JSON diagnostics, or the
 * diagnostics document), or Markdown (an issue body; an invalid stack as plan reports it).
 */
export function createDriftView(format: DriftFormat, output: ViewOutput, options: { stackLabel: string }): DriftView {
  const colors = createColors(output.color);
  const views: Record<DriftFormat, () => DriftView> = {
    text: () => ({
      invalidStack: (diagnostics, files) => output.err(diagnosticsText(diagnostics, files, colors)),
      report: (report) => output.out(renderDriftText(report, colors)),
    }),
    json: () => ({
      invalidStack: (diagnostics) => output.out(formatDiagnosticsJson(diagnostics)),
      report: (report) => output.out(JSON.stringify({ ...report, errors: toDiagnosticsJson(report.errors).diagnostics }, null, 2)),
    }),
    markdown: () => ({
      invalidStack: (diagnostics, files) => output.out(invalidStackMarkdown(options.stackLabel, diagnosticsText(diagnostics, files, colors))),
      report: (report) => output.out(renderDriftMarkdown(report, options.stackLabel)),
    }),
  };
  return views[format]();
}
