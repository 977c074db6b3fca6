import kleur from 'kleur';
import type { Diagnostic } from '../config/diagnostics.js';
import type { Action, CheckResult, FieldChange, Plan, ResourceChange } from '../plan/types.js';
import { formatMessage, formatName, formatValue, isMultiline, unifiedDiffLines } from './values.js';

/** How each action is marked, described and coloured, in the order the legend lists them. */
const ACTIONS: Record<Exclude<Action, 'no-op'>, { symbol: string; legend: string; verb: string; paint: (s: string) => string }> = {
  update: { symbol: '~', legend: 'update in-place', verb: 'will be updated in-place', paint: (s) => kleur.yellow(s) },
  delete: { symbol: '-', legend: 'destroy', verb: 'will be destroyed', paint: (s) => kleur.red(s) },
  read: { symbol: '<=', legend: 'read (checks)', verb: 'will be read', paint: (s) => kleur.cyan(s) },
};

/** Renders diagnostics (errors and warnings) for the terminal; supplied by the caller. */
export type DiagnosticFormatter = (diagnostics: readonly Diagnostic[]) => string;

/**
 * The plan for a terminal or a pull request: legend, addresses by action, per-resource
 * changed fields only, checks, diagnostics, and the summary line. Colour follows kleur's
 * global switch (set once by the CLI from NO_COLOR, --no-color and the TTY). Platform text is
 * escaped (values.ts), so it never writes a raw control character.
 */
export function renderPlanText(plan: Plan, options: { formatDiagnostics?: DiagnosticFormatter } = {}): string {
  const out: string[] = [];
  const changes = plan.resource_changes.filter((c) => c.action !== 'no-op');
  const used = new Set<Exclude<Action, 'no-op'>>(changes.map((c) => c.action as Exclude<Action, 'no-op'>));
  if (plan.checks.length > 0) used.add('read');

  if (used.size > 0) {
    out.push('Resource actions are indicated with the following symbols:');
    for (const [action, a] of Object.entries(ACTIONS)) {
      if (used.has(action as Exclude<Action, 'no-op'>)) out.push(`  ${a.paint(a.symbol.padStart(2))} ${a.legend}`);
    }
    out.push('');
  }

  if (changes.length > 0) {
    out.push('edgeform will perform the following actions:', '');
    for (const action of ['update', 'delete'] as const) {
      for (const c of changes.filter((x) => x.action === action)) out.push(`  ${ACTIONS[action].paint(ACTIONS[action].symbol.padStart(2))} ${c.address}`);
    }
    out.push('');
    for (const change of changes) out.push(...renderResource(change), '');
  }

  for (const change of plan.resource_changes.filter((c) => c.action === 'no-op' && c.warnings.length > 0)) {
    out.push(`  # ${change.address} is up to date`, ...change.warnings.map((w) => `    ${kleur.yellow('!')} ${formatMessage(w)}`), '');
  }

  if (plan.checks.length > 0) {
    out.push('Checks:');
    for (const check of plan.checks) out.push(renderCheck(check));
    out.push('');
  }

  if (plan.diagnostics.length > 0 && options.formatDiagnostics) out.push(options.formatDiagnostics(plan.diagnostics).trimEnd(), '');

  out.push(summaryLine(plan));
  return `${out.join('\n')}\n`;
}

/** The last line of a plan: counts, "No changes", or why nothing can be applied. */
export function summaryLine(plan: Plan): string {
  const { change, destroy } = plan.summary;
  const errors = plan.diagnostics.filter((d) => d.severity === 'error').length;
  const counts = `${plan.summary.add} to add, ${change} to change, ${destroy} to destroy.`;
  if (plan.errored) {
    const resources = change + destroy > 0 ? ` The rest of the plan: ${counts}` : '';
    return kleur.red(`Plan failed: ${errors} error${errors === 1 ? '' : 's'}; nothing can be applied until ${errors === 1 ? 'it is' : 'they are'} fixed.${resources}`);
  }
  if (change + destroy === 0) return kleur.green('No changes. Your infrastructure matches the configuration.');
  return `${kleur.bold('Plan:')} ${counts}`;
}

function renderResource(change: ResourceChange): string[] {
  const action = ACTIONS[change.action as 'update' | 'delete'];
  const lines = [`  ${kleur.bold(`# ${change.address}`)} ${action.verb}`];
  lines.push(`  ${action.paint(action.symbol.padStart(2))} ${change.address}`);
  for (const warning of change.warnings) lines.push(`      ${kleur.yellow('!')} ${formatMessage(warning)}`);
  if (change.action === 'delete') {
    for (const [key, value] of Object.entries(change.before ?? {})) lines.push(`      ${formatName(key)}: ${formatValue(value)}`);
  } else {
    lines.push(...renderFieldChanges(change));
  }
  for (const note of change.notes) lines.push(`      ${kleur.dim(`# ${formatMessage(note)}`)}`);
  return lines;
}

/** Changed fields only: scalars as `~ field: a -> b`, maps per key, multi-line strings as a diff. */
function renderFieldChanges(change: ResourceChange): string[] {
  const lines: string[] = [];
  const groups = new Map<string, FieldChange[]>();
  for (const c of change.changes) {
    const head = formatName(c.path[0]!);
    groups.set(head, [...(groups.get(head) ?? []), c]);
  }
  for (const [field, fieldChanges] of groups) {
    const nested = fieldChanges.filter((c) => c.path.length > 1);
    if (nested.length === 0) {
      for (const c of fieldChanges) lines.push(...renderScalar(field, c));
      continue;
    }
    lines.push(`    ${kleur.yellow('~')} ${field}:`);
    const width = Math.max(...nested.map((c) => formatValue(c.path.slice(1).join('.')).length));
    for (const c of nested) {
      const key = formatValue(c.path.slice(1).join('.')).padEnd(width);
      if (c.op === 'add') lines.push(`        ${kleur.green('+')} ${key} = ${formatValue(c.after)}`);
      else if (c.op === 'remove') lines.push(`        ${kleur.red('-')} ${key.trimEnd()}${' '.repeat(width - key.trimEnd().length)} = ${formatValue(c.before)}`);
      else lines.push(`        ${kleur.yellow('~')} ${key} = ${formatValue(c.before)} -> ${formatValue(c.after)}`);
    }
    const unchanged = change.unchanged_elements?.[field] ?? 0;
    if (unchanged > 0) lines.push(`          ${kleur.dim(`# (${unchanged} unchanged ${unchanged === 1 ? 'element' : 'elements'} hidden)`)}`);
  }
  return lines;
}

function renderScalar(field: string, c: FieldChange): string[] {
  if (isMultiline(c.before, c.after)) {
    const diff = unifiedDiffLines(String(c.before ?? ''), String(c.after ?? ''));
    return [
      `    ${kleur.yellow('~')} ${field}:`,
      ...diff.map(formatName).map((line) => `        ${line.startsWith('+') ? kleur.green(line) : line.startsWith('-') ? kleur.red(line) : line}`),
    ];
  }
  if (c.op === 'add') return [`    ${kleur.green('+')} ${field}: ${formatValue(c.after)}`];
  if (c.op === 'remove') return [`    ${kleur.red('-')} ${field}: ${formatValue(c.before)}`];
  return [`    ${kleur.yellow('~')} ${field}: ${formatValue(c.before)} -> ${formatValue(c.after)}`];
}

function renderCheck(check: CheckResult): string {
  const status =
    check.status === 'pass' ? kleur.green('passed') : check.status === 'fail' ? kleur.red('FAILED') : kleur.red('ERROR');
  return `  ${ACTIONS.read.paint('<=')} ${check.address}: ${status}: ${formatMessage(check.message)}`;
}
