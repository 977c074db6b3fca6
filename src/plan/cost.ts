/**
 * Prices as a plan shows them: one line per priced request (a create, a resize, a replace; the
 * floating IP creates of a place share one line, as the platform prices them by count), the
 * monthly price before and after, and totals per currency. Pure arithmetic over the answers of
 * the platform's pricing routes; the requests are made in src/kinds/plan-economics.ts.
 */

/** One price answer, as the platform gave it: `hide` (the account's plan hides prices) and `error` carry no price. */
export interface PriceQuote {
  status: 'show' | 'hide' | 'error';
  currency: string | null;
  /** The monthly price after discount, tax as the answer says; null when the answer gives none. */
  per_month: number | null;
  /** The monthly price without the discount, when the answer gives it. */
  without_discount_per_month: number | null;
  /** The discount, in percent, when the answer gives it. */
  discount_percent: number | null;
  /** The tax included in the prices, in percent. */
  tax_percent: number | null;
}

/** The price of one change (or of a batch of changes priced together). */
export interface CostLine {
  /** The blocks priced by this line (several for a batch). */
  addresses: string[];
  type: string;
  action: 'create' | 'update' | 'replace';
  /** What the resource costs now (update and replace); absent for a create. */
  before?: PriceQuote;
  /** What it will cost. */
  after?: PriceQuote;
  /** Why no price could be given (a failed pricing request), when there is none. */
  problem?: string;
}

/** The monthly totals of one currency: before, after, and the difference. */
export interface CostTotal {
  currency: string;
  before: number;
  after: number;
  difference: number;
}

/** The cost section of a plan (`plan --cost`). */
export interface PlanCost {
  lines: CostLine[];
  totals: CostTotal[];
  /** Kinds with changes but no pricing route: "not priced", never free. */
  not_priced: string[];
  /** Some answer said `hide`: the account's plan hides prices (never shown as 0). */
  hidden: boolean;
  /** Lines with no price (`error`, a failed request, a null price). */
  unknown: number;
}

/** Whether a quote carries a usable price. */
export function hasPrice(q: PriceQuote | undefined): q is PriceQuote & { per_month: number; currency: string } {
  return q !== undefined && q.status === 'show' && q.per_month !== null && q.currency !== null;
}

/** The cost section from its lines: totals per currency (a line counts only when each of its sides has a price), and what could not be priced. */
export function summarizeCost(lines: readonly CostLine[], notPriced: readonly string[]): PlanCost {
  const totals = new Map<string, CostTotal>();
  let unknown = 0;
  let hidden = false;
  for (const line of lines) {
    const sides = [line.before, line.after].filter((q): q is PriceQuote => q !== undefined);
    if (sides.some((q) => q.status === 'hide')) hidden = true;
    if (line.problem !== undefined || sides.length === 0 || !sides.every(hasPrice)) {
      if (!sides.some((q) => q.status === 'hide')) unknown += 1;
      continue;
    }
    const currency = (line.after ?? line.before)!.currency!;
    const total = totals.get(currency) ?? { currency, before: 0, after: 0, difference: 0 };
    if (hasPrice(line.before)) total.before += line.before.per_month;
    if (hasPrice(line.after)) total.after += line.after.per_month;
    totals.set(currency, total);
  }
  const rounded = [...totals.values()].map((t) => ({ currency: t.currency, before: cents(t.before), after: cents(t.after), difference: cents(t.after - t.before) }));
  return { lines: [...lines], totals: rounded, not_priced: [...new Set(notPriced)].sort(), hidden, unknown };
}

/** A price rounded to cents for totals (the answers' own prices are shown as given). */
function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

/** `12.34 EUR`, `hidden by the account's plan`, `unknown`: a quote as one phrase. */
export function describeQuote(q: PriceQuote | undefined): string {
  if (q === undefined) return '-';
  if (q.status === 'hide') return "hidden by the account's plan";
  if (!hasPrice(q)) return 'price unknown';
  const extras = [q.discount_percent ? `${q.discount_percent}% discount` : '', q.tax_percent ? `incl. ${q.tax_percent}% tax` : ''].filter((x) => x !== '');
  return `${formatMoney(q.per_month)} ${q.currency}/month${extras.length > 0 ? ` (${extras.join(', ')})` : ''}`;
}

/**
 * A monthly amount with two decimals at least (small prices keep their digits: 0.0365), read to
 * five places first so a difference's float residue (32.12 − 17.52) keeps its two decimals.
 */
export function formatMoney(n: number): string {
  const exact = Number(n.toFixed(5));
  const fixed = exact.toFixed(2);
  return Number(fixed) === exact ? fixed : String(exact);
}

/** `+12.00`, `-3.50`, `0.00`: a difference with its sign. */
export function formatDifference(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${formatMoney(Math.abs(n))}`;
}

/** One total of the platform's cost report (a `Total…WithCostSerializer`): what one type of resource in one region cost. */
export interface SpendItem {
  /** The report's resource type: `instance`, `volume`, `floatingip`, `load_balancer`, ... */
  type: string;
  region_id: number;
  /** The flavor or volume type the total is for, when the report says one. */
  detail: string | null;
  billing_value: number;
  billing_value_unit: string;
  /** Null when the account's plan hides prices or the platform could not price it. */
  cost: number | null;
  currency: string | null;
  err: string | null;
}

/** What one stack's resources cost in a period (`edgeform cost`): the cost report totals filtered by its ownership tag. */
export interface StackSpend {
  stack: string;
  /** The stack as given on the command line (a file or a directory). */
  path: string;
  /** The period, as sent: from the start of `from`'s day to the end of `to`'s day (UTC). */
  from: string;
  to: string;
  price_status: 'show' | 'hide' | 'error';
  items: SpendItem[];
  /** Per currency. */
  totals: Array<{ currency: string; cost: number }>;
  /** The kinds whose resources carry the ownership tag, and so are counted. */
  counted_kinds: string[];
}

/** The totals per currency of the items that have a cost. */
export function totalSpend(items: readonly SpendItem[]): Array<{ currency: string; cost: number }> {
  const totals = new Map<string, number>();
  for (const item of items) if (item.cost !== null && item.currency !== null) totals.set(item.currency, (totals.get(item.currency) ?? 0) + item.cost);
  return [...totals].map(([currency, cost]) => ({ currency, cost: Math.round(cost * 100) / 100 }));
}
