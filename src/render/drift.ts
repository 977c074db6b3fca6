import type { DriftReport } from '../plan/drift.js';
import { NO_COLORS, type Colors } from './colors.js';
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
