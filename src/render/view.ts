import type { Diagnostic } from '../config/diagnostics.js';
import type { Plan } from '../plan/types.js';
import type { Colors } from './colors.js';
import { formatDiagnosticsText } from './diagnostics.js';
import { commentMarker, longestBacktickRun } from './plan-markdown.js';
import { planTextChunks, renderPlanText } from './plan-text.js';

/**
 * Where a view writes, and the run's colour decision. The CLI's output boundary (CliIO)
 * satisfies it: what a view writes is redacted and escaped there, one line or block per call.
 */
export interface ViewOutput {
  /** Whether colour is on for this run (decided once by the CLI); views of uncoloured formats ignore it. */
  readonly color: boolean;
  out(text: string): void;
  /** As out, waiting for a slow reader (CliIO.outPaced); absent: out. */
  outPaced?(text: string): Promise<void>;
  err(text: string): void;
}

/**
 * Why a run ended before its document could be made (the key refused, the platform down, an
 * interrupt, a bug), as the views print it: the error's stable code and (redacted) message, the
 * exit code the run ends with, and the platform it concerns when known.
 */
export interface RunFailure {
  code: string;
  message: string;
  exitCode: number;
  baseUrl: string | null;
}

/**
 * A run that could not plan or compare, as a Markdown comment or issue body: the marker and
 * heading of its kind, then a "could not" section with the error in a fence it cannot close.
 */
export function runFailureMarkdown(kind: 'plan' | 'drift', stackLabel: string, failure: RunFailure): string {
  const what = kind === 'plan' ? 'Could not plan' : 'Could not compare the platform with the stack';
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(failure.message) + 1));
  return [
    commentMarker(kind, stackLabel),
    `### edgeform ${kind} for \`${stackLabel}\``,
    '',
    `**${what}**: the run stopped before it could (\`${failure.code}\`, exit ${failure.exitCode}); nothing was changed.`,
    '',
    `${fence}text`,
    failure.message,
    fence,
    '',
  ].join('\n');
}

/** A stack's files by name (secrets masked), for the code frames of its diagnostics. */
export type StackFiles = ReadonlyMap<string, string>;

/** Diagnostics as compiler-style text, coloured as `colors` says. */
export function diagnosticsText(diagnostics: readonly Diagnostic[], files: StackFiles, colors: Colors): string {
  return formatDiagnosticsText(diagnostics, { files, color: colors.enabled });
}

/** The text plan with its diagnostics, coloured as `colors` says. */
export function planText(plan: Plan, files: StackFiles, colors: Colors): string {
  return renderPlanText(plan, { colors, formatDiagnostics: (d) => diagnosticsText(d, files, colors) });
}

/** Writes the text plan with its diagnostics through `write` (out or err), a chunk of lines at a time (see planTextChunks). */
export function writePlanText(write: (text: string) => void, plan: Plan, files: StackFiles, colors: Colors): void {
  for (const chunk of planTextChunks(plan, { colors, formatDiagnostics: (d) => diagnosticsText(d, files, colors) })) write(chunk);
}

/**
 * A stack that could not be planned, as a Markdown comment (plan and drift): the diagnostics'
 * text in a fence it cannot close, under the plan comment's marker and heading.
 */
export function invalidStackMarkdown(stackLabel: string, diagnostics: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...diagnostics.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${commentMarker('plan', stackLabel)}\n### edgeform plan for \`${stackLabel}\`\n\n**The stack is invalid**; nothing was read or changed.\n\n${fence}text\n${diagnostics.trimEnd()}\n${fence}\n`;
}
