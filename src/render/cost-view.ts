import { formatMoney, type SpendItem, type StackSpend } from '../plan/cost.js';
import { formatMessage, markdownCode } from './values.js';
import type { ViewOutput } from './view.js';

/** The formats of `edgeform cost`. */
export const COST_FORMATS = ['text', 'json', 'markdown'] as const;

/** One of {@link COST_FORMATS}. */
export type CostFormat = (typeof COST_FORMATS)[number];

/** Version of the JSON document of `edgeform cost`. */
export const COST_FORMAT_VERSION = '1.0';

/** A stack `edgeform cost` could not report, and why (no name, an invalid stack, a refused request). */
export interface SpendFailure {
  path: string;
  message: string;
}

/** Everything `edgeform cost` prints; one implementation per format (createCostView). */
export interface CostView {
  report(spends: readonly StackSpend[], failures: readonly SpendFailure[]): void;
}

/** The view of a format: text (for a person), JSON (docs/formats.md) or Markdown (a PR or issue comment). */
export function createCostView(format: CostFormat, output: ViewOutput): CostView {
  const views: Record<CostFormat, () => CostView> = {
    text: () => ({
      report: (spends, failures) => {
        output.out(spends.map(spendText).join('\n'));
        for (const f of failures) output.err(`Error: ${formatMessage(f.path)}: ${formatMessage(f.message)}`);
      },
    }),
    json: () => ({ report: (spends, failures) => output.out(JSON.stringify(toCostJson(spends, failures), null, 2)) }),
    markdown: () => ({ report: (spends, failures) => output.out(spendMarkdown(spends, failures)) }),
  };
  return views[format]();
}

/** `instance g2-standard-2-4 in region 76`: what a total is for. */
function subject(item: SpendItem): string {
  return `${item.type}${item.detail === null ? '' : ` ${item.detail}`} in region ${item.region_id}`;
}

/** `1.23 EUR`, `hidden by the account's plan`, `not priced (its error)`. */
function amount(item: SpendItem, status: StackSpend['price_status']): string {
  if (item.cost !== null && item.currency !== null) return `${formatMoney(item.cost)} ${item.currency}`;
  if (status === 'hide') return "hidden by the account's plan";
  return `unknown${item.err === null ? '' : ` (${item.err})`}`;
}

function totalText(spend: StackSpend): string {
  if (spend.totals.length > 0) return spend.totals.map((t) => `${formatMoney(t.cost)} ${t.currency}`).join(' + ');
  if (spend.price_status === 'hide') return "hidden by the account's plan";
  return spend.items.length === 0 ? '0 (nothing carrying its tag was billed)' : 'unknown';
}

/** What the tag filter counts, said once per report. */
function countedNote(spend: StackSpend): string {
  return `Counted: resources carrying the tag edgeform-stack=${spend.stack}, which edgeform writes on ${spend.counted_kinds.join(', ')}; other kinds (DNS, CDN, FastEdge, streaming, SSH keys, ...) are not counted.`;
}

/** A stack's spend as text. */
export function spendText(spend: StackSpend): string {
  const lines = [`Spend of stack "${formatMessage(spend.stack)}" (${formatMessage(spend.path)}) from ${spend.from} to ${spend.to}, per the platform's cost report:`];
  for (const item of spend.items) lines.push(`  ${formatMessage(subject(item))}: ${formatMessage(amount(item, spend.price_status))}`);
  lines.push(`Total: ${formatMessage(totalText(spend))}`, countedNote(spend), '');
  return lines.join('\n');
}

/** The JSON document of `edgeform cost` (docs/formats.md). */
export function toCostJson(spends: readonly StackSpend[], failures: readonly SpendFailure[]): Record<string, unknown> {
  return {
    format_version: COST_FORMAT_VERSION,
    stacks: spends.map((s) => ({ ...s })),
    failures: failures.map((f) => ({ ...f })),
  };
}

/** The spend as a Markdown comment: a table per stack, its total, what is counted. */
export function spendMarkdown(spends: readonly StackSpend[], failures: readonly SpendFailure[]): string {
  const out: string[] = [];
  for (const s of spends) {
    out.push(`### edgeform cost for ${markdownCode(s.stack)}`, '', `_From ${s.from} to ${s.to}, per the platform's cost report._`, '');
    if (s.items.length > 0) {
      out.push('| resource | region | cost |', '|---|---|---|');
      for (const item of s.items)
        out.push(
          `| ${markdownCode(`${item.type}${item.detail === null ? '' : ` ${item.detail}`}`, { inTable: true })} | ${item.region_id} | ${markdownCode(amount(item, s.price_status), { inTable: true })} |`,
        );
      out.push('');
    }
    out.push(`**Total:** ${markdownCode(totalText(s))}`, '', `_${countedNote(s)}_`, '');
  }
  for (const f of failures) out.push(`- **Error** ${markdownCode(f.path)}: ${markdownCode(f.message)}`);
  return out.join('\n');
}
