import type { ApplyHooks } from '../apply/executor.js';
import { countOutcome, type ApplyOutcome, type FollowUpOutcome, type ResourceOutcome, type RunError } from '../apply/outcome.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { isCheckAddress } from '../config/types.js';
import type { CheckResult, Plan, ResourceChange } from '../plan/types.js';
import { createColors, NO_COLORS, type Colors } from './colors.js';
import { formatCounts } from './diagnostics.js';
import { formatMessage, formatName } from './values.js';
import { diagnosticsText, writePlanText, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform apply`. */
export const APPLY_FORMATS = ['text', 'json'] as const;

/** One of {@link APPLY_FORMATS}. */
export type ApplyFormat = (typeof APPLY_FORMATS)[number];

/** A running action, as interrupt messages list it. */
export interface RunningAction {
  address: string;
  taskIds: readonly string[];
}

/**
 * Everything `edgeform apply` prints: before it acts (the plan to approve, a saved plan's
 * checks), the executor's hooks while it acts, interrupts, heartbeats and the summary. One
 * implementation per format, chosen by {@link createApplyView}.
 */
export interface ApplyView extends ApplyHooks {
  /** Where the approval question is asked: stdout, or stderr when stdout carries JSON lines. */
  readonly promptStream: 'stdout' | 'stderr';
  /** The stack is invalid: nothing was read or changed. */
  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** The plan of the stack, before approval. */
  plan(plan: Plan, files: StackFiles): void;
  /** Approval is needed and there is no terminal to ask on. */
  approvalUnavailable(): void;
  /** The user did not approve: nothing was changed. */
  cancelled(): void;
  /** The saved plan has no changes. */
  savedPlanEmpty(): void;
  /** The stack a saved plan was made from is invalid now. */
  savedStackInvalid(stackPath: string, diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** Planning the stack again for a saved plan failed: the fresh plan, showing why. */
  replanFailed(plan: Plan, files: StackFiles): void;
  /** A check's result is not what it was when the saved plan was made. */
  checkChanged(check: CheckResult, was: CheckResult['status']): void;
  /** The first interrupt came while planning or reading: nothing was changed. */
  interruptedBeforeChanges(): void;
  /** Called every 10 s while actions run, for "Still resizing... [20s elapsed]". */
  tick(): void;
  interruptRequested(running: readonly RunningAction[]): void;
  abortRequested(running: readonly RunningAction[]): void;
  /** The end of the run; `warnings` are the run's own (a targeted apply's), shown with the summary. */
  summary(outcome: ApplyOutcome, warnings?: readonly Diagnostic[]): void;
  /** The plan has errors (the plan, shown before, names them): nothing is applied. */
  planErrored(plan: Plan): void;
  /** The run stopped on an error before it ran anything (the error itself goes to stderr, from the CLI's error boundary). */
  notRun(error: RunError): void;
}

/** Verbs a view uses per resource (from the provider: ["Resizing", "Resized"]). */
export type VerbsOf = (change: ResourceChange) => [string, string];

/** What an apply view needs besides its output. */
export interface ApplyViewOptions {
  verbsOf: VerbsOf;
  /** The clock of elapsed times and timestamps (tests fix it). */
  now?: () => number;
}

/** The view of a format: text (for people, coloured when the run's colour is on) or JSON lines (for machines). */
export function createApplyView(format: ApplyFormat, output: ViewOutput, options: ApplyViewOptions): ApplyView {
  const views: Record<ApplyFormat, () => ApplyView> = {
    text: () => createTextApplyView(output, options),
    json: () => createJsonApplyView(output, options),
  };
  return views[format]();
}

/**
 * What apply prints the same way in every format: an invalid stack's diagnostics, a saved
 * plan's notes and a changed check, the early interrupt. The text goes where it always has
 * (stdout or stderr), coloured as the run's colour says.
 */
function createCommonApplyView(output: ViewOutput, colors: Colors) {
  return {
    invalidStack: (diagnostics: readonly Diagnostic[], files: StackFiles) => output.err(diagnosticsText(diagnostics, files, colors)),
    approvalUnavailable: () =>
      output.err(
        'Error: apply needs approval, and this is not an interactive terminal.\nPass --auto-approve to apply without asking, or save a plan with `edgeform plan --out plan.json` and run `edgeform apply plan.json`.',
      ),
    savedPlanEmpty: () => output.out('The saved plan has no changes to apply.'),
    savedStackInvalid(stackPath: string, diagnostics: readonly Diagnostic[], files: StackFiles) {
      output.err(`The stack ${stackPath} that the saved plan was made from is not valid now; nothing was applied.`);
      output.err(diagnosticsText(diagnostics, files, colors));
    },
    replanFailed: (plan: Plan, files: StackFiles) => writePlanText((text) => output.err(text), plan, files, colors),
    checkChanged: (check: CheckResult, was: CheckResult['status']) =>
      output.out(`${check.address}: was ${was} when planned, is ${check.status} now: ${formatMessage(check.message)}`),
    interruptedBeforeChanges: () => output.err('\nInterrupted before any change was made; stopping.'),
  };
}

const short = (id: string) => formatName(id.length > 12 ? `${id.slice(0, 8)}…` : id);
const ids = (taskIds: readonly string[]) => taskIds.map(formatName).join(', ');
const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

/**
 * The human view: the plan and the question on stdout; then one line per start, progress note
 * and finish (and one per warning); a run-fatal error once, when it happens; a summary at the
 * end. Coloured when the run's colour is on. Platform text (task ids, messages, errors) is escaped.
 */
export function createTextApplyView(output: ViewOutput, options: ApplyViewOptions): ApplyView {
  const { verbsOf, now = Date.now } = options;
  const colors = createColors(output.color);
  const write = (line: string) => output.out(line);
  const started = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  // Replaces between their destroy and their create (see ApplyHooks.onPaused).
  const paused = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  const taskNote = (ids: readonly string[]) => (ids.length > 0 ? ` [task ${ids.map(short).join(', ')}]` : '');
  let runStopped = false;
  return {
    ...createCommonApplyView(output, colors),
    promptStream: 'stdout',
    plan: (plan, files) => writePlanText((text) => output.out(text), plan, files, colors),
    cancelled: () => output.out('Apply cancelled: nothing was changed.'),
    planErrored() {},
    notRun() {},
    onStart(change) {
      started.set(change.address, { change, at: now(), taskIds: [] });
      write(`${colors.bold(change.address)}: ${verbsOf(change)[0]}...`);
    },
    onProgress(change, message, taskIds) {
      const s = started.get(change.address) ?? paused.get(change.address);
      paused.delete(change.address);
      if (s) {
        s.taskIds = [...taskIds];
        started.set(change.address, s);
      }
      write(`${colors.bold(change.address)}: ${formatMessage(message)}`);
    },
    onPaused(change, destroyed) {
      // Nothing of it runs until its create starts: no "Still replacing" lines meanwhile.
      const s = started.get(change.address);
      started.delete(change.address);
      if (s) paused.set(change.address, s);
      const elapsed = s ? ` after ${seconds(now() - s.at)}` : '';
      const what = destroyed.status === 'applied' ? `${colors.green('destroyed')}${elapsed}${taskNote(destroyed.taskIds)}` : 'already gone';
      write(`${colors.bold(change.address)}: ${what}; its replacement is created once what it depends on is ready`);
    },
    onFinish(change, outcome) {
      const s = started.get(change.address) ?? paused.get(change.address);
      started.delete(change.address);
      paused.delete(change.address);
      const elapsed = s ? ` after ${seconds(now() - s.at)}` : '';
      const [progressive, done] = verbsOf(change);
      if (outcome.status === 'applied') write(`${colors.bold(change.address)}: ${colors.green(done)}${elapsed}${taskNote(outcome.taskIds)}${createdNote(outcome)}`);
      else if (outcome.status === 'unchanged' && s) write(`${colors.bold(change.address)}: already as planned; nothing sent${elapsed}${createdNote(outcome)}`);
      else if (outcome.status === 'failed')
        write(`${colors.bold(change.address)}: ${colors.red(`${progressive} failed`)}${elapsed}${taskNote(outcome.taskIds)}: ${formatMessage(outcome.error ?? 'unknown error')}`);
      else if (outcome.status === 'stopped')
        write(
          `${colors.bold(change.address)}: ${colors.yellow(outcome.destroyed ? 'stopped between its destroy and its create' : 'stopped part-way by the interrupt')}${elapsed}${taskNote(outcome.taskIds)}: ${formatMessage(outcome.error ?? 'no further step was started')}`,
        );
      else if (outcome.status === 'aborted') write(`${colors.bold(change.address)}: ${colors.red('abandoned')}${taskNote(outcome.taskIds)}`);
      else if (outcome.status === 'not-started' && s)
        write(`${colors.bold(change.address)}: not started: ${runStopped ? 'the run stopped' : 'stopped by the interrupt'} before anything was sent`);
      for (const warning of outcome.warnings ?? []) write(`${colors.bold(change.address)}: ${colors.yellow('warning')}: ${formatMessage(warning)}`);
    },
    onFollowUpStart(change) {
      started.set(change.address, { change, at: now(), taskIds: [] });
      write(`${colors.bold(change.address)}: ${stepVerbs(change.follow_up!.step)[0]}...`);
    },
    onFollowUpFinish(change, outcome) {
      const s = started.get(change.address);
      started.delete(change.address);
      const elapsed = s ? ` after ${seconds(now() - s.at)}` : '';
      const [progressive, done] = stepVerbs(outcome.step);
      if (outcome.status === 'applied') write(`${colors.bold(change.address)}: ${colors.green(done)}${elapsed}`);
      else if (outcome.status === 'failed')
        write(`${colors.bold(change.address)}: ${colors.red(`${progressive} failed`)}${elapsed}: ${formatMessage(outcome.error ?? 'unknown error')}`);
      else if (outcome.status === 'skipped') write(`${colors.bold(change.address)}: ${outcome.step} skipped: ${describeSkip(outcome)}`);
      else write(`${colors.bold(change.address)}: ${outcome.step} not started: the run stopped first`);
    },
    onRunError(error) {
      runStopped = true;
      const waiting = started.size > 0 ? ` Waiting for ${started.size} running action${started.size === 1 ? '' : 's'} to finish.` : '';
      write(colors.red(`\nError: ${formatMessage(error.message)}`));
      write(`No new actions will start.${waiting}`);
    },
    tick() {
      for (const s of started.values()) {
        const [progressive] = verbsOf(s.change);
        write(`${colors.bold(s.change.address)}: Still ${progressive.toLowerCase()}... [${seconds(now() - s.at)} elapsed]${taskNote(s.taskIds)}`);
      }
    },
    interruptRequested(running) {
      write(
        colors.yellow(
          `\nInterrupt received: no new actions will start. Waiting for ${running.length} running action${running.length === 1 ? '' : 's'} to finish; interrupt again to stop waiting.`,
        ),
      );
      for (const r of running) write(`  ${r.address}${taskNote(r.taskIds)}`);
    },
    abortRequested(running) {
      write(colors.red('\nSecond interrupt: stopped waiting. These actions were still running; their platform tasks go on without edgeform:'));
      for (const r of running) write(`  ${r.address}: ${r.taskIds.length > 0 ? `task ${ids(r.taskIds)}` : 'no task id known yet'}`);
      if (running.length > 0) write('A later edgeform plan or apply sees the platform lock on these resources and waits for the task instead of sending a second change.');
    },
    summary(outcome, warnings = []) {
      write('');
      for (const line of summaryLines(outcome, colors)) write(line);
      for (const warning of warnings) write(`\n${colors.yellow(colors.bold(`Warning: ${warning.summary}`))}\n\n${warning.detail ?? ''}`.trimEnd());
    },
  };
}

/** A follow-up step's progressive and past forms, as progress lines say them: `purge` → ["Purging", "Purged"]. */
function stepVerbs(step: string): [string, string] {
  const stem = step.endsWith('e') ? step.slice(0, -1) : step;
  const title = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
  return [title(`${stem}ing`), title(`${stem}ed`)].map(formatName) as [string, string];
}

/** Why a follow-up or resource was skipped: what it depends on (or what depends on it) failed, or a check it waits for fails. */
function describeSkip(outcome: Pick<FollowUpOutcome, 'skippedBecause'>): string {
  const cause = outcome.skippedBecause;
  return `${cause} ${cause !== undefined && isCheckAddress(cause) ? 'is failing' : 'did not succeed'}; the next apply does it`;
}

/** `[id …, found by name "web"]` for a created or replaced resource; empty otherwise. */
function createdNote(outcome: ResourceOutcome): string {
  if (outcome.id === undefined) return '';
  return ` [id ${formatMessage(outcome.id)}${outcome.identity === undefined ? '' : `, found by ${formatMessage(outcome.identity)}`}]`;
}

/** The JSON events' `id` and `identity` of a created or replaced resource (absent otherwise). */
function createdFields(outcome: ResourceOutcome): { id?: string; identity?: string } {
  return { ...(outcome.id === undefined ? {} : { id: outcome.id }), ...(outcome.id === undefined || outcome.identity === undefined ? {} : { identity: outcome.identity }) };
}

/**
 * The closing lines of an apply: one success line, or every list that is not empty; then the
 * warnings. Resources a run-fatal error kept from starting are counted, not listed (the error
 * itself was shown when it happened). Platform text is escaped.
 */
export function summaryLines(outcome: ApplyOutcome, colors: Colors = NO_COLORS): string[] {
  const n = countOutcome(outcome);
  const followUps = outcome.followUps ?? [];
  const followedUp = followUps.filter((f) => f.status === 'applied');
  const steps = [...new Set(followUps.map((f) => f.step))].map((step) => {
    const done = followedUp.filter((f) => f.step === step).length;
    return ` ${done} ${formatName(step)}${done === 1 ? '' : 's'} done.`;
  });
  const counts = `Resources: ${n.added} added, ${n.changed} changed, ${n.destroyed} destroyed.${steps.join('')}`;
  const group = (title: string, list: ResourceOutcome[], describe: (r: ResourceOutcome) => string) => {
    if (list.length === 0) return;
    lines.push('', `${title} (${list.length}):`, ...list.map((r) => `  ${describe(r)}`));
  };
  const warned = outcome.resources.filter((r) => (r.warnings?.length ?? 0) > 0);
  const warnings = () => group('Warnings', warned, (r) => `${r.address}: ${(r.warnings ?? []).map(formatMessage).join('; ')}`);
  const lines: string[] = [];
  const allFollowedUp = followedUp.length === followUps.length;
  if (!outcome.interrupted && outcome.runError === undefined && n.failed === 0 && n.skipped === 0 && n.stopped === 0 && n.aborted === 0 && n.notStarted === 0 && allFollowedUp) {
    lines.push(colors.green(colors.bold(`Apply complete! ${counts}`)));
    warnings();
    return lines;
  }
  lines.push(colors.red(colors.bold(outcome.interrupted ? `Apply interrupted. ${counts}` : `Apply failed. ${counts}`)));
  const tasks = (r: ResourceOutcome) => (r.taskIds.length > 0 ? ` [task ${ids(r.taskIds)}]` : '');
  const by = (status: ResourceOutcome['status']) => outcome.resources.filter((r) => r.status === status);
  group('Applied', by('applied'), (r) => `${r.address} (${r.action})${tasks(r)}${createdNote(r)}`);
  group('Failed', by('failed'), (r) => `${r.address} (${r.action})${tasks(r)}: ${formatMessage(r.error ?? 'unknown error')}`);
  const followUpGroup = (title: string, status: FollowUpOutcome['status'], describe: (f: FollowUpOutcome) => string) => {
    const list = followUps.filter((f) => f.status === status);
    if (list.length > 0) lines.push('', `${title} (${list.length}):`, ...list.map((f) => `  ${f.address} (${formatName(f.step)}): ${describe(f)}`));
  };
  followUpGroup('Follow-ups failed', 'failed', (f) => `${formatMessage(f.error ?? 'unknown error')}; nothing was recorded, so the next apply does it again`);
  followUpGroup('Follow-ups skipped', 'skipped', describeSkip);
  followUpGroup('Follow-ups not started', 'not-started', () => 'the run stopped first; the next apply does it');
  group('Stopped part-way', by('stopped'), (r) => `${r.address} (${r.action})${tasks(r)}: ${formatMessage(r.error ?? 'stopped by the interrupt')}`);
  group('Still running on the platform', by('aborted'), (r) => `${r.address} (${r.action})${tasks(r)}`);
  group(
    'Skipped',
    by('skipped'),
    (r) =>
      `${r.address}: depends on ${r.skippedBecause}, which ${r.skippedBecause !== undefined && isCheckAddress(r.skippedBecause) ? 'is failing' : 'failed'}${r.destroyed ? ' (its old resource was destroyed; its replacement was not created)' : ''}`,
  );
  if (outcome.runError !== undefined) {
    const notStarted = by('not-started').length;
    if (notStarted > 0) lines.push('', `Not started (${notStarted}): the run stopped on the error above before anything was sent for them.`);
  } else {
    group('Not started', by('not-started'), (r) => `${r.address} (${r.action})`);
  }
  warnings();
  lines.push('', ...nextSteps(outcome));
  return lines;
}

/**
 * What to do after a failed or interrupted apply: apply again where that can help (an outage, a
 * lock, a failed task, an interrupt), and, for changes the platform refused for a reason a rerun
 * does not change (ResourceOutcome.refused), what to change first: applying the same stack again
 * would fail the same way.
 */
function nextSteps(outcome: ApplyOutcome): string[] {
  const refused = outcome.resources.filter((r) => r.status === 'failed' && r.refused === true);
  const blocked = new Set(refused.map((r) => r.address));
  const retryable = outcome.resources.some(
    (r) =>
      (r.status === 'failed' && r.refused !== true) ||
      (r.status === 'skipped' && !blocked.has(r.skippedBecause ?? '')) ||
      r.status === 'stopped' ||
      r.status === 'aborted' ||
      r.status === 'not-started',
  );
  const steps: string[] = [];
  if (refused.length > 0) {
    const which = refused.map((r) => r.address).join(', ');
    steps.push(
      `The platform refused ${refused.length === 1 ? `the change of ${which}` : `the changes of ${which}`} for a reason applying again does not change: change the stack as the error says, then run edgeform plan (finished work is not repeated).`,
    );
  }
  if (retryable || outcome.interrupted || refused.length === 0) {
    steps.push(`${refused.length > 0 ? 'For the rest, run' : 'Run'} edgeform apply again to converge: finished work is not repeated.`);
  }
  return steps;
}

/**
 * The machine view: stdout carries JSON lines only (the plan and the question go to stderr, as
 * text), one JSON object per line, each with `type` and `timestamp`. Events:
 * `apply_start`, `apply_progress`, `apply_complete` (applied, unchanged; with `warnings`),
 * `apply_errored` (failed, stopped, skipped, not-started, aborted; with `error` and
 * `skipped_because`), `interrupt` (stage stop | abort), `check_changed`, `run_error` (`code`,
 * `message`: what stopped the run: a run-fatal error, or before anything ran an invalid stack, a
 * plan with errors, no approval...), and last, exactly once in every run, `change_summary`: `add`, `change`, `destroy`,
 * `failed`, `skipped`, `stopped` (started, stopped part-way by the interrupt), `aborted` (still
 * running on the platform when the run was abandoned), `not_started` (never started; aborted
 * ones are not counted here), `warned`, `interrupted`, `run_error` (null or `{code, message}`),
 * `resources` (address, action, status, task_ids, error, skipped_because, warnings), and
 * `follow_ups` (address, step, status, error, skipped_because, elapsed_ms). A follow-up (a
 * purge after the changes) has `follow_up_start`, then `follow_up_complete` or `follow_up_errored`.
 */
export function createJsonApplyView(output: ViewOutput, options: Pick<ApplyViewOptions, 'now'> = {}): ApplyView {
  const { now = Date.now } = options;
  const colors = createColors(output.color);
  const write = (line: string) => output.out(line);
  const running = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  const paused = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  const emit = (type: string, fields: Record<string, unknown>) => write(JSON.stringify({ type, timestamp: new Date(now()).toISOString(), ...fields }));
  const progress = (r: { change: ResourceChange; at: number; taskIds: readonly string[] }, message: string) =>
    emit('apply_progress', { address: r.change.address, action: r.change.action, message, task_ids: r.taskIds, elapsed_ms: now() - r.at });
  const common = createCommonApplyView(output, colors);
  // Every run ends with exactly one change_summary, whatever stopped it.
  let summarized = false;
  const view: ApplyView = {
    ...common,
    promptStream: 'stderr',
    invalidStack(diagnostics, files) {
      common.invalidStack(diagnostics, files);
      view.notRun({ code: 'EDGEFORM_INVALID_STACK', message: `the stack is not valid (${describeDiagnostics(diagnostics)}); nothing was read or changed` });
    },
    savedStackInvalid(stackPath, diagnostics, files) {
      common.savedStackInvalid(stackPath, diagnostics, files);
      view.notRun({
        code: 'EDGEFORM_INVALID_STACK',
        message: `the stack ${stackPath} that the saved plan was made from is not valid now (${describeDiagnostics(diagnostics)}); nothing was applied`,
      });
    },
    approvalUnavailable() {
      common.approvalUnavailable();
      view.notRun({ code: 'EDGEFORM_APPROVAL_UNAVAILABLE', message: 'apply needs approval, and this is not an interactive terminal (pass --auto-approve); nothing was changed' });
    },
    savedPlanEmpty() {
      output.err('The saved plan has no changes to apply.');
      view.summary({ resources: [], interrupted: false, aborted: false });
    },
    checkChanged(check, was) {
      emit('check_changed', { address: check.address, was, status: check.status, message: check.message });
    },
    interruptedBeforeChanges() {
      common.interruptedBeforeChanges();
      view.notRun({ code: 'EDGEFORM_INTERRUPTED', message: 'interrupted before any change was made' });
    },
    plan: (plan, files) => writePlanText((text) => output.err(text), plan, files, colors),
    planErrored(plan) {
      view.notRun({ code: 'EDGEFORM_PLAN_ERRORED', message: `the plan has errors (${describeDiagnostics(plan.diagnostics)}); nothing was applied` });
    },
    cancelled() {
      output.err('Apply cancelled: nothing was changed.');
      view.notRun({ code: 'EDGEFORM_CANCELLED', message: 'apply was not approved; nothing was changed' });
    },
    notRun(error) {
      if (summarized) return;
      view.onRunError?.(error);
      view.summary({ resources: [], interrupted: false, aborted: false, runError: error });
    },
    onStart(change) {
      running.set(change.address, { change, at: now(), taskIds: [] });
      emit('apply_start', { address: change.address, action: change.action });
    },
    onProgress(change, message, taskIds) {
      const r = { change, at: running.get(change.address)?.at ?? paused.get(change.address)?.at ?? now(), taskIds: [...taskIds] };
      paused.delete(change.address);
      running.set(change.address, r);
      progress(r, message);
    },
    onPaused(change, destroyed) {
      const r = running.get(change.address) ?? { change, at: now(), taskIds: [] };
      running.delete(change.address);
      paused.set(change.address, r);
      progress(
        { ...r, taskIds: destroyed.taskIds },
        destroyed.status === 'applied' ? 'destroyed; its replacement is created next' : 'already gone; its replacement is created next',
      );
    },
    onFinish(change, outcome) {
      running.delete(change.address);
      paused.delete(change.address);
      const base = {
        address: change.address,
        action: change.action,
        status: outcome.status,
        task_ids: outcome.taskIds,
        elapsed_ms: outcome.elapsedMs ?? 0,
        ...createdFields(outcome),
      };
      if (outcome.status === 'applied' || outcome.status === 'unchanged') emit('apply_complete', { ...base, warnings: outcome.warnings ?? [] });
      else emit('apply_errored', { ...base, error: outcome.error ?? null, skipped_because: outcome.skippedBecause ?? null });
    },
    onFollowUpStart(change) {
      running.set(change.address, { change, at: now(), taskIds: [] });
      emit('follow_up_start', { address: change.address, step: change.follow_up!.step });
    },
    onFollowUpFinish(change, outcome) {
      running.delete(change.address);
      emit(outcome.status === 'applied' ? 'follow_up_complete' : 'follow_up_errored', followUpFields(outcome));
    },
    tick() {
      for (const r of running.values()) progress(r, 'still running');
    },
    interruptRequested(list) {
      emit('interrupt', { stage: 'stop', running: list.map((r) => ({ address: r.address, task_ids: r.taskIds })) });
    },
    abortRequested(list) {
      emit('interrupt', { stage: 'abort', running: list.map((r) => ({ address: r.address, task_ids: r.taskIds })) });
    },
    onRunError(error) {
      emit('run_error', { code: error.code, message: error.message });
    },
    summary(outcome, warnings = []) {
      if (summarized) return;
      summarized = true;
      for (const { severity, code, summary, detail } of warnings) emit('diagnostic', { diagnostic: { severity, code, summary, detail: detail ?? null } });
      const n = countOutcome(outcome);
      emit('change_summary', {
        add: n.added,
        change: n.changed,
        destroy: n.destroyed,
        failed: n.failed,
        skipped: n.skipped,
        stopped: n.stopped,
        aborted: n.aborted,
        not_started: n.notStarted,
        warned: outcome.resources.filter((r) => (r.warnings?.length ?? 0) > 0).length,
        interrupted: outcome.interrupted,
        run_error: outcome.runError ?? null,
        resources: outcome.resources.map((r) => ({
          address: r.address,
          action: r.action,
          status: r.status,
          task_ids: r.taskIds,
          error: r.error ?? null,
          skipped_because: r.skippedBecause ?? null,
          warnings: r.warnings ?? [],
          ...createdFields(r),
          ...(r.destroyed ? { destroyed: true } : {}),
        })),
        follow_ups: (outcome.followUps ?? []).map(followUpFields),
      });
    },
  };
  return view;
}

/** A follow-up's outcome as the JSON events and change_summary show it. */
function followUpFields(f: FollowUpOutcome): Record<string, unknown> {
  return { address: f.address, step: f.step, status: f.status, error: f.error ?? null, skipped_because: f.skippedBecause ?? null, elapsed_ms: f.elapsedMs ?? 0 };
}

/** "2 errors, 0 warnings; first: stack.yaml:4:5: unknown field" (for a run_error message). */
function describeDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const first = diagnostics.find((d) => d.severity === 'error');
  if (!first) return formatCounts(diagnostics);
  const where = first.range ? `${first.range.filename}:${first.range.start.line}:${first.range.start.column}: ` : first.address ? `${first.address}: ` : '';
  return `${formatCounts(diagnostics)}; first: ${where}${first.summary}`;
}
