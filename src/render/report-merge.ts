import { must } from '../errors.js';
import type { FleetReport, StackDifference, StackReport, StackStatus } from '../plan/fleet-report.js';
import { clipText } from './escape.js';
import { MARKDOWN_LIMIT } from './plan-markdown.js';
import { formatName, formatValue, markdownCode } from './values.js';
import type { ViewOutput } from './view.js';

/** The formats of `edgeform report merge`. */
export const REPORT_FORMATS = ['markdown', 'json'] as const;

/** One of {@link REPORT_FORMATS}. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Version of the merged report's JSON document. */
export const REPORT_FORMAT_VERSION = '1.0';

/** Everything `edgeform report merge` prints; one implementation per format, chosen by {@link createReportView}. */
export interface ReportView {
  report(report: FleetReport): void;
}

/** What the merged report is called: the fleet's name in its marker and heading. */
export interface ReportOptions {
  name: string;
  /** Markdown: the most characters (default MARKDOWN_LIMIT, under GitHub's 65,536 for a comment or issue body). */
  limit?: number;
}

/** The view of a format: Markdown (an issue or comment body) or JSON (the merged document, docs/formats.md). */
export function createReportView(format: ReportFormat, output: ViewOutput, options: ReportOptions): ReportView {
  const views: Record<ReportFormat, () => ReportView> = {
    markdown: () => ({ report: (report) => output.out(renderReportMarkdown(report, options)) }),
    json: () => ({ report: (report) => output.out(JSON.stringify(toReportJson(report, options.name), null, 2)) }),
  };
  return views[format]();
}

/** The hidden first line of the merged Markdown: what CI finds the fleet's one issue by. `--` is broken up so it cannot end the comment. */
export function reportMarker(name: string): string {
  return `<!-- edgeform:report name=${name.replace(/--/g, '-\u2011')} -->`;
}

/** The words for each status, by what was merged. */
function wordsOf(command: FleetReport['command']): Record<StackStatus, string> & { verb: string } {
  if (command === 'plan') return { error: 'could not be planned', differs: 'with changes', same: 'no changes', verb: 'plan' };
  if (command === 'mixed') return { error: 'errored', differs: 'differ', same: 'unchanged', verb: 'report' };
  return { error: 'could not be compared', differs: 'drifted', same: 'in sync', verb: 'drift' };
}

/** What the exit code means, for the JSON document. */
export function describeReportExit(report: FleetReport): string {
  const words = wordsOf(report.command);
  if (report.exitCode === 1) return `error: ${report.summary.errors} ${report.summary.errors === 1 ? 'stack' : 'stacks'} ${words.error}`;
  if (report.exitCode === 2) return report.command === 'drift' ? 'drift found' : 'changes found';
  return report.command === 'drift' ? 'in sync' : 'no changes';
}

/** The merged report as the JSON document (docs/formats.md). */
export function toReportJson(report: FleetReport, name: string): Record<string, unknown> {
  return {
    format_version: REPORT_FORMAT_VERSION,
    name,
    command: report.command,
    files: report.files,
    summary: report.summary,
    stacks: report.stacks.map((s) => ({
      path: s.path,
      name: s.name,
      status: s.status,
      commands: s.commands,
      errors: s.errors.map((e) => ({ code: e.code, summary: e.summary, where: e.where ?? null })),
      differences: s.differences,
      sources: s.sources,
    })),
    exit_code: report.exitCode,
    exit_meaning: describeReportExit(report),
  };
}

const html = (text: string) => formatName(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A stack as a list item or heading: its path as code, and its name when it has one. */
function stackLabel(s: StackReport): string {
  return `${markdownCode(s.path)}${s.name === null ? '' : ` (${markdownCode(s.name)})`}`;
}

/** A stack in a `<summary>`, where Markdown is not read: HTML, escaped. */
function stackSummary(s: StackReport): string {
  return `<code>${html(clipText(s.path, 300))}</code>${s.name === null ? '' : ` (${html(clipText(s.name, 100))})`}`;
}

const ACTION_WORDS: Record<string, string> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  delete: 'delete',
  changed: 'changed',
  missing: '**gone**',
  reappeared: '**exists**',
  unmanaged: '**unmanaged**',
  check: '**check failing**',
};

/** One stack's differences as a table: resource, what happens to it, each field with the stack's and the platform's value. */
function differencesTable(differences: readonly StackDifference[]): string[] {
  const cell = (v: unknown) => (v === undefined ? '_absent_' : markdownCode(clipText(formatValue(v), 200), { inTable: true }));
  const rows = ['| resource | | field | stack | platform |', '|---|---|---|---|---|'];
  for (const d of differences) {
    const what = ACTION_WORDS[d.action] ?? markdownCode(d.action, { inTable: true });
    const address = markdownCode(clipText(d.address, 200), { inTable: true });
    if (d.fields.length === 0) {
      rows.push(`| ${address} | ${what} | ${d.message ? markdownCode(clipText(d.message, 300), { inTable: true }) : ''} | | |`);
      continue;
    }
    for (const f of d.fields) rows.push(`| ${address} | ${what} | ${markdownCode(clipText(f.field, 200), { inTable: true })} | ${cell(f.stack)} | ${cell(f.platform)} |`);
  }
  return rows;
}

/** How a differing stack is summed up: "2 resources differ, 1 check failing". */
function differenceCount(s: StackReport, command: FleetReport['command']): string {
  const checks = s.differences.filter((d) => d.action === 'check').length;
  const resources = s.differences.length - checks;
  const verb = command === 'plan' ? 'change' : 'differ';
  const parts = [
    resources > 0 ? `${plural(resources, 'resource')} ${resources === 1 && verb === 'differ' ? 'differs' : verb === 'change' ? 'to change' : verb}` : '',
    checks > 0 ? `${plural(checks, 'check')} failing` : '',
  ];
  return parts.filter(Boolean).join(', ') || 'differs';
}

/** An errored stack: its first error in the open, all of them (bounded) folded. */
function errorItem(s: StackReport, detailed: boolean): string[] {
  const first = must(s.errors[0], 's.errors[0]');
  const line = `- ${stackLabel(s)}: ${markdownCode(first.code)} ${markdownCode(clipText(first.summary, 600))}${first.where ? ` at ${markdownCode(first.where)}` : ''}`;
  if (!detailed || s.errors.length === 1) return [line + (s.errors.length > 1 ? ` (and ${s.errors.length - 1} more)` : '')];
  return [
    line,
    '',
    `  <details><summary>all ${s.errors.length} errors</summary>`,
    '',
    ...s.errors.map((e) => `  - ${markdownCode(e.code)} ${markdownCode(clipText(e.summary, 600))}${e.where ? ` at ${markdownCode(e.where)}` : ''}`),
    '',
    '  </details>',
  ];
}

/**
 * The merged report as an issue or comment body: hidden marker, heading and one-line verdict,
 * then the stacks that errored (in the open: they need someone), those that differ with their
 * details folded (`<details>`), those that do not (folded), and the counts. Within `limit`
 * characters: beyond it the details are dropped for one line per stack and a note to download
 * the full report, and beyond that again the lists are cut with a count of what is left out.
 * Every path, name, address and value is a code span (markdownCode) or escaped HTML: nothing
 * in a result file can inject Markdown, HTML, links or mentions.
 */
export function renderReportMarkdown(report: FleetReport, options: ReportOptions): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const full = renderSections(report, options.name, { detailed: true, budget: Infinity });
  if (full.length <= limit) return full;
  const note = `> [!NOTE]\n> The full report (${full.length.toLocaleString('en-US')} characters) is too long for one comment: the stacks' details are left out here. Download the full report from the job's artifacts (\`edgeform report merge … --limit 0\`) to read them.`;
  return renderSections(report, options.name, { detailed: false, budget: limit - note.length - 400, note });
}

function renderSections(report: FleetReport, name: string, how: { detailed: boolean; budget: number; note?: string }): string {
  const words = wordsOf(report.command);
  const { errors, differ, same, stacks } = report.summary;
  const verdict =
    stacks === 0
      ? '**No stacks** were reported.'
      : [errors > 0 ? `**${plural(errors, 'stack')} ${words.error}**` : '', differ > 0 ? `**${differ} ${words.differs}**` : '', same > 0 ? `${same} ${words.same}` : '']
          .filter(Boolean)
          .join(', ') + '.';
  const head = [reportMarker(name), `### edgeform ${words.verb}: ${plural(stacks, 'stack')}${name === 'fleet' ? '' : ` of ${markdownCode(name)}`}`, '', verdict, ''];
  if (how.note) head.push(how.note, '');
  const counts = [
    '| stacks | ' + [words.error, words.differs, words.same].join(' | ') + ' |',
    '|---|---|---|---|',
    `| ${stacks} | ${errors} | ${differ} | ${same} |`,
    '',
    `_Merged from ${plural(report.files, 'result file')}._`,
    '',
  ];
  let used = head.join('\n').length + counts.join('\n').length;
  const body: string[] = [];
  /** Adds a section's items while they fit the budget, then a line counting those left out. */
  const section = (title: string, items: string[][]) => {
    if (items.length === 0) return;
    const lines = [`#### ${title} (${items.length})`, ''];
    let shown = 0;
    for (const item of items) {
      const size = item.join('\n').length + 1;
      if (used + size > how.budget) break;
      lines.push(...item);
      used += size;
      shown++;
    }
    if (shown < items.length) lines.push(`- … and ${items.length - shown} more (in the full report)`);
    body.push(...lines, '');
  };
  const by = (status: StackStatus) => report.stacks.filter((s) => s.status === status);
  section(
    capitalize(words.error),
    by('error').map((s) => errorItem(s, how.detailed)),
  );
  section(
    capitalize(words.differs),
    by('differs').map((s) =>
      how.detailed
        ? [`<details><summary>${stackSummary(s)}: ${differenceCount(s, report.command)}</summary>`, '', ...differencesTable(s.differences), '', '</details>', '']
        : [`- ${stackLabel(s)}: ${differenceCount(s, report.command)}`],
    ),
  );
  const sameStacks = by('same');
  if (sameStacks.length > 0 && how.detailed) {
    body.push(`#### ${capitalize(words.same)} (${sameStacks.length})`, '', `<details><summary>${plural(sameStacks.length, 'stack')}</summary>`, '');
    body.push(...sameStacks.map((s) => `- ${stackLabel(s)}`), '', '</details>', '');
  }
  // Sections end with a blank line, as do folded items: never two in a row (no text of a result holds a line break).
  return [...head, ...body, ...counts].join('\n').replace(/\n{3,}/g, '\n\n');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
