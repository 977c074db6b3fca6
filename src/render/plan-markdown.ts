import type { Plan } from '../plan/types.js';

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

/**
 * A plan as a pull-request comment: hidden marker, one-line summary, a warning banner when
 * anything is destroyed, the addresses by action, and the full text plan inside <details>.
 * Kept under `limit` characters: the address list and then the text plan are cut at line
 * boundaries with a note, and the code fence and <details> are always closed.
 */
export function renderPlanMarkdown(plan: Plan, textPlan: string, options: { stackLabel: string; limit?: number }): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const { add, change, destroy } = plan.summary;
  const failedChecks = plan.checks.filter((c) => c.status !== 'pass');
  const head: string[] = [commentMarker('plan', options.stackLabel), `### edgeform plan for \`${options.stackLabel}\``, ''];

  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  if (plan.errored)
    head.push(`**Plan failed** with ${errors.length} error${errors.length === 1 ? '' : 's'}; nothing can be applied until ${errors.length === 1 ? 'it is' : 'they are'} fixed.`);
  else if (add + change + destroy === 0) head.push('**No changes.** The platform matches the stack.');
  else head.push(`**Plan:** ${plan.summary.add} to add, ${change} to change, ${destroy} to destroy.`);
  if (plan.checks.length > 0) {
    head.push(
      '',
      failedChecks.length === 0
        ? `Checks: all ${plan.checks.length} passed.`
        : `Checks: **${failedChecks.length} of ${plan.checks.length} failing**: ${failedChecks.map((c) => `\`${c.address}\``).join(', ')}.`,
    );
  }
  const destroyed = plan.resource_changes.filter((c) => c.action === 'delete' || c.action === 'replace');
  if (destroyed.length > 0) {
    head.push('', '> [!WARNING]', `> This plan **destroys ${destroyed.length} resource${destroyed.length === 1 ? '' : 's'}**. Deletion cannot be undone.`);
  }
  head.push('');

  const rows = [
    ...plan.resource_changes.filter((c) => c.pruned).map((c) => `| \`-\` delete (pruned) | \`${c.address}\` |`),
    ...(['create', 'replace', 'update', 'delete'] as const).flatMap((action) =>
      plan.resource_changes.filter((c) => c.action === action && !c.pruned).map((c) => `| \`${SYMBOL[action]}\` ${action} | \`${c.address}\` |`),
    ),
    ...plan.checks.map((c) => `| \`<=\` read | \`${c.address}\` (${c.status}) |`),
  ];
  const tableHead = rows.length > 0 ? ['| action | address |', '|---|---|'] : [];

  const fence = '`'.repeat(Math.max(3, longestBacktickRun(textPlan) + 1));
  const detailsOpen = ['<details><summary>Full plan</summary>', '', `${fence}text`];
  const detailsClose = [fence, '', '</details>', ''];

  const fixed = [...head, ...tableHead, '', ...detailsOpen, ...detailsClose].join('\n').length + 400;
  const budget = Math.max(0, limit - fixed);
  // The address table gets at most half the budget; the text plan gets the rest.
  const table = takeLines(rows, Math.floor(budget / 2), (n) => `| … | ${n} more not shown; see the full plan |`);
  const textBudget = budget - table.join('\n').length;
  const text = takeLines(textPlan.trimEnd().split('\n'), textBudget, (n) => `… truncated: ${n} more lines. Run \`edgeform plan\` locally or save the JSON plan to see everything.`);

  return [...head, ...tableHead, ...table, '', ...detailsOpen, ...text, ...detailsClose].join('\n');
}

/** As many whole lines as fit in `budget` characters, then a note saying how many were cut. */
function takeLines(lines: string[], budget: number, note: (omitted: number) => string): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
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

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
