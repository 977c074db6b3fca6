import type { DriftReport } from '../plan/drift.js';
import { NO_COLORS, type Colors } from './colors.js';
import { toDiagnosticsJson } from './diagnostics.js';
import type { RunFailure } from './view.js';
import { commentMarker } from './plan-markdown.js';
import { formatMessage, formatName, formatValue, markdownCode } from './values.js';

const ABSENT = '(absent)';
const show = (v: unknown) => (v === undefined ? ABSENT : formatValue(v));

/**
 * The drift report for a terminal or a log, coloured by `colors` (none by default); platform
 * text (tag keys, values, messages) escaped.
 */
export function renderDriftText(report: DriftReport, colors: Colors = NO_COLORS): string {
  const out: string[] = [headline(report, colors), ''];
  for (const r of report.drifted) {
    if (r.kind === 'changed') {
      out.push(`  ${colors.yellow('~')} ${r.address} has drifted`);
      const fields = r.fields.map((f) => ({ ...f, field: formatName(f.field) }));
      const width = Math.max(...fields.map((f) => f.field.length));
      for (const f of fields) out.push(`      ${f.field.padEnd(width)}  stack: ${show(f.stack)}  platform: ${show(f.platform)}`);
    } else {
      out.push(`  ${colors.red('!')} ${r.address} ${formatMessage(r.message)}`);
    }
  }
  for (const c of report.failing_checks) out.push(`  ${colors.red('✗')} ${c.address}: check failed: ${formatMessage(c.message)}`);
  for (const e of report.errors) out.push(`  ${colors.red('error:')} ${formatMessage(e.summary)}${e.detail ? `\n      ${formatMessage(e.detail)}` : ''}`);
  while (out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

function headline(report: DriftReport, colors: Colors): string {
  const { drifted, failing_checks, errors, resources, checks } = report.summary;
  if (errors > 0) return colors.red(`Drift check failed: ${errors} error${errors === 1 ? '' : 's'}; the platform could not be compared with the stack completely.`);
  if (report.in_sync) return colors.green(`No drift. ${resources} resource${resources === 1 ? '' : 's'} and ${checks} check${checks === 1 ? '' : 's'} match the stack.`);
  const parts = [
    drifted > 0 ? `${drifted} resource${drifted === 1 ? '' : 's'} differ${drifted === 1 ? 's' : ''} from the stack` : '',
    failing_checks > 0 ? `${failing_checks} check${failing_checks === 1 ? '' : 's'} failing` : '',
  ];
  return colors.yellow(`Drift detected: ${parts.filter(Boolean).join(', ')}.`);
}

/**
 * The drift report as a Markdown issue body: headline, a table of fields, checks, errors. Every
 * platform-derived text is a code span (markdownCode), so it cannot inject HTML, links,
 * mentions or table cells.
 */
export function renderDriftMarkdown(report: DriftReport, stackLabel: string): string {
  const out = [commentMarker('drift', stackLabel), `### edgeform drift for \`${stackLabel}\``, '', headline(report, NO_COLORS), ''];
  const cell = (v: unknown) => (v === undefined ? '_absent_' : markdownCode(formatValue(v), { inTable: true }));
  if (report.drifted.length > 0) {
    out.push('| resource | field | stack | platform |', '|---|---|---|---|');
    for (const r of report.drifted) {
      if (r.kind === 'changed') for (const f of r.fields) out.push(`| \`${r.address}\` | ${markdownCode(f.field, { inTable: true })} | ${cell(f.stack)} | ${cell(f.platform)} |`);
      else if (r.kind === 'unproven') out.push(`| \`${r.address}\` | owner mark | proven | **not proven** |`);
      else out.push(`| \`${r.address}\` | | ${r.kind === 'missing' ? 'present' : 'absent'} | ${r.kind === 'missing' ? '**gone**' : '**exists**'} |`);
    }
    out.push('');
  }
  if (report.failing_checks.length > 0) {
    out.push('**Failing checks**', '', ...report.failing_checks.map((c) => `- \`${c.address}\`: ${markdownCode(c.message)}`), '');
  }
  if (report.errors.length > 0) {
    out.push('**Errors**', '', ...report.errors.map((e) => `- ${markdownCode(e.summary)}`), '');
  }
  out.push(`_Checked ${report.summary.resources} resources and ${report.summary.checks} checks at ${report.created_at} against ${report.base_url}._`, '');
  return out.join('\n');
}

/**
 * What a drift run's exit code means, for the JSON report: `in sync` (0), `drift found` (2, or 0
 * with --no-detailed-exitcode), `error: …` (1: the comparison was incomplete), `interrupted` (130).
 */
export function describeDriftExit(exitCode: number, inSync: boolean | null): string {
  if (exitCode === 130) return 'interrupted: the platform was not compared with the stack';
  if (exitCode === 1) return 'error: the platform could not be compared with the stack completely; not a drift verdict';
  if (exitCode === 2) return 'drift found';
  return inSync === true ? 'in sync' : 'drift found (exit 0: --no-detailed-exitcode)';
}

/**
 * The drift report as the JSON document (docs/formats.md): the report, its errors as JSON
 * diagnostics, and the exit code with its meaning. `in_sync` is true only when the comparison
 * was complete and found nothing.
 */
export function toDriftJson(report: DriftReport, exitCode: number): Record<string, unknown> {
  return { ...report, errors: toDiagnosticsJson(report.errors).diagnostics, exit_code: exitCode, exit_meaning: describeDriftExit(exitCode, report.in_sync) };
}

/**
 * The JSON document of a drift run that stopped before it could compare anything (the key
 * refused, the platform down, an interrupt): the report's shape with nothing compared, `in_sync`
 * false (never true when edgeform could not tell: a scheduled job that alerts on `in_sync`
 * reads the document as not in sync, and `exit_code` 1 and `errors` say it is an error, not
 * drift), the error in `errors` (diagnostics shape, its code and message) and the exit code.
 * `path` is the stack as given (the document has no stack record), so a merge of many stacks'
 * results knows whose failure it is.
 */
export function toDriftFailureJson(failure: RunFailure, createdAt: string, path: string): Record<string, unknown> {
  return {
    format_version: '1.0',
    created_at: createdAt,
    base_url: failure.baseUrl,
    path,
    stack: null,
    in_sync: false,
    drifted: [],
    failing_checks: [],
    errors: [{ severity: 'error', code: failure.code, summary: failure.message, detail: null, address: null, range: null }],
    summary: { resources: 0, checks: 0, drifted: 0, failing_checks: 0, errors: 1 },
    exit_code: failure.exitCode,
    exit_meaning: describeDriftExit(failure.exitCode, null),
  };
}
