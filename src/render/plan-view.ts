import type { Diagnostic } from '../config/diagnostics.js';
import type { Plan } from '../plan/types.js';
import { createColors, NO_COLORS } from './colors.js';
import { formatDiagnosticsJson } from './diagnostics.js';
import { jsonLines } from './json-lines.js';
import { toPlanFailureJson, toPlanJson } from './plan-json.js';
import { renderPlanMarkdown } from './plan-markdown.js';
import { diagnosticsText, invalidStackMarkdown, planText, runFailureMarkdown, writePlanText, type RunFailure, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform plan`. */
export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;

/** One of {@link PLAN_FORMATS}. */
export type PlanFormat = (typeof PLAN_FORMATS)[number];

/** Everything `edgeform plan` prints; one implementation per format, chosen by {@link createPlanView}. */
export interface PlanView {
  /** The stack is invalid: nothing was read or changed. */
  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** The plan, with its diagnostics. */
  /** The plan, with its diagnostics; done when it is written (the JSON document waits for a slow reader). */
  plan(plan: Plan, files: StackFiles): void | Promise<void>;
  /** The plan was written to `file` (--out). */
  saved(file: string): void;
  /** The plan has errors and was not written to `file`; `removedOlder` when an older plan file there was removed. */
  notSaved(file: string, removedOlder: boolean): void;
  /**
   * The run stopped before a plan could be made (the key refused, the platform down, an
   * interrupt): JSON and Markdown still print their document saying so; text prints nothing
   * (the error boundary prints the one error line on stderr).
   */
  failed(failure: RunFailure): void;
}

/** What a plan view needs besides its output: the stack's name as the user gave it (Markdown headings). */
export interface PlanViewOptions {
  stackLabel: string;
  /** The commit planned, for the Markdown comment (see commitFromEnv); left out when unknown. */
  commit?: string;
}

/**
 * The view of a format: text (coloured when the run's colour is on; an invalid stack's
 * diagnostics on stderr), JSON (the plan document, or the diagnostics document), or Markdown
 * (a pull-request comment; the plan in it never coloured). The notes about --out go to stderr
 * in every format, so stdout stays the one document.
 */
export function createPlanView(format: PlanFormat, output: ViewOutput, options: PlanViewOptions): PlanView {
  const notes = {
    saved: (file: string) => output.err(`Saved the plan to ${file}. To perform exactly these actions, run: edgeform apply ${file}`),
    notSaved: (file: string, removedOlder: boolean) =>
      output.err(`The plan has errors, so it was not saved to ${file}.${removedOlder ? ` The older plan file at ${file} was removed so it cannot be applied by mistake.` : ''}`),
  };
  const colors = createColors(output.color);
  const views: Record<PlanFormat, () => PlanView> = {
    text: () => ({
      ...notes,
      invalidStack: (diagnostics, files) => output.err(diagnosticsText(diagnostics, files, colors)),
      plan: (plan, files) => writePlanText((text) => output.out(text), plan, files, colors),
      failed: () => {},
    }),
    json: () => ({
      ...notes,
      invalidStack: (diagnostics) => output.out(formatDiagnosticsJson(diagnostics)),
      // Written a change at a time (jsonLines): a plan of 175,000 changes is never one string.
      // Each chunk waits for a slow reader: piped, the document is never held whole in memory.
      plan: async (plan) => {
        for (const chunk of jsonLines(toPlanJson(plan))) {
          if (output.outPaced) await output.outPaced(chunk);
          else output.out(chunk);
        }
      },
      failed: (failure) => output.out(JSON.stringify(toPlanFailureJson(failure, options.stackLabel), null, 2)),
    }),
    markdown: () => ({
      ...notes,
      // The diagnostics keep the run's colour decision, as they always have; the plan never has colour.
      invalidStack: (diagnostics, files) => output.out(invalidStackMarkdown(options.stackLabel, diagnosticsText(diagnostics, files, colors))),
      plan: (plan, files) =>
        output.out(renderPlanMarkdown(plan, planText(plan, files, NO_COLORS), { stackLabel: options.stackLabel, ...(options.commit ? { commit: options.commit } : {}) })),
      failed: (failure) => output.out(runFailureMarkdown('plan', options.stackLabel, failure)),
    }),
  };
  return views[format]();
}
