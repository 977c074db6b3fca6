import { must } from '../errors.js';
import type { BabelCodeFrameOptions } from '@babel/code-frame';
import { lazily } from '../lazily.js';

/** Loaded when a diagnostic is first shown with its code frame. */
const codeFrameLibrary = lazily<typeof import('@babel/code-frame')>('@babel/code-frame');
import type { Diagnostic, SourceRange } from '../config/diagnostics.js';
import { isCheckAddress } from '../config/types.js';
import { createColors } from './colors.js';
import { clipText, escapeControlChars, escapedLength } from './escape.js';

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

/** The text view prints this many diagnostics, then "... and N more"; the counts line and the JSON view cover all. */
export const MAX_PRINTED_DIAGNOSTICS = 50;

/** A summary, detail or address longer than this is cut (with "…"): a stack value can be megabytes long. */
export const MAX_MESSAGE_LENGTH = 500;

/** Source characters a code frame line shows at most; a longer line is cut to a window around the spot. */
export const FRAME_WIDTH = 160;

/** How far left of the spot the window of a cut line starts. */
const FRAME_LEAD = 60;

/** A range spanning more lines than this is framed by its first ones only. */
const MAX_FRAMED_LINES = 5;

/**
 * Diagnostics as text, compiler style: `FILE:LINE:COL: error: summary`, then `  on resource
 * ADDRESS`, a code frame of the spot (highlighted only with colour), the detail, and a final
 * `N errors, M warnings` line. Filenames are shown as the user gave them. Bounded whatever
 * the input: the first MAX_PRINTED_DIAGNOSTICS diagnostics and a line saying how many more;
 * messages cut at MAX_MESSAGE_LENGTH, frame lines at FRAME_WIDTH around the spot; every
 * control character of the stack (ESC, OSC, C1, bidi overrides) printed as a visible escape.
 * Linear in the number of diagnostics: each file is split into lines once.
 */
export function formatDiagnosticsText(diagnostics: readonly Diagnostic[], options: TextOptions): string {
  const color = options.color ?? false;
  const colors = createColors(color);
  const sources = new Map<string, SourceLines | undefined>();
  const sourceOf = (filename: string): SourceLines | undefined => {
    if (!sources.has(filename)) {
      const text = options.files.get(filename);
      sources.set(filename, text === undefined ? undefined : indexLines(text));
    }
    return sources.get(filename);
  };
  const shown = diagnostics.slice(0, MAX_PRINTED_DIAGNOSTICS);
  const blocks = shown.map((d) => {
    const label = d.severity === 'error' ? colors.paint(['bold', 'red'], 'error') : colors.paint(['bold', 'yellow'], 'warning');
    const where = d.range ? `${escapeControlChars(d.range.filename)}:${d.range.start.line}:${d.range.start.column}: ` : '';
    const lines = [`${colors.bold(where)}${label}: ${colors.bold(message(d.summary))}`];
    if (d.address) lines.push(`  on ${isCheckAddress(d.address) ? 'check' : 'resource'} ${message(d.address)}`);
    const source = d.range ? sourceOf(d.range.filename) : undefined;
    const frame = d.range && source ? codeFrame(source, d.range, color) : undefined;
    if (frame) lines.push('', indent(frame));
    if (d.detail) lines.push('', indent(message(d.detail, true)));
    return lines.join('\n');
  });
  const omitted = diagnostics.slice(MAX_PRINTED_DIAGNOSTICS);
  if (omitted.length > 0) blocks.push(`... and ${describeOmitted(omitted)} not shown (edgeform validate --format json lists them all)`);
  return [...blocks, formatCounts(diagnostics)].join('\n\n') + '\n';
}

/** "7950 more errors", "3 more warnings", "10 more (9 errors, 1 warning)". */
function describeOmitted(omitted: readonly Diagnostic[]): string {
  const { errors, warnings } = countDiagnostics(omitted);
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  if (warnings === 0) return `${errors} more ${errors === 1 ? 'error' : 'errors'}`;
  if (errors === 0) return `${warnings} more ${warnings === 1 ? 'warning' : 'warnings'}`;
  return `${omitted.length} more (${plural(errors, 'error')}, ${plural(warnings, 'warning')})`;
}

/** A summary or detail as printed: control characters escaped, cut at MAX_MESSAGE_LENGTH. */
function message(text: string, multiline = false): string {
  return escapeControlChars(clipText(text, MAX_MESSAGE_LENGTH), { keepNewlines: multiline });
}

/** A file's text with the offset where each line starts (lines end at "\n", as the yaml library counts them). */
interface SourceLines {
  text: string;
  starts: number[];
}

function indexLines(text: string): SourceLines {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return { text, starts };
}

/** Line `n` (1-based) without its line break (a CRLF file's "\r" included). */
function lineAt(source: SourceLines, n: number): string {
  const start = must(source.starts[n - 1], 'source.starts[n - 1]');
  const end = n < source.starts.length ? must(source.starts[n], 'source.starts[n]') - 1 : source.text.length;
  const line = source.text.slice(start, end);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * The code frame of one range, built from the few lines around it only (so a frame costs the
 * same in a 10-line and a 10-million-line file). Lines wider than FRAME_WIDTH are cut to the
 * same window around the start column, marked with "…"; control characters are escaped and
 * the marker columns moved to match. A range of many lines is framed by its first lines.
 */
function codeFrame(source: SourceLines, range: SourceRange, color: boolean): string | undefined {
  const lineCount = source.starts.length;
  const startLine = range.start.line;
  if (startLine < 1 || startLine > lineCount) return undefined;
  let endLine = Math.min(Math.max(range.end.line, startLine), lineCount);
  let endColumn = endLine === range.end.line ? range.end.column : lineAt(source, endLine).length + 1;
  if (endLine - startLine >= MAX_FRAMED_LINES) {
    endLine = startLine + MAX_FRAMED_LINES - 1;
    endColumn = lineAt(source, endLine).length + 1;
  }
  const first = Math.max(1, startLine - 2);
  const last = Math.min(lineCount, endLine + 1);
  const lines: string[] = [];
  for (let n = first; n <= last; n++) lines.push(lineAt(source, n));
  const cut = lines.some((line) => line.length > FRAME_WIDTH);
  const from = cut ? Math.max(0, range.start.column - 1 - FRAME_LEAD) : 0;
  const to = cut ? from + FRAME_WIDTH : Infinity;
  const leads = (line: string) => from > 0 && line.length > from;
  const show = (line: string) => `${leads(line) ? '…' : ''}${escapeControlChars(line.slice(from, to))}${line.length > to ? '…' : ''}`;
  /** A 1-based column of the source line as a 1-based column of the shown line. */
  const column = (line: string, col: number) => {
    const at = Math.min(Math.max(col - 1, from), Math.min(line.length, to));
    return (leads(line) ? 1 : 0) + escapedLength(line.slice(from, at)) + 1;
  };
  const startColumn = column(lineAt(source, startLine), range.start.column);
  const shownEnd = column(lineAt(source, endLine), endColumn);
  // startLine (supported by @babel/code-frame, missing from its @types): the number of the snippet's first line.
  const frameOptions: BabelCodeFrameOptions & { startLine: number } = { highlightCode: color, forceColor: color, linesAbove: 2, linesBelow: 1, startLine: first };
  return codeFrameLibrary().codeFrameColumns(
    lines.map(show).join('\n'),
    { start: { line: startLine, column: startColumn }, end: { line: endLine, column: shownEnd } },
    frameOptions,
  );
}

/**
 * formatDiagnosticsJson's document as text (pretty-printed, with a final newline). Every
 * diagnostic is listed (the text view caps them, a machine reader should not have to); C1
 * controls, line separators and bidi overrides, which JSON allows raw, are written as \u
 * escapes, so the document is safe to print to a terminal and parses to the same value.
 */
export function formatDiagnosticsJson(diagnostics: readonly Diagnostic[]): string {
  return `${escapeJsonText(JSON.stringify(toDiagnosticsJson(diagnostics), null, 2))}\n`;
}

/**
 * The JSON document for diagnostics (see DiagnosticsJson); absent fields are null, never
 * missing; summary, detail and address cut at MAX_MESSAGE_LENGTH.
 */
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
      summary: clipText(d.summary, MAX_MESSAGE_LENGTH),
      detail: d.detail === undefined ? null : clipText(d.detail, MAX_MESSAGE_LENGTH),
      address: d.address === undefined ? null : clipText(d.address, MAX_MESSAGE_LENGTH),
      range: d.range ? { filename: d.range.filename, start: { ...d.range.start }, end: { ...d.range.end } } : null,
    })),
  };
}

/** Characters JSON.stringify leaves raw that a terminal may act on; inside JSON strings only, so \u escapes are exact. */
const JSON_UNSAFE = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}
