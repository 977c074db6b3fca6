import type { Diagnostic } from '../config/diagnostics.js';
import { costSummary } from './cost-text.js';
import type { Plan } from '../plan/types.js';
import { clipText } from './escape.js';
import { followUpCounts, followUpLine, hasFollowUp } from './plan-text.js';
import { markdownCode } from './values.js';

/** GitHub's limit for a comment body is 65,536 characters; stay clearly below it. */
export const MARKDOWN_LIMIT = 65_000;

/**
 * The hidden marker CI looks for to update one sticky comment (or issue) per stack and kind;
 * `--` in the label is broken up so it cannot end the HTML comment.
 */
export function commentMarker(kind: 'plan' | 'drift', stackLabel: string): string {
  return `<!-- edgeform:${kind} stack=${stackLabel.replace(/--/g, '-\u2011')} -->`;
}

const SYMBOL = { create: '+', replace: '-/+', update: '~', delete: '-', read: '<=' } as const;

/** How many errors, warnings and failing checks the comment lists outside the collapsed plan. */
const MAX_LISTED = 20;
/** The longest message shown in such a list; the full text is in the collapsed plan. */
const MAX_LISTED_LENGTH = 600;

/** What a plan comment says about where it comes from, besides the plan itself. */
export interface PlanMarkdownOptions {
  stackLabel: string;
  /** The commit planned (GITHUB_SHA, CI_COMMIT_SHA); the line leaves it out when unknown. */
  commit?: string;
  limit?: number;
}

/**
 * A plan as a pull-request comment: hidden marker, one-line summary, the commit and time it
 * was planned, a warning banner when anything is destroyed, then in the open (so a failed plan
 * is still a useful comment) its errors, warnings and failing checks, the addresses by action,
 * and the full text plan in a `diff` fence inside <details> (GitHub colours `+`/`-` lines, and
 * `!` for in-place updates). Kept under `limit` characters: the lists are bounded, the address
 * table and then the text plan are cut at line boundaries with a note, and the code fence and
 * <details> are always closed. Platform text is shown as code spans (markdownCode), so it
 * cannot inject HTML, links or mentions.
 */
export function renderPlanMarkdown(plan: Plan, textPlan: string, options: PlanMarkdownOptions): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const { add, change, destroy } = plan.summary;
  const then = followUpCounts(plan);
  const failedChecks = plan.checks.filter((c) => c.status !== 'pass');
  const head: string[] = [commentMarker('plan', options.stackLabel), `### edgeform plan for \`${options.stackLabel}\``, ''];

  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  const warnings = plan.diagnostics.filter((d) => d.severity === 'warning');
  if (plan.errored)
    head.push(`**Plan failed** with ${errors.length} error${errors.length === 1 ? '' : 's'}; nothing can be applied until ${errors.length === 1 ? 'it is' : 'they are'} fixed.`);
  else if (add + change + destroy === 0 && then === '' && failedChecks.length > 0)
    head.push(`**No changes to resources**; ${failedChecks.length} of ${plan.checks.length} ${plan.checks.length === 1 ? 'check' : 'checks'} failing.`);
  else if (add + change + destroy === 0 && then === '') head.push('**No changes.** The platform matches the stack.');
  else head.push(`**Plan:** ${plan.summary.add} to add, ${change} to change, ${destroy} to destroy${then === '' ? '' : `, then ${then}`}.`);
  head.push('', `_Planned ${options.commit ? `commit ${markdownCode(options.commit.slice(0, 12))} ` : ''}at ${markdownCode(plan.created_at)}._`);
  if (plan.checks.length > 0 && failedChecks.length === 0) head.push('', `Checks: all ${plan.checks.length} passed.`);
  if (plan.cost) head.push('', `**Cost:** ${markdownCode(costSummary(plan.cost).replace(/^Monthly cost of the changes: /, ''))} per month.`);
  const destroyed = plan.resource_changes.filter((c) => c.action === 'delete' || c.action === 'replace');
  if (destroyed.length > 0) {
    head.push('', '> [!WARNING]', `> This plan **destroys ${destroyed.length} resource${destroyed.length === 1 ? '' : 's'}**. Deletion cannot be undone.`);
  }
  head.push(
    ...listed(
      'Errors',
      errors.map((d) => describeDiagnostic(d)),
    ),
    ...listed(
      'Warnings',
      warnings.map((d) => describeDiagnostic(d)),
    ),
    ...listed(
      `Failing checks (${failedChecks.length} of ${plan.checks.length})`,
      failedChecks.map((c) => `\`${c.address}\`: ${c.status === 'fail' ? 'FAILED' : 'ERROR'}: ${markdownCode(clipText(c.message, MAX_LISTED_LENGTH))}`),
    ),
  );
  head.push('');

  const rows = [
    ...plan.resource_changes.filter((c) => c.pruned).map((c) => `| \`-\` delete (pruned${c.destroy_note === undefined ? '' : `, ${c.destroy_note}`}) | \`${c.address}\` |`),
    ...(['create', 'replace', 'update', 'delete'] as const).flatMap((action) =>
      plan.resource_changes
        .filter((c) => c.action === action && !c.pruned)
        .map(
          (c) =>
            `| \`${SYMBOL[action]}\` ${action}${c.destroy_note === undefined ? '' : ` (${c.destroy_note})`}${c.moved_from === undefined ? '' : ` (moved from \`${c.moved_from}\`)`}${c.replaced_because === undefined ? '' : ` (because ${c.replaced_because.map((a) => `\`${a}\``).join(' and ')} ${c.replaced_because.length === 1 ? 'is' : 'are'} replaced)`} | \`${c.address}\` |`,
        ),
    ),
    ...plan.resource_changes.filter(hasFollowUp).map((c) => `| \`~\` ${c.follow_up.step} (after the changes) | ${markdownCode(followUpLine(c))} |`),
    ...plan.checks.map((c) => `| \`<=\` read | \`${c.address}\` (${c.status}) |`),
  ];
  const tableHead = rows.length > 0 ? ['| action | address |', '|---|---|'] : [];

  const diffText = toDiffLines(textPlan.trimEnd().split('\n'));
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(textPlan) + 1));
  const detailsOpen = ['<details><summary>Full plan</summary>', '', `${fence}diff`];
  const detailsClose = [fence, '', '</details>', ''];

  const fixed = [...head, ...tableHead, '', ...detailsOpen, ...detailsClose].join('\n').length + 400;
  const budget = Math.max(0, limit - fixed);
  // The address table gets at most half the budget; the text plan gets the rest.
  const table = takeLines(rows, Math.floor(budget / 2), (n) => `| … | ${n} more not shown; see the full plan |`);
  const textBudget = budget - table.join('\n').length;
  const text = takeLines(diffText, textBudget, (n) => `… truncated: ${n} more lines. Run \`edgeform plan\` locally or save the JSON plan to see everything.`);

  return [...head, ...tableHead, ...table, '', ...detailsOpen, ...text, ...detailsClose].join('\n');
}

/** A bounded bullet list under a bold title; nothing when there are no items. */
function listed(title: string, items: readonly string[]): string[] {
  if (items.length === 0) return [];
  const shown = items.slice(0, MAX_LISTED).map((item) => `- ${item}`);
  if (items.length > MAX_LISTED) shown.push(`- … and ${items.length - MAX_LISTED} more in the full plan below`);
  return ['', `**${title}**`, '', ...shown];
}

/** One diagnostic on one line: where (file:line:col, address), the summary, the detail; untrusted parts as code spans. */
function describeDiagnostic(d: Diagnostic): string {
  const where = d.range ? `${markdownCode(`${d.range.filename}:${d.range.start.line}:${d.range.start.column}`)} ` : '';
  const on = d.address ? ` (${markdownCode(d.address)})` : '';
  const detail = d.detail ? `: ${markdownCode(clipText(d.detail.replace(/\s+/g, ' '), MAX_LISTED_LENGTH))}` : '';
  return `${where}${markdownCode(clipText(d.summary, MAX_LISTED_LENGTH))}${on}${detail}`;
}

/**
 * The text plan's lines with their action symbol moved to the first column, as a `diff` fence
 * colours them: `+` added, `-` removed, and `!` (for `~`, an in-place update, and `-/+`, a
 * replacement, which keeps its symbol) highlighted as changed. Indentation is kept after the symbol; other lines get a leading space.
 */
export function toDiffLines(lines: readonly string[]): string[] {
  return lines.map((line) => {
    // A replacement (-/+) is a change: highlighted, keeping its symbol, which says what happens.
    const replaced = /^(\s*)-\/\+( .*|)$/.exec(line);
    if (replaced) {
      const [, indent = '', rest = ''] = replaced;
      return `!${indent}-/+${rest}`;
    }
    const match = /^(\s*)(?:([-+])|(~)(?= |$))(.*)$/.exec(line);
    if (!match) return line === '' ? '' : ` ${line}`;
    const [, indent = '', sign = '', tilde, rest = ''] = match;
    return `${tilde ? '!' : sign}${indent}${rest}`;
  });
}

/** As many whole lines as fit in `budget` characters, then a note saying how many were cut. */
function takeLines(lines: string[], budget: number, note: (omitted: number) => string): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const reserve = i < lines.length - 1 ? note(lines.length - i).length + 1 : 0;
    if (used + line.length + 1 + reserve > budget) {
      kept.push(note(lines.length - i));
      return kept;
    }
    kept.push(line);
    used += line.length + 1;
  }
  return kept;
}

/** The longest run of backticks in text: a code fence around it must be longer. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
