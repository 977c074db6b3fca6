import kleur from 'kleur';
import type { ApplyHooks } from '../apply/executor.js';
import { countOutcome, type ApplyOutcome, type ResourceOutcome } from '../apply/outcome.js';
import { isCheckAddress } from '../config/types.js';
import type { ResourceChange } from '../plan/types.js';
import { formatMessage, formatName } from './values.js';

/** A running action, as interrupt messages list it. */
export interface RunningAction {
  address: string;
  taskIds: readonly string[];
}

/** How apply reports itself: the executor's hooks plus interrupts, heartbeats and the summary. */
export interface ApplyView extends ApplyHooks {
  /** Called every 10 s while actions run, for "Still resizing... [20s elapsed]". */
  tick(): void;
  interruptRequested(running: readonly RunningAction[]): void;
  abortRequested(running: readonly RunningAction[]): void;
  summary(outcome: ApplyOutcome): void;
}

/** Verbs a view uses per resource (from the provider: ["Resizing", "Resized"]). */
export type VerbsOf = (change: ResourceChange) => [string, string];

const short = (id: string) => formatName(id.length > 12 ? `${id.slice(0, 8)}…` : id);
const ids = (taskIds: readonly string[]) => taskIds.map(formatName).join(', ');
const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

/**
 * The human view: one line per start, progress note and finish (and one per warning); a
 * run-fatal error once, when it happens; a summary at the end. Platform text (task ids,
 * messages, errors) is escaped.
 */
export function createTextApplyView(write: (line: string) => void, verbsOf: VerbsOf, now: () => number = Date.now): ApplyView {
  const started = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  const taskNote = (ids: readonly string[]) => (ids.length > 0 ? ` [task ${ids.map(short).join(', ')}]` : '');
  let runStopped = false;
  return {
    onStart(change) {
      started.set(change.address, { change, at: now(), taskIds: [] });
      write(`${kleur.bold(change.address)}: ${verbsOf(change)[0]}...`);
    },
    onProgress(change, message, taskIds) {
      const s = started.get(change.address);
      if (s) s.taskIds = [...taskIds];
      write(`${kleur.bold(change.address)}: ${formatMessage(message)}`);
    },
    onFinish(change, outcome) {
      const s = started.get(change.address);
      started.delete(change.address);
      const elapsed = s ? ` after ${seconds(now() - s.at)}` : '';
      const [progressive, done] = verbsOf(change);
      if (outcome.status === 'applied') write(`${kleur.bold(change.address)}: ${kleur.green(done)}${elapsed}${taskNote(outcome.taskIds)}`);
      else if (outcome.status === 'unchanged' && s) write(`${kleur.bold(change.address)}: already as planned; nothing sent${elapsed}`);
      else if (outcome.status === 'failed') write(`${kleur.bold(change.address)}: ${kleur.red(`${progressive} failed`)}${elapsed}${taskNote(outcome.taskIds)}: ${formatMessage(outcome.error ?? 'unknown error')}`);
      else if (outcome.status === 'stopped') write(`${kleur.bold(change.address)}: ${kleur.yellow('stopped part-way by the interrupt')}${elapsed}${taskNote(outcome.taskIds)}: ${formatMessage(outcome.error ?? 'no further step was started')}`);
      else if (outcome.status === 'aborted') write(`${kleur.bold(change.address)}: ${kleur.red('abandoned')}${taskNote(outcome.taskIds)}`);
      else if (outcome.status === 'not-started' && s) write(`${kleur.bold(change.address)}: not started: ${runStopped ? 'the run stopped' : 'stopped by the interrupt'} before anything was sent`);
      for (const warning of outcome.warnings ?? []) write(`${kleur.bold(change.address)}: ${kleur.yellow('warning')}: ${formatMessage(warning)}`);
    },
    onRunError(error) {
      runStopped = true;
      const waiting = started.size > 0 ? ` Waiting for ${started.size} running action${started.size === 1 ? '' : 's'} to finish.` : '';
      write(kleur.red(`\nError: ${formatMessage(error.message)}`));
      write(`No new actions will start.${waiting}`);
    },
    tick() {
      for (const s of started.values()) {
        const [progressive] = verbsOf(s.change);
        write(`${kleur.bold(s.change.address)}: Still ${progressive.toLowerCase()}... [${seconds(now() - s.at)} elapsed]${taskNote(s.taskIds)}`);
      }
    },
    interruptRequested(running) {
      write(kleur.yellow(`\nInterrupt received: no new actions will start. Waiting for ${running.length} running action${running.length === 1 ? '' : 's'} to finish; interrupt again to stop waiting.`));
      for (const r of running) write(`  ${r.address}${taskNote(r.taskIds)}`);
    },
    abortRequested(running) {
      write(kleur.red('\nSecond interrupt: stopped waiting. These actions were still running; their platform tasks go on without edgeform:'));
      for (const r of running) write(`  ${r.address}: ${r.taskIds.length > 0 ? `task ${ids(r.taskIds)}` : 'no task id known yet'}`);
      if (running.length > 0) write('A later edgeform plan or apply sees the platform lock on these resources and waits for the task instead of sending a second change.');
    },
    summary(outcome) {
      write('');
      for (const line of summaryLines(outcome)) write(line);
    },
  };
}

/**
 * The closing lines of an apply: one success line, or every list that is not empty; then the
 * warnings. Resources a run-fatal error kept from starting are counted, not listed (the error
 * itself was shown when it happened). Platform text is escaped.
 */
export function summaryLines(outcome: ApplyOutcome): string[] {
  const n = countOutcome(outcome);
  const counts = `Resources: ${n.added} added, ${n.changed} changed, ${n.destroyed} destroyed.`;
  const group = (title: string, list: ResourceOutcome[], describe: (r: ResourceOutcome) => string) => {
    if (list.length === 0) return;
    lines.push('', `${title} (${list.length}):`, ...list.map((r) => `  ${describe(r)}`));
  };
  const warned = outcome.resources.filter((r) => (r.warnings?.length ?? 0) > 0);
  const warnings = () => group('Warnings', warned, (r) => `${r.address}: ${(r.warnings ?? []).map(formatMessage).join('; ')}`);
  const lines: string[] = [];
  if (!outcome.interrupted && outcome.runError === undefined && n.failed === 0 && n.skipped === 0 && n.stopped === 0 && n.aborted === 0 && n.notStarted === 0) {
    lines.push(kleur.green(kleur.bold(`Apply complete! ${counts}`)));
    warnings();
    return lines;
  }
  lines.push(kleur.red(kleur.bold(outcome.interrupted ? `Apply interrupted. ${counts}` : `Apply failed. ${counts}`)));
  const tasks = (r: ResourceOutcome) => (r.taskIds.length > 0 ? ` [task ${ids(r.taskIds)}]` : '');
  const by = (status: ResourceOutcome['status']) => outcome.resources.filter((r) => r.status === status);
  group('Applied', by('applied'), (r) => `${r.address} (${r.action})${tasks(r)}`);
  group('Failed', by('failed'), (r) => `${r.address} (${r.action})${tasks(r)}: ${formatMessage(r.error ?? 'unknown error')}`);
  group('Stopped part-way', by('stopped'), (r) => `${r.address} (${r.action})${tasks(r)}: ${formatMessage(r.error ?? 'stopped by the interrupt')}`);
  group('Still running on the platform', by('aborted'), (r) => `${r.address} (${r.action})${tasks(r)}`);
  group('Skipped', by('skipped'), (r) => `${r.address}: depends on ${r.skippedBecause}, which ${r.skippedBecause !== undefined && isCheckAddress(r.skippedBecause) ? 'is failing' : 'failed'}`);
  if (outcome.runError !== undefined) {
    const notStarted = by('not-started').length;
    if (notStarted > 0) lines.push('', `Not started (${notStarted}): the run stopped on the error above before anything was sent for them.`);
  } else {
    group('Not started', by('not-started'), (r) => `${r.address} (${r.action})`);
  }
  warnings();
  lines.push('', 'Run edgeform apply again to converge: finished work is not repeated.');
  return lines;
}

/**
 * The machine view: one JSON object per line, each with `type` and `timestamp`. Events:
 * `apply_start`, `apply_progress`, `apply_complete` (applied, unchanged; with `warnings`),
 * `apply_errored` (failed, stopped, skipped, not-started, aborted; with `error` and
 * `skipped_because`), `interrupt` (stage stop | abort), `run_error` (`code`, `message`: a
 * run-fatal error stopped the run), and last `change_summary`: `add`, `change`, `destroy`,
 * `failed`, `skipped`, `stopped` (started, stopped part-way by the interrupt), `aborted` (still
 * running on the platform when the run was abandoned), `not_started` (never started; aborted
 * ones are not counted here), `warned`, `interrupted`, `run_error` (null or `{code, message}`),
 * and `resources` (address, action, status, task_ids, error, skipped_because, warnings).
 */
export function createJsonApplyView(write: (line: string) => void, now: () => number = Date.now): ApplyView {
  const running = new Map<string, { change: ResourceChange; at: number; taskIds: readonly string[] }>();
  const emit = (type: string, fields: Record<string, unknown>) => write(JSON.stringify({ type, timestamp: new Date(now()).toISOString(), ...fields }));
  const progress = (r: { change: ResourceChange; at: number; taskIds: readonly string[] }, message: string) =>
    emit('apply_progress', { address: r.change.address, action: r.change.action, message, task_ids: r.taskIds, elapsed_ms: now() - r.at });
  return {
    onStart(change) {
      running.set(change.address, { change, at: now(), taskIds: [] });
      emit('apply_start', { address: change.address, action: change.action });
    },
    onProgress(change, message, taskIds) {
      const r = { change, at: running.get(change.address)?.at ?? now(), taskIds: [...taskIds] };
      running.set(change.address, r);
      progress(r, message);
    },
    onFinish(change, outcome) {
      running.delete(change.address);
      const base = { address: change.address, action: change.action, status: outcome.status, task_ids: outcome.taskIds, elapsed_ms: outcome.elapsedMs ?? 0 };
      if (outcome.status === 'applied' || outcome.status === 'unchanged') emit('apply_complete', { ...base, warnings: outcome.warnings ?? [] });
      else emit('apply_errored', { ...base, error: outcome.error ?? null, skipped_because: outcome.skippedBecause ?? null });
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
    summary(outcome) {
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
        })),
      });
    },
  };
}
