import type { Diagnostic } from '../config/diagnostics.js';
import { UsageError } from '../errors.js';
import { buildDriftReport } from '../plan/drift.js';
import type { Plan } from '../plan/types.js';
import { createColors } from './colors.js';
import { toDiagnosticsJson } from './diagnostics.js';
import { renderDriftText, toDriftFailureJson, toDriftJson } from './drift.js';
import { toPlanFailureJson, toPlanJson } from './plan-json.js';
import { diagnosticsText, planText, type RunFailure, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `plan --stacks` and `drift --stacks`. */
export const SWEEP_FORMATS = ['text', 'json'] as const;

/** One of {@link SWEEP_FORMATS}. */
export type SweepFormat = (typeof SWEEP_FORMATS)[number];

/** What a sweep came to for one stack: where it is, its name, and its plan (or why there is none). */
export type SweptStack = { path: string; name: string | null } & (
  { kind: 'invalid'; diagnostics: Diagnostic[]; files: StackFiles } | { kind: 'failed'; failure: RunFailure } | { kind: 'planned'; plan: Plan; files: StackFiles }
);

/** The counts a sweep ends with. */
export interface SweepSummary {
  stacks: number;
  errors: number;
  differ: number;
  same: number;
}

/** Everything `plan --stacks` and `drift --stacks` print; one implementation per format. */
export interface SweepView {
  /** One stack's result, as soon as it is known, with the exit code a run of that stack alone would end with. */
  stack(result: SweptStack, exitCode: number): void;
  /** The counts, once every stack is done. */
  summary(summary: SweepSummary): void;
}

/**
 * The view of a sweep: text (each stack under a heading with its name and path: its plan, its
 * drift report, its diagnostics or why it could not be read; then the counts) or JSON (one
 * document per line and per stack, as `plan --format json` or `drift --format json` prints it for
 * that stack (an invalid stack: validate's document), with the stack's `path` and `name` added, so
 * `report merge` reads a sweep's output as it reads a matrix job's).
 */
export function createSweepView(command: 'plan' | 'drift', format: string, output: ViewOutput, now: () => number = Date.now): SweepView {
  if (!(SWEEP_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`${command} --stacks prints ${SWEEP_FORMATS.join(' or ')} (one document per line and stack; report merge makes the Markdown summary), not ${format}`);
  const colors = createColors(output.color);
  if (format === 'json') {
    return {
      stack(result, exitCode) {
        output.out(`${JSON.stringify({ path: result.path, name: result.name, ...sweptDocument(command, result, exitCode, now) })}\n`);
      },
      summary: () => {},
    };
  }
  return {
    stack(result, exitCode) {
      const heading = colors.bold(`=== ${result.name ?? '(no name)'} (${result.path}) ===`);
      if (result.kind === 'invalid') output.out(`${heading}\n${diagnosticsText(result.diagnostics, result.files, colors)}`);
      else if (result.kind === 'failed') output.out(`${heading}\nerror: ${result.failure.message} (${result.failure.code}); nothing was compared.\n`);
      else if (command === 'plan') output.out(`${heading}\n${planText(result.plan, result.files, colors)}`);
      else {
        const report = buildDriftReport(result.plan);
        output.out(`${heading}\n${renderDriftText(report, colors)}`);
      }
      void exitCode;
    },
    summary(s) {
      const differ = command === 'plan' ? 'with changes' : 'drifted';
      const same = command === 'plan' ? 'without changes' : 'in sync';
      output.out(
        `${command === 'plan' ? 'Planned' : 'Compared'} ${s.stacks} stack${s.stacks === 1 ? '' : 's'}: ${s.errors} with errors, ${s.differ} ${differ}, ${s.same} ${same}.\n`,
      );
    },
  };
}

/** The JSON document of one stack of a sweep, as the single-stack command prints it. */
function sweptDocument(command: 'plan' | 'drift', result: SweptStack, exitCode: number, now: () => number): Record<string, unknown> {
  if (result.kind === 'invalid') return { ...toDiagnosticsJson(result.diagnostics), exit_code: exitCode };
  if (result.kind === 'failed')
    return command === 'plan' ? toPlanFailureJson(result.failure, result.path) : toDriftFailureJson(result.failure, new Date(now()).toISOString(), result.path);
  return command === 'plan' ? { ...toPlanJson(result.plan), exit_code: exitCode } : toDriftJson(buildDriftReport(result.plan), exitCode);
}

/** A stack of `apply --stacks` as its ending lists it. */
export interface FleetApplyStack {
  path: string;
  name: string | null;
  /** Why it failed or was not started. */
  reason?: string;
}

/** What `apply --stacks` came to: the stacks applied, failed, and not started (in the order they were to go). */
export interface FleetApplyOutcome {
  applied: FleetApplyStack[];
  failed: FleetApplyStack[];
  notStarted: FleetApplyStack[];
}

/** What `apply --stacks` prints around each stack's own apply output. */
export interface FleetApplyView {
  /** A stack's apply starts (its plan and progress follow, as `apply PATH` prints them). */
  stackStarted(stack: FleetApplyStack): void;
  /** The ending: applied, failed, not started. */
  summary(outcome: FleetApplyOutcome): void;
}

/**
 * The view around `apply --stacks`: text (a heading per stack; the ending lists the stacks
 * applied, failed and not started, each with why) or json (a `fleet_stack` event before each
 * stack's own events, and a `fleet_summary` event at the end).
 */
export function createFleetApplyView(format: string, output: ViewOutput): FleetApplyView {
  const colors = createColors(output.color);
  const label = (s: FleetApplyStack) => `${s.name ?? '(no name)'} (${s.path})`;
  if (format === 'json') {
    return {
      stackStarted: (stack) => output.out(`${JSON.stringify({ type: 'fleet_stack', name: stack.name, path: stack.path })}\n`),
      summary: (outcome) => output.out(`${JSON.stringify({ type: 'fleet_summary', applied: outcome.applied, failed: outcome.failed, not_started: outcome.notStarted })}\n`),
    };
  }
  return {
    stackStarted: (stack) => output.out(`${colors.bold(`=== apply ${label(stack)} ===`)}\n`),
    summary(outcome) {
      const lines = [
        colors.bold(`Stacks: ${outcome.applied.length} applied, ${outcome.failed.length} failed, ${outcome.notStarted.length} not started.`),
        ...outcome.applied.map((s) => `  applied:     ${label(s)}`),
        ...outcome.failed.map((s) => `  failed:      ${label(s)}: ${s.reason ?? ''}`),
        ...outcome.notStarted.map((s) => `  not started: ${label(s)}: ${s.reason ?? ''}`),
      ];
      output.out(`${lines.join('\n')}\n`);
    },
  };
}
