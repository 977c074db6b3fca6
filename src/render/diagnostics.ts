import { codeFrameColumns } from '@babel/code-frame';
import type { Diagnostic } from '../config/diagnostics.js';
import { isCheckAddress } from '../config/types.js';
import { createColors } from './colors.js';

/** Version of the JSON diagnostics document; bumped only on an incompatible change. */
export const DIAGNOSTICS_FORMAT_VERSION = '1.0';

/** The JSON form of a validation result (`edgeform validate --format json`). */
export interface DiagnosticsJson {
  format_version: string;
  valid: boolean;
  error_count: number;
  warning_count: number;
  diagnostics: Array<{
    severity: Diagnostic['severity'];
    code: string;
    summary: string;
    detail: string | null;
    address: string | null;
    range: { filename: string; start: { line: number; column: number }; end: { line: number; column: number } } | null;
  }>;
}

/** How many errors and warnings there are. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { errors, warnings: diagnostics.length - errors };
}

/** "1 error, 2 warnings". */
export function formatCounts(diagnostics: readonly Diagnostic[]): string {
  const { errors, warnings } = countDiagnostics(diagnostics);
  return `${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`;
}

/** Options of formatDiagnosticsText. */
export interface TextOptions {
  /** filename → text the ranges point into (LoadStackResult.files, secrets already masked). */
  files: ReadonlyMap<string, string>;
  /** Colour and syntax highlighting (the view's decision); default: none. */
  color?: boolean;
}

/**
 * Diagnostics as text, compiler style: `FILE:LINE:COL: error: summary`, then `  on resource
 * ADDRESS`, a code frame of the spot (highlighted only with colour), the detail, and a final
 * `N errors, M warnings` line. Filenames are shown as the user gave them.
 */
export function formatDiagnosticsText(diagnostics: readonly Diagnostic[], options: TextOptions): string {
  const color = options.color ?? false;
  const { files } = options;
  const colors = createColors(color);
  const blocks = diagnostics.map((d) => {
    const label = d.severity === 'error' ? colors.paint(['bold', 'red'], 'error') : colors.paint(['bold', 'yellow'], 'warning');
    const where = d.range ? `${d.range.filename}:${d.range.start.line}:${d.range.start.column}: ` : '';
    const lines = [`${colors.bold(where)}${label}: ${colors.bold(d.summary)}`];
    if (d.address) lines.push(`  on ${isCheckAddress(d.address) ? 'check' : 'resource'} ${d.address}`);
    const text = d.range ? files.get(d.range.filename) : undefined;
    if (d.range && text !== undefined) {
      const frame = codeFrameColumns(text, { start: d.range.start, end: d.range.end }, { highlightCode: color, forceColor: color, linesAbove: 2, linesBelow: 1 });
      lines.push('', indent(frame));
    }
    if (d.detail) lines.push('', indent(d.detail));
    return lines.join('\n');
  });
  return [...blocks, formatCounts(diagnostics)].join('\n\n') + '\n';
}

/** formatDiagnosticsJson's document as text (pretty-printed, with a final newline). */
export function formatDiagnosticsJson(diagnostics: readonly Diagnostic[]): string {
  return `${JSON.stringify(toDiagnosticsJson(diagnostics), null, 2)}\n`;
}

/** The JSON document for diagnostics (see DiagnosticsJson); absent fields are null, never missing. */
export function toDiagnosticsJson(diagnostics: readonly Diagnostic[]): DiagnosticsJson {
  const { errors, warnings } = countDiagnostics(diagnostics);
  return {
    format_version: DIAGNOSTICS_FORMAT_VERSION,
    valid: errors === 0,
    error_count: errors,
    warning_count: warnings,
    diagnostics: diagnostics.map((d) => ({
      severity: d.severity,
      code: d.code,
      summary: d.summary,
      detail: d.detail ?? null,
      address: d.address ?? null,
      range: d.range ? { filename: d.range.filename, start: { ...d.range.start }, end: { ...d.range.end } } : null,
    })),
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}
