import type { Diagnostic } from '../config/diagnostics.js';
import { createColors } from './colors.js';
import { formatDiagnosticsJson } from './diagnostics.js';
import { diagnosticsText, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform validate`. */
export const VALIDATE_FORMATS = ['text', 'json'] as const;

/** One of {@link VALIDATE_FORMATS}. */
export type ValidateFormat = (typeof VALIDATE_FORMATS)[number];

/** What a valid stack holds, as validate reports it. */
export interface ValidStackCounts {
  resources: number;
  checks: number;
}

/** Everything `edgeform validate` prints; one implementation per format, chosen by {@link createValidateView}. */
export interface ValidateView {
  /** The result: the stack's counts when it is valid (else null) and every diagnostic. */
  result(valid: ValidStackCounts | null, diagnostics: readonly Diagnostic[], files: StackFiles): void;
}

/**
 * The view of a format: text (diagnostics on stderr, coloured when the run's colour is on, and
 * the success line on stdout) or JSON (one diagnostics document on stdout).
 */
export function createValidateView(format: ValidateFormat, output: ViewOutput): ValidateView {
  const colors = createColors(output.color);
  const views: Record<ValidateFormat, () => ValidateView> = {
    text: () => ({
      result(valid, diagnostics, files) {
        if (diagnostics.length > 0) output.err(diagnosticsText(diagnostics, files, colors));
        if (!valid) return;
        const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
        output.out(`Success! The stack is valid (${count(valid.resources, 'resource')}, ${count(valid.checks, 'check')}).`);
      },
    }),
    json: () => ({
      result: (_valid, diagnostics) => output.out(formatDiagnosticsJson(diagnostics)),
    }),
  };
  return views[format]();
}
