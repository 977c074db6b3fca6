import { must } from '../errors.js';
import { formatMessage } from './values.js';
import { describeQuote, formatDifference, formatMoney, hasPrice, type CostLine, type PlanCost } from '../plan/cost.js';

/** How many lines the cost section lists before it only totals (a plan of 1,000 creates). */
const MAX_COST_LINES = 50;

/** `cloud_floating_ip.a` or `3 × cloud_floating_ip (a, b, c)`: what a line prices. */
function lineSubject(line: CostLine): string {
  if (line.addresses.length === 1) return must(line.addresses[0], 'line.addresses[0]');
  const names = line.addresses.map((a) => a.slice(a.indexOf('.') + 1));
  const shown = names.length > 4 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  return `${line.addresses.length} × ${line.type} (${shown})`;
}

/** One priced change: `+ cloud_volume.data: 0.73 EUR/month`, `~ cloud_instance.vm: 14.60 → 29.20 EUR/month (+14.60)`. */
function costLineText(line: CostLine): string {
  const symbol = line.action === 'create' ? '+' : line.action === 'replace' ? '-/+' : '~';
  if (line.problem !== undefined) return `${symbol} ${lineSubject(line)}: price unknown (${line.problem})`;
  if (line.before === undefined) return `${symbol} ${lineSubject(line)}: ${describeQuote(line.after)}`;
  const difference =
    hasPrice(line.before) && hasPrice(line.after) && line.before.currency === line.after.currency ? ` (${formatDifference(line.after.per_month - line.before.per_month)})` : '';
  return `${symbol} ${lineSubject(line)}: ${describeQuote(line.before)} → ${describeQuote(line.after)}${difference}`;
}

/** One currency's totals, or what keeps the plan from having any: `Monthly cost: 14.60 → 44.53 EUR (+29.93)`. */
export function costSummary(cost: PlanCost): string {
  const parts = cost.totals.map((t) => `${formatMoney(t.before)} → ${formatMoney(t.after)} ${t.currency} (${formatDifference(t.difference)})`);
  const caveats = [
    cost.hidden ? "some prices hidden by the account's plan" : '',
    cost.unknown > 0 ? `${cost.unknown} price${cost.unknown === 1 ? '' : 's'} unknown` : '',
    cost.not_priced.length > 0 ? `not priced: ${cost.not_priced.join(', ')}` : '',
  ].filter((c) => c !== '');
  const head =
    parts.length > 0
      ? `Monthly cost of the changes: ${parts.join('; ')}`
      : cost.lines.length === 0
        ? 'Monthly cost of the changes: nothing priced'
        : 'Monthly cost of the changes: no price shown';
  return caveats.length > 0 ? `${head} (${caveats.join('; ')})` : head;
}

/** The text plan's cost section (plan --cost): a line per priced change (bounded), the totals, and the kinds not priced. */
export function costText(cost: PlanCost): string[] {
  const lines = cost.lines.slice(0, MAX_COST_LINES).map((l) => `  ${formatMessage(costLineText(l))}`);
  if (cost.lines.length > MAX_COST_LINES) lines.push(`  ... ${cost.lines.length - MAX_COST_LINES} more priced changes (every one: edgeform plan --cost --format json)`);
  return ['Cost (monthly, as the platform prices it):', ...lines, `  ${formatMessage(costSummary(cost))}`];
}
