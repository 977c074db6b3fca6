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
 * (stdout or stderr), coloured as the run's colour says. Each format's view extends it.
 */
abstract class CommonApplyView {
  protected readonly colors: Colors;

  constructor(protected readonly output: ViewOutput) {
    this.colors = createColors(output.color);
  }

  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void {
    this.output.err(diagnosticsText(diagnostics, files, this.colors));
  }

  approvalUnavailable(): void {
    this.output.err(
      'Error: apply needs approval, and this is not an interactive terminal.\nPass --auto-approve to apply without asking, or save a plan with `edgeform plan --out plan.json` and run `edgeform apply plan.json`.',
    );
  }

  savedPlanEmpty(): void {
    this.output.out('The saved plan has no changes to apply.');
  }

  savedStackInvalid(stackPath: string, diagnostics: readonly Diagnostic[], files: StackFiles): void {
    this.output.err(`The stack ${stackPath} that the saved plan was made from is not valid now; nothing was applied.`);
    this.output.err(diagnosticsText(diagnostics, files, this.colors));
  }

  replanFailed(plan: Plan, files: StackFiles): void {
    writePlanText((text) => this.output.err(text), plan, files, this.colors);
  }

  checkChanged(check: CheckResult, was: CheckResult['status']): void {
    this.output.out(`${check.address}: was ${was} when planned, is ${check.status} now: ${formatMessage(check.message)}`);
  }

  interruptedBeforeChanges(): void {
    this.output.err('\nInterrupted before any change was made; stopping.');
  }
}

/** A running change as the views track it: since when, and the platform tasks it has started. */
interface Running {
  change: ResourceChange;
  at: number;
  taskIds: readonly string[];
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
  return new TextApplyView(output, options);
}

class TextApplyView extends CommonApplyView implements ApplyView {
  readonly promptStream = 'stdout';
  private readonly verbsOf: VerbsOf;
  private readonly now: () => number;
  private readonly started = new Map<string, Running>();
  /** Replaces between their destroy and their create (see ApplyHooks.onPaused). */
  private readonly paused = new Map<string, Running>();
  private runStopped = false;

  constructor(output: ViewOutput, options: ApplyViewOptions) {
    super(output);
    this.verbsOf = options.verbsOf;
    this.now = options.now ?? Date.now;
  }

  private write(line: string): void {
    this.output.out(line);
  }

  /** `ADDRESS: what`, the address in bold. */
  private say(change: { address: string }, what: string): void {
    this.write(`${this.colors.bold(change.address)}: ${what}`);
  }

  /** ` after 12s` since the change started, or empty when it was not seen starting. */
  private elapsed(s: Running | undefined): string {
    return s ? ` after ${seconds(this.now() - s.at)}` : '';
  }

  plan(plan: Plan, files: StackFiles): void {
    writePlanText((text) => this.output.out(text), plan, files, this.colors);
  }

  cancelled(): void {
    this.output.out('Apply cancelled: nothing was changed.');
  }

  planErrored(): void {}

  notRun(): void {}

  onStart(change: ResourceChange): void {
    this.started.set(change.address, { change, at: this.now(), taskIds: [] });
    this.say(change, `${this.verbsOf(change)[0]}...`);
  }

  onProgress(change: ResourceChange, message: string, taskIds: readonly string[]): void {
    const s = this.started.get(change.address) ?? this.paused.get(change.address);
    this.paused.delete(change.address);
    if (s) {
      s.taskIds = [...taskIds];
      this.started.set(change.address, s);
    }
    this.say(change, formatMessage(message));
  }

  onPaused(change: ResourceChange, destroyed: ResourceOutcome): void {
    // Nothing of it runs until its create starts: no "Still replacing" lines meanwhile.
    const s = this.started.get(change.address);
    this.started.delete(change.address);
    if (s) this.paused.set(change.address, s);
    const what = destroyed.status === 'applied' ? `${this.colors.green('destroyed')}${this.elapsed(s)}${taskNote(destroyed.taskIds)}` : 'already gone';
    this.say(change, `${what}; its replacement is created once what it depends on is ready`);
  }

  onFinish(change: ResourceChange, outcome: ResourceOutcome): void {
    const { colors } = this;
    const s = this.started.get(change.address) ?? this.paused.get(change.address);
    this.started.delete(change.address);
    this.paused.delete(change.address);
    const elapsed = this.elapsed(s);
    const [progressive, done] = this.verbsOf(change);
    const tasks = taskNote(outcome.taskIds);
    if (outcome.status === 'applied') this.say(change, `${colors.green(done)}${elapsed}${tasks}${createdNote(outcome)}`);
    else if (outcome.status === 'unchanged' && s) this.say(change, `already as planned; nothing sent${elapsed}${createdNote(outcome)}`);
    else if (outcome.status === 'failed') this.say(change, `${colors.red(`${progressive} failed`)}${elapsed}${tasks}: ${formatMessage(outcome.error ?? 'unknown error')}`);
    else if (outcome.status === 'stopped') {
      const how = outcome.destroyed ? 'stopped between its destroy and its create' : 'stopped part-way by the interrupt';
      this.say(change, `${colors.yellow(how)}${elapsed}${tasks}: ${formatMessage(outcome.error ?? 'no further step was started')}`);
    } else if (outcome.status === 'aborted') this.say(change, `${colors.red('abandoned')}${tasks}`);
    else if (outcome.status === 'not-started' && s) this.say(change, `not started: ${this.runStopped ? 'the run stopped' : 'stopped by the interrupt'} before anything was sent`);
    for (const warning of outcome.warnings ?? []) this.say(change, `${colors.yellow('warning')}: ${formatMessage(warning)}`);
  }

  onFollowUpStart(change: ResourceChange): void {
    this.started.set(change.address, { change, at: this.now(), taskIds: [] });
    this.say(change, `${stepVerbs(followUpStep(change))[0]}...`);
  }

  onFollowUpFinish(change: ResourceChange, outcome: FollowUpOutcome): void {
    const s = this.started.get(change.address);
    this.started.delete(change.address);
    const elapsed = this.elapsed(s);
    const [progressive, done] = stepVerbs(outcome.step);
    if (outcome.status === 'applied') this.say(change, `${this.colors.green(done)}${elapsed}`);
    else if (outcome.status === 'failed') this.say(change, `${this.colors.red(`${progressive} failed`)}${elapsed}: ${formatMessage(outcome.error ?? 'unknown error')}`);
    else if (outcome.status === 'skipped') this.say(change, `${outcome.step} skipped: ${describeSkip(outcome)}`);
    else this.say(change, `${outcome.step} not started: the run stopped first`);
  }

  onRunError(error: RunError): void {
    this.runStopped = true;
    const count = this.started.size;
    const waiting = count > 0 ? ` Waiting for ${count} running action${count === 1 ? '' : 's'} to finish.` : '';
    this.write(this.colors.red(`\nError: ${formatMessage(error.message)}`));
    this.write(`No new actions will start.${waiting}`);
  }

  tick(): void {
    for (const s of this.started.values()) {
      const [progressive] = this.verbsOf(s.change);
      this.say(s.change, `Still ${progressive.toLowerCase()}... [${seconds(this.now() - s.at)} elapsed]${taskNote(s.taskIds)}`);
    }
  }

  interruptRequested(running: readonly RunningAction[]): void {
    const count = running.length;
    this.write(
      this.colors.yellow(
        `\nInterrupt received: no new actions will start. Waiting for ${count} running action${count === 1 ? '' : 's'} to finish; interrupt again to stop waiting.`,
      ),
    );
    for (const r of running) this.write(`  ${r.address}${taskNote(r.taskIds)}`);
  }

  abortRequested(running: readonly RunningAction[]): void {
    this.write(this.colors.red('\nSecond interrupt: stopped waiting. These actions were still running; their platform tasks go on without edgeform:'));
    for (const r of running) this.write(`  ${r.address}: ${r.taskIds.length > 0 ? `task ${ids(r.taskIds)}` : 'no task id known yet'}`);
    if (running.length > 0) this.write('A later edgeform plan or apply sees the platform lock on these resources and waits for the task instead of sending a second change.');
  }

  summary(outcome: ApplyOutcome, warnings: readonly Diagnostic[] = []): void {
    const { colors } = this;
    this.write('');
    for (const line of summaryLines(outcome, colors)) this.write(line);
    for (const warning of warnings) this.write(`\n${colors.yellow(colors.bold(`Warning: ${warning.summary}`))}\n\n${warning.detail ?? ''}`.trimEnd());
  }
}

/** ` [task abcdefgh…]` for the tasks a change started, or empty. */
function taskNote(taskIds: readonly string[]): string {
  return taskIds.length > 0 ? ` [task ${taskIds.map(short).join(', ')}]` : '';
}

/** The step of a change's follow-up (the executor starts follow-ups only of changes that have one). */
function followUpStep(change: ResourceChange): string {
  return change.follow_up?.step ?? 'follow-up';
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
  return new JsonApplyView(output, options.now ?? Date.now);
}

class JsonApplyView extends CommonApplyView implements ApplyView {
  readonly promptStream = 'stderr';
  private readonly running = new Map<string, Running>();
  private readonly paused = new Map<string, Running>();
  /** Every run ends with exactly one change_summary, whatever stopped it. */
  private summarized = false;

  constructor(
    output: ViewOutput,
    private readonly now: () => number,
  ) {
    super(output);
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.output.out(JSON.stringify({ type, timestamp: new Date(this.now()).toISOString(), ...fields }));
  }

  private progress(r: Running, message: string): void {
    this.emit('apply_progress', { address: r.change.address, action: r.change.action, message, task_ids: r.taskIds, elapsed_ms: this.now() - r.at });
  }

  override invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void {
    super.invalidStack(diagnostics, files);
    this.notRun({ code: 'EDGEFORM_INVALID_STACK', message: `the stack is not valid (${describeDiagnostics(diagnostics)}); nothing was read or changed` });
  }

  override savedStackInvalid(stackPath: string, diagnostics: readonly Diagnostic[], files: StackFiles): void {
    super.savedStackInvalid(stackPath, diagnostics, files);
    this.notRun({
      code: 'EDGEFORM_INVALID_STACK',
      message: `the stack ${stackPath} that the saved plan was made from is not valid now (${describeDiagnostics(diagnostics)}); nothing was applied`,
    });
  }

  override approvalUnavailable(): void {
    super.approvalUnavailable();
    this.notRun({ code: 'EDGEFORM_APPROVAL_UNAVAILABLE', message: 'apply needs approval, and this is not an interactive terminal (pass --auto-approve); nothing was changed' });
  }

  override savedPlanEmpty(): void {
    this.output.err('The saved plan has no changes to apply.');
    this.summary({ resources: [], interrupted: false, aborted: false });
  }

  override checkChanged(check: CheckResult, was: CheckResult['status']): void {
    this.emit('check_changed', { address: check.address, was, status: check.status, message: check.message });
  }

  override interruptedBeforeChanges(): void {
    super.interruptedBeforeChanges();
    this.notRun({ code: 'EDGEFORM_INTERRUPTED', message: 'interrupted before any change was made' });
  }

  plan(plan: Plan, files: StackFiles): void {
    writePlanText((text) => this.output.err(text), plan, files, this.colors);
  }

  planErrored(plan: Plan): void {
    this.notRun({ code: 'EDGEFORM_PLAN_ERRORED', message: `the plan has errors (${describeDiagnostics(plan.diagnostics)}); nothing was applied` });
  }

  cancelled(): void {
    this.output.err('Apply cancelled: nothing was changed.');
    this.notRun({ code: 'EDGEFORM_CANCELLED', message: 'apply was not approved; nothing was changed' });
  }

  notRun(error: RunError): void {
    if (this.summarized) return;
    this.onRunError(error);
    this.summary({ resources: [], interrupted: false, aborted: false, runError: error });
  }

  onStart(change: ResourceChange): void {
    this.running.set(change.address, { change, at: this.now(), taskIds: [] });
    this.emit('apply_start', { address: change.address, action: change.action });
  }

  onProgress(change: ResourceChange, message: string, taskIds: readonly string[]): void {
    const r = { change, at: this.running.get(change.address)?.at ?? this.paused.get(change.address)?.at ?? this.now(), taskIds: [...taskIds] };
    this.paused.delete(change.address);
    this.running.set(change.address, r);
    this.progress(r, message);
  }

  onPaused(change: ResourceChange, destroyed: ResourceOutcome): void {
    const r = this.running.get(change.address) ?? { change, at: this.now(), taskIds: [] };
    this.running.delete(change.address);
    this.paused.set(change.address, r);
    this.progress(
      { ...r, taskIds: destroyed.taskIds },
      destroyed.status === 'applied' ? 'destroyed; its replacement is created next' : 'already gone; its replacement is created next',
    );
  }

  onFinish(change: ResourceChange, outcome: ResourceOutcome): void {
    this.running.delete(change.address);
    this.paused.delete(change.address);
    const base = {
      address: change.address,
      action: change.action,
      status: outcome.status,
      task_ids: outcome.taskIds,
      elapsed_ms: outcome.elapsedMs ?? 0,
      ...createdFields(outcome),
    };
    if (outcome.status === 'applied' || outcome.status === 'unchanged') this.emit('apply_complete', { ...base, warnings: outcome.warnings ?? [] });
    else this.emit('apply_errored', { ...base, error: outcome.error ?? null, skipped_because: outcome.skippedBecause ?? null });
  }

  onFollowUpStart(change: ResourceChange): void {
    this.running.set(change.address, { change, at: this.now(), taskIds: [] });
    this.emit('follow_up_start', { address: change.address, step: followUpStep(change) });
  }

  onFollowUpFinish(change: ResourceChange, outcome: FollowUpOutcome): void {
    this.running.delete(change.address);
    this.emit(outcome.status === 'applied' ? 'follow_up_complete' : 'follow_up_errored', followUpFields(outcome));
  }

  tick(): void {
    for (const r of this.running.values()) this.progress(r, 'still running');
  }

  interruptRequested(list: readonly RunningAction[]): void {
    this.emit('interrupt', { stage: 'stop', running: list.map((r) => ({ address: r.address, task_ids: r.taskIds })) });
  }

  abortRequested(list: readonly RunningAction[]): void {
    this.emit('interrupt', { stage: 'abort', running: list.map((r) => ({ address: r.address, task_ids: r.taskIds })) });
  }

  onRunError(error: RunError): void {
    this.emit('run_error', { code: error.code, message: error.message });
  }

  summary(outcome: ApplyOutcome, warnings: readonly Diagnostic[] = []): void {
    if (this.summarized) return;
    this.summarized = true;
    for (const { severity, code, summary, detail } of warnings) this.emit('diagnostic', { diagnostic: { severity, code, summary, detail: detail ?? null } });
    const n = countOutcome(outcome);
    this.emit('change_summary', {
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
  }
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
