import { must } from '../errors.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { costText } from './cost-text.js';
import { describeReplaced, KNOWN_AFTER_APPLY, type Action, type CheckResult, type FieldChange, type Plan, type PlannedFollowUp, type ResourceChange } from '../plan/types.js';
import { NO_COLORS, type Colors } from './colors.js';
import { isMultiline, listDiff, unifiedDiffLines } from './text-diff.js';
import { formatMessage, formatName, formatValue } from './values.js';

/** How each action is marked, described and coloured, in the order the legend lists them. */
const ACTIONS: Record<Exclude<Action, 'no-op'>, { symbol: string; legend: string; verb: string; style: 'yellow' | 'red' | 'cyan' | 'green' }> = {
  create: { symbol: '+', legend: 'create', verb: 'will be created', style: 'green' },
  replace: { symbol: '-/+', legend: 'destroy and then create replacement', verb: 'must be replaced', style: 'red' },
  update: { symbol: '~', legend: 'update in-place', verb: 'will be updated in-place', style: 'yellow' },
  delete: { symbol: '-', legend: 'destroy', verb: 'will be destroyed', style: 'red' },
  read: { symbol: '<=', legend: 'read (checks)', verb: 'will be read', style: 'cyan' },
};

/** Renders diagnostics (errors and warnings) for the terminal; supplied by the caller. */
export type DiagnosticFormatter = (diagnostics: readonly Diagnostic[]) => string;

/**
 * The plan for a terminal or a pull request: legend, addresses by action, per-resource
 * changed fields only, checks, diagnostics, and the summary line. Coloured by `colors` (the
 * view's colouriser; none by default). Platform text is escaped (values.ts), so it never writes
 * a raw control character.
 */
export function renderPlanText(plan: Plan, options: { formatDiagnostics?: DiagnosticFormatter; colors?: Colors } = {}): string {
  return [...planTextChunks(plan, options)].join('');
}

/** Lines a chunk of {@link planTextChunks} holds at least (but for the last). */
const CHUNK_LINES = 512;

/**
 * {@link renderPlanText} in chunks of whole lines, each ending with a line break, for a writer
 * to write as they come: the text of a plan of 10,000 changes (2 MB) is then never held whole.
 */
export function* planTextChunks(plan: Plan, options: { formatDiagnostics?: DiagnosticFormatter; colors?: Colors } = {}): Generator<string> {
  const colors = options.colors ?? NO_COLORS;
  const mark = (action: Exclude<Action, 'no-op'>) => colors[ACTIONS[action].style](ACTIONS[action].symbol.padStart(3));
  const out: string[] = [];
  const changes = plan.resource_changes.filter((c) => c.action !== 'no-op');
  const used = new Set<Exclude<Action, 'no-op'>>(changes.map((c) => c.action as Exclude<Action, 'no-op'>));
  if (plan.checks.length > 0) used.add('read');

  if (used.size > 0) {
    out.push('Resource actions are indicated with the following symbols:');
    for (const [action, a] of Object.entries(ACTIONS)) {
      if (used.has(action as Exclude<Action, 'no-op'>)) out.push(` ${mark(action as Exclude<Action, 'no-op'>)} ${a.legend}`);
    }
    out.push('');
  }

  if (changes.length > 0) {
    const long = summarised(changes);
    if (long.size > 0) out.push(...countsByKind(changes), '');
    out.push('edgeform will perform the following actions:', '');
    // What prune destroys comes first, then each action in the legend's order.
    const ordered = [...changes.filter((c) => c.pruned), ...LISTED.flatMap((action) => changes.filter((c) => c.action === action && !c.pruned))];
    for (const c of ordered) {
      const cut = long.get(c.type);
      if (cut !== undefined && c.action === 'create' && !cut.shown.has(c)) {
        if (c === cut.firstHidden) out.push(`      ${colors.dim(`... ${cut.hidden} more ${c.type} creates (${MORE_HINT})`)}`);
        continue;
      }
      out.push(
        ` ${mark(c.action as Exclude<Action, 'no-op' | 'read'>)} ${c.address}${c.pruned ? colors.dim(' (pruned)') : ''}${c.destroy_note === undefined ? '' : colors.dim(` (${c.destroy_note})`)}${movedFrom(c, colors)}${replacedBecause(c, colors)}`,
      );
    }
    out.push('');
    // The details in plan order (dependency order; what prune destroys is first there too).
    for (const change of changes) {
      const cut = long.get(change.type);
      if (cut !== undefined && change.action === 'create' && !cut.shown.has(change)) {
        if (change === cut.firstHidden) out.push(`  ${colors.dim(`# ... ${cut.hidden} more ${change.type} creates are not shown (${MORE_HINT})`)}`, '');
        continue;
      }
      out.push(...renderResource(change, colors), '');
      if (out.length >= CHUNK_LINES) yield taken(out);
    }
  }

  const followingUp = plan.resource_changes.filter(hasFollowUp);
  if (followingUp.length > 0) {
    out.push(changes.length > 0 ? 'Once those changes are made, edgeform will:' : 'edgeform will:', '');
    for (const change of followingUp) {
      out.push(`  ${colors.yellow('~')} ${followUpLine(change)}`, ...change.follow_up.notes.map((note) => `      ${colors.dim(`# ${formatMessage(note)}`)}`));
    }
    out.push('');
  }

  for (const change of plan.resource_changes.filter((c) => c.action === 'no-op' && c.warnings.length > 0)) {
    out.push(`  # ${change.address} is up to date`, ...change.warnings.map((w) => `    ${colors.yellow('!')} ${formatMessage(w)}`), '');
  }

  if (plan.checks.length > 0) {
    out.push('Checks:');
    for (const check of plan.checks) out.push(renderCheck(check, colors));
    out.push('');
  }

  if (plan.diagnostics.length > 0 && options.formatDiagnostics) out.push(options.formatDiagnostics(plan.diagnostics).trimEnd(), '');

  if (plan.cost) out.push(...costText(plan.cost), '');
  out.push(summaryLine(plan, colors));
  yield taken(out);
}

/**
 * More creates of one kind than this and the text plan shows only the first and last
 * SHOWN_AT_ENDS of them (in its address list and its details): a zone file of 175,000 record
 * sets would otherwise print 60 MB nobody reads. `--format json` keeps every change.
 */
export const SUMMARISED_CREATES = 300;

/** How many creates of a summarised kind the text plan shows at each end. */
export const SHOWN_AT_ENDS = 5;

const MORE_HINT = 'every change: edgeform plan --format json';

/** For each kind with more than SUMMARISED_CREATES creates: the creates shown, how many are not, and the first not shown. */
function summarised(changes: readonly ResourceChange[]): Map<string, { shown: Set<ResourceChange>; hidden: number; firstHidden: ResourceChange }> {
  const creates = new Map<string, ResourceChange[]>();
  for (const c of changes) {
    if (c.action !== 'create') continue;
    const list = creates.get(c.type);
    if (list === undefined) creates.set(c.type, [c]);
    else list.push(c);
  }
  const long = new Map<string, { shown: Set<ResourceChange>; hidden: number; firstHidden: ResourceChange }>();
  for (const [type, list] of creates) {
    if (list.length <= SUMMARISED_CREATES) continue;
    long.set(type, {
      shown: new Set([...list.slice(0, SHOWN_AT_ENDS), ...list.slice(-SHOWN_AT_ENDS)]),
      hidden: list.length - 2 * SHOWN_AT_ENDS,
      firstHidden: must(list[SHOWN_AT_ENDS], 'list[SHOWN_AT_ENDS]'),
    });
  }
  return long;
}

/** `Changes by kind:` and a line per kind with its counts (`dns_rrset: 174144 to add`), for a plan too long to show whole. */
function countsByKind(changes: readonly ResourceChange[]): string[] {
  const counts = new Map<string, { add: number; change: number; destroy: number }>();
  for (const c of changes) {
    const n = counts.get(c.type) ?? { add: 0, change: 0, destroy: 0 };
    if (c.action === 'create' || c.action === 'replace') n.add++;
    if (c.action === 'update') n.change++;
    if (c.action === 'delete' || c.action === 'replace') n.destroy++;
    counts.set(c.type, n);
  }
  const parts = (n: { add: number; change: number; destroy: number }) =>
    [n.add > 0 ? `${n.add} to add` : '', n.change > 0 ? `${n.change} to change` : '', n.destroy > 0 ? `${n.destroy} to destroy` : ''].filter((p) => p !== '').join(', ');
  return ['Changes by kind:', ...[...counts].map(([type, n]) => `  ${type}: ${parts(n)}`)];
}

/** The lines as text (each ending with a line break), the array emptied. */
function taken(lines: string[]): string {
  const text = `${lines.join('\n')}\n`;
  lines.length = 0;
  return text;
}

/** A change that carries a follow-up (ResourceChange.follow_up). */
export type FollowingUp = ResourceChange & { follow_up: PlannedFollowUp };

/** Whether a change carries a follow-up. */
export function hasFollowUp(change: ResourceChange): change is FollowingUp {
  return change.follow_up !== undefined;
}

/**
 * A follow-up as one line: its step, the block's address, what it acts on and why it is due,
 * `purge cdn_resource.site: /index.html, /assets/* (when: "41" → "42")`.
 */
export function followUpLine(change: FollowingUp): string {
  const followUp = change.follow_up;
  const why = followUp.changes.map(
    (c) => `${formatName(c.path.join('.'))}: ${c.op === 'add' ? `${formatValue(c.after)}, none recorded` : `${formatValue(c.before)} → ${formatValue(c.after)}`}`,
  );
  return `${formatName(followUp.step)} ${change.address}: ${formatMessage(followUp.summary)}${why.length > 0 ? ` (${why.join('; ')})` : ''}`;
}

/** The follow-ups of a plan counted by step (`1 purge`, `3 purges`), or empty when it has none. */
export function followUpCounts(plan: Pick<Plan, 'resource_changes'>): string {
  const counts = new Map<string, number>();
  for (const c of plan.resource_changes) if (c.follow_up) counts.set(c.follow_up.step, (counts.get(c.follow_up.step) ?? 0) + 1);
  return [...counts].map(([step, n]) => `${n} ${formatName(step)}${n === 1 ? '' : 's'}`).join(', ');
}

/** The last line of a plan: counts, "No changes" (only when no check fails), or why nothing can be applied. */
export function summaryLine(plan: Plan, colors: Colors = NO_COLORS): string {
  const { add, change, destroy } = plan.summary;
  const errors = plan.diagnostics.filter((d) => d.severity === 'error').length;
  const then = followUpCounts(plan);
  const counts = `${plan.summary.add} to add, ${change} to change, ${destroy} to destroy${then === '' ? '' : `, then ${then}`}.`;
  if (plan.errored) {
    const resources = add + change + destroy > 0 ? ` The rest of the plan: ${counts}` : '';
    return colors.red(`Plan failed: ${errors} error${errors === 1 ? '' : 's'}; nothing can be applied until ${errors === 1 ? 'it is' : 'they are'} fixed.${resources}`);
  }
  if (add + change + destroy === 0 && then === '') {
    const failing = plan.checks.filter((c) => c.status !== 'pass').length;
    // Failing checks are not "all well": say so where the eye lands, on the last line.
    if (failing > 0) return colors.yellow(`No changes to resources; ${failing} of ${plan.checks.length} ${plan.checks.length === 1 ? 'check' : 'checks'} failing.`);
    return colors.green('No changes. Your infrastructure matches the configuration.');
  }
  return `${colors.bold('Plan:')} ${counts}`;
}

/** The resource actions in the order the plan lists them (after what prune destroys). */
const LISTED = ['create', 'replace', 'update', 'delete'] as const;

/** ` (moved from OLDSTACK/TYPE.NAME)` for a move, else nothing. */
function movedFrom(change: ResourceChange, colors: Colors): string {
  return change.moved_from === undefined ? '' : colors.dim(` (moved from ${formatMessage(change.moved_from)})`);
}

/** ` (replaced because TYPE.NAME is replaced)` for a replace that replacements its references read force, else nothing. */
function replacedBecause(change: ResourceChange, colors: Colors): string {
  return change.replaced_because === undefined ? '' : colors.dim(` (replaced because ${formatMessage(describeReplaced(change.replaced_because))})`);
}

function renderResource(change: ResourceChange, colors: Colors): string[] {
  const action = ACTIONS[change.action as (typeof LISTED)[number]];
  const identity =
    change.identity === undefined
      ? ''
      : colors.dim(change.action === 'create' ? ` (to be found by ${formatMessage(change.identity)})` : ` (found by ${formatMessage(change.identity)})`);
  const lines = [
    `  ${colors.bold(`# ${change.address}`)} ${action.verb}${change.replaced_because === undefined ? '' : ` because ${formatMessage(describeReplaced(change.replaced_because))}`}${change.destroy_note === undefined ? '' : ` (${change.destroy_note})`}${identity}${movedFrom(change, colors)}`,
  ];
  lines.push(` ${colors[action.style](action.symbol.padStart(3))} ${change.address}`);
  for (const warning of change.warnings) lines.push(`      ${colors.yellow('!')} ${formatMessage(warning)}`);
  if (change.action === 'delete') {
    for (const [key, value] of Object.entries(change.before ?? {})) lines.push(`      ${formatName(key)}: ${formatValue(value)}`);
  } else if (change.action === 'create') {
    for (const [key, value] of Object.entries(change.after ?? {})) lines.push(...renderCreated(formatName(key), value, colors));
  } else {
    lines.push(...renderFieldChanges(change, colors));
  }
  for (const note of change.notes) lines.push(`      ${colors.dim(`# ${formatMessage(note)}`)}`);
  return lines;
}

/**
 * A value as the plan shows it; what is known only after apply (a platform id, a pending
 * reference, also inside a map) shows as `(known after apply)`, unquoted.
 */
function shownValue(value: unknown): string {
  return value === KNOWN_AFTER_APPLY ? KNOWN_AFTER_APPLY : formatValue(value).replaceAll(QUOTED_UNKNOWN, KNOWN_AFTER_APPLY);
}

const QUOTED_UNKNOWN = JSON.stringify(KNOWN_AFTER_APPLY);

/** A value longer than this on one line is shown on several: a map key by key, a list element by element. */
const LONG_VALUE = 80;

function isLong(value: unknown): boolean {
  return value !== null && typeof value === 'object' && formatValue(value).length > LONG_VALUE;
}

/** A created field: `+ field: value`, or a long map key by key and a long list element by element. */
function renderCreated(field: string, value: unknown, colors: Colors): string[] {
  const plus = colors.green('+');
  if (!isLong(value)) return [`    ${plus} ${field}: ${shownValue(value)}`];
  if (Array.isArray(value)) return [`    ${plus} ${field}: [`, ...value.map((v) => `        ${shownValue(v)},`), '      ]'];
  const entries = Object.entries(value as Record<string, unknown>);
  const width = Math.max(...entries.map(([key]) => formatValue(key).length));
  return [`    ${plus} ${field}:`, ...entries.map(([key, v]) => `        ${plus} ${formatValue(key).padEnd(width)} = ${shownValue(v)}`)];
}

/** Changed fields only: scalars as `~ field: a -> b`, maps per key, multi-line strings as a diff. */
function renderFieldChanges(change: ResourceChange, colors: Colors): string[] {
  const lines: string[] = [];
  const groups = new Map<string, FieldChange[]>();
  for (const c of change.changes) {
    const head = formatName(must(c.path[0], 'c.path[0]'));
    const group = groups.get(head);
    if (group) group.push(c);
    else groups.set(head, [c]);
  }
  for (const [field, fieldChanges] of groups) {
    const nested = fieldChanges.filter((c) => c.path.length > 1);
    if (nested.length === 0) {
      for (const c of fieldChanges) lines.push(...renderScalar(field, c, colors));
      continue;
    }
    lines.push(`    ${colors.yellow('~')} ${field}:`);
    const width = Math.max(...nested.map((c) => formatValue(c.path.slice(1).join('.')).length));
    for (const c of nested) {
      const key = formatValue(c.path.slice(1).join('.')).padEnd(width);
      if (c.op === 'add') lines.push(`        ${colors.green('+')} ${key} = ${shownValue(c.after)}`);
      else if (c.op === 'remove') lines.push(`        ${colors.red('-')} ${key.trimEnd()}${' '.repeat(width - key.trimEnd().length)} = ${formatValue(c.before)}`);
      else lines.push(`        ${colors.yellow('~')} ${key} = ${formatValue(c.before)} -> ${shownValue(c.after)}`);
    }
    const unchanged = change.unchanged_elements?.[field] ?? 0;
    if (unchanged > 0) lines.push(`          ${colors.dim(`# (${unchanged} unchanged ${unchanged === 1 ? 'element' : 'elements'} hidden)`)}`);
  }
  return lines;
}

function renderScalar(field: string, c: FieldChange, colors: Colors): string[] {
  if (isMultiline(c.before, c.after)) {
    const diff = unifiedDiffLines(String(c.before ?? ''), String(c.after ?? ''));
    return [
      `    ${colors.yellow('~')} ${field}:`,
      ...diff.map(formatName).map((line) => `        ${line.startsWith('+') ? colors.green(line) : line.startsWith('-') ? colors.red(line) : line}`),
    ];
  }
  const forces = c.forces_replacement ? colors.red(' # forces replacement') : '';
  if (c.op === 'update' && Array.isArray(c.before) && Array.isArray(c.after) && (isLong(c.before) || isLong(c.after))) {
    // A long list: the elements removed and added, in order; those kept are counted, not shown.
    const elements = listDiff(c.before, c.after);
    const kept = elements.filter((e) => e.op === 'same').length;
    return [
      `    ${colors.yellow('~')} ${field}: [${forces}`,
      ...elements
        .filter((e) => e.op !== 'same')
        .map((e) => (e.op === 'added' ? `        ${colors.green('+')} ${shownValue(e.value)},` : `        ${colors.red('-')} ${formatValue(e.value)},`)),
      ...(kept > 0 ? [`          ${colors.dim(`# (${kept} unchanged ${kept === 1 ? 'element' : 'elements'} hidden)`)}`] : []),
      '      ]',
    ];
  }
  if (c.op === 'add') return [`    ${colors.green('+')} ${field}: ${shownValue(c.after)}${forces}`];
  if (c.op === 'remove') return [`    ${colors.red('-')} ${field}: ${formatValue(c.before)}${forces}`];
  return [`    ${colors.yellow('~')} ${field}: ${formatValue(c.before)} -> ${shownValue(c.after)}${forces}`];
}

function renderCheck(check: CheckResult, colors: Colors): string {
  const status = check.status === 'pass' ? colors.green('passed') : check.status === 'fail' ? colors.red('FAILED') : colors.red('ERROR');
  return `  ${colors[ACTIONS.read.style]('<=')} ${check.address}: ${status}: ${formatMessage(check.message)}`;
}
