import { z } from 'zod';
import type { Diagnostic } from '../config/diagnostics.js';
import { EdgeformError, must } from '../errors.js';
import { summarizeCost, type CostLine, type PriceQuote } from '../plan/cost.js';
import { checkQuotas, type QuotaDemand } from '../plan/quota.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { readQuotaUsage } from './cloud-scopes.js';
import type { KindEconomics, LimitsCheck, PriceRequest } from './economics.js';
import { economics } from './economics-table.js';
import type { ProviderContext } from './provider.js';

/** What `assessPlan` adds to a plan: the quota check (`plan --check-quota`, apply by default) and the prices (`plan --cost`). */
export interface AssessOptions {
  quota: boolean;
  cost: boolean;
}

const money = z.number().nullish();
const priceStatus = z.enum(['show', 'hide', 'error']);

/** ItemPriceResponseSerializer: the fields a plan shows. */
const itemPriceAnswer = z.looseObject({
  currency_code: z.string().nullish(),
  price_per_month: money,
  price_without_discount_per_month: money,
  discount_percent: money,
  price_status: priceStatus,
  tax_percent: money,
});

/** InstancePricingPreviewV2ResponseSerializer: the totals (its discount is a string). */
const instancePriceAnswer = z.looseObject({
  currency_code: z.string().nullish(),
  total_price_per_month: money,
  price_without_discount_per_month: money,
  discount_percent: z.union([z.string(), z.number()]).nullish(),
  price_status: priceStatus,
  tax_percent: money,
});

/** LoadBalancerPricingPreviewResponseSerializer: the totals, and the external IP's part of them. */
const balancerPriceAnswer = instancePriceAnswer.extend({ discount_percent: money, per_month: z.looseObject({ external_ip: money }).nullish() });

/** RegionalDiffQuotasSchema (and K8sClusterQuotaResponseSerializer): the exceeded quotas only, as `_limit`, `_requested`, `_usage` numbers. */
const limitsAnswer = z.record(z.string(), z.unknown());

/** A change's kind declarations, typed for any change (each kind's functions receive only its own changes). */
function economicsOf(change: ResourceChange): KindEconomics | undefined {
  return economics[change.type] as KindEconomics | undefined;
}

/** The failure's message, or a rethrow: an interrupt ends the run, a bug is a bug. */
function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) throw signal.reason;
  if (error instanceof EdgeformError) return error.message;
  throw error;
}

/**
 * The plan with its quota check and its prices: quota problems are errors (the plan cannot be
 * applied, nothing was sent), a quota check or a price that cannot be had is a warning. Adds no
 * request when no change needs one. Reads only, each through the client's --parallelism.
 */
export async function assessPlan(ctx: ProviderContext, plan: Plan, options: AssessOptions): Promise<Plan> {
  if (plan.errored && !options.cost) return plan;
  const changes = plan.resource_changes.filter((c) => c.action === 'create' || c.action === 'update' || c.action === 'replace');
  const [quotaProblems, cost] = await Promise.all([
    options.quota && !plan.errored ? checkPlanQuotas(ctx, changes) : Promise.resolve([]),
    options.cost ? pricePlan(ctx, changes) : Promise.resolve(undefined),
  ]);
  const diagnostics = [...plan.diagnostics, ...quotaProblems, ...(cost?.warnings ?? [])];
  const errored = plan.errored || diagnostics.some((d) => d.severity === 'error');
  return { ...plan, diagnostics, errored, applyable: plan.applyable && !errored, ...(cost ? { cost: cost.cost } : {}) };
}

/** client_quotas against the summed demands, and check_limits for what a flavor decides. */
async function checkPlanQuotas(ctx: ProviderContext, changes: readonly ResourceChange[]): Promise<Diagnostic[]> {
  const demands: QuotaDemand[] = changes.flatMap((c) => economicsOf(c)?.quota?.(c) ?? []);
  const checks = new Map<string, { check: LimitsCheck; addresses: string[] }>();
  for (const change of changes) {
    const check = economicsOf(change)?.checkLimits?.(change);
    if (!check) continue;
    const seen = checks.get(check.key);
    if (!seen) checks.set(check.key, { check: { ...check, body: { ...check.body } }, addresses: [change.address] });
    else {
      seen.addresses.push(change.address);
      seen.check.body.names = [...(seen.check.body.names as unknown[]), ...(check.body.names as unknown[])];
    }
  }
  if (demands.length === 0 && checks.size === 0) return [];
  const problems: Diagnostic[] = [];
  const [fromQuotas, fromChecks] = await Promise.all([
    demands.length === 0
      ? Promise.resolve([])
      : readQuotaUsage(ctx).then(
          (quota) => checkQuotas(demands, quota),
          (error: unknown) => [quotaUnavailable(`GET /cloud/v2/client_quotas failed: ${describeFailure(error, ctx.signal)}`)],
        ),
    Promise.all([...checks.values()].map((c) => askLimits(ctx, c.check, c.addresses))),
  ]);
  problems.push(...fromQuotas);
  // A counter client_quotas already refused is not said twice.
  const counterOf = (d: Diagnostic) => /quota (\S+)_limit/.exec(d.summary)?.[1] ?? '';
  const said = new Set(fromQuotas.map(counterOf));
  for (const found of fromChecks) problems.push(...found.filter((d) => d.code !== 'quota-exceeded' || !said.has(counterOf(d))));
  return problems;
}

function quotaUnavailable(why: string): Diagnostic {
  return {
    severity: 'warning',
    code: 'quota-check-unavailable',
    summary: `the quota check could not be made: ${why}`,
    detail: 'The plan was not checked against the quotas; apply may fail halfway on one.',
  };
}

/** One check_limits request: an error per quota its answer says the request would exceed. */
async function askLimits(ctx: ProviderContext, check: LimitsCheck, addresses: string[]): Promise<Diagnostic[]> {
  let answer: Record<string, unknown>;
  try {
    answer = (await ctx.api.request({ method: 'POST', path: check.path, body: check.body, schema: limitsAnswer, retry: 'idempotent', signal: ctx.signal })).body;
  } catch (error) {
    return [quotaUnavailable(`POST ${check.path} failed: ${describeFailure(error, ctx.signal)}`)];
  }
  const problems: Diagnostic[] = [];
  const region = /\/(\d+)\/check_limits$/.exec(check.path)?.[1];
  for (const [key, limit] of Object.entries(answer)) {
    if (!key.endsWith('_limit') || typeof limit !== 'number') continue;
    const counter = key.slice(0, -'_limit'.length);
    const requested = answer[`${counter}_requested`];
    const usage = answer[`${counter}_usage`];
    if (typeof requested !== 'number' || typeof usage !== 'number') continue;
    const missing = Math.max(0, usage + requested - limit);
    problems.push({
      severity: 'error',
      code: 'quota-exceeded',
      summary: `the plan needs ${requested} more ${counter} in region ${region ?? '?'}, but its quota ${key} is ${limit} with ${usage} used: ${missing} missing (check_limits)`,
      detail: `Requested by ${addresses.join(', ')}. Nothing was sent. Ask for a higher limit with a cloud_quota_limit_request block (regional_limits: [{ region_id: ${region ?? '?'}, ${key}: ${usage + requested} }]), or plan fewer or smaller resources.`,
      ...(addresses.length === 1 ? { address: must(addresses[0], 'addresses[0]') } : {}),
    });
  }
  return problems;
}

/** The cost section and its warnings. */
async function pricePlan(ctx: ProviderContext, changes: readonly ResourceChange[]): Promise<{ cost: ReturnType<typeof summarizeCost>; warnings: Diagnostic[] }> {
  const notPriced: string[] = [];
  // One entry per line: a change, or a batch of changes priced together.
  const lines = new Map<string, { line: CostLine; before?: PriceRequest; after?: PriceRequest; count: number }>();
  for (const change of changes) {
    const declared = economicsOf(change);
    if (!declared?.price) {
      notPriced.push(change.type);
      continue;
    }
    const ask = declared.price(change);
    if (!ask) continue;
    const action = change.action as CostLine['action'];
    const batch = ask.after?.batch?.key;
    const key = batch ?? `change ${change.address}`;
    const seen = lines.get(key);
    if (seen) {
      seen.line.addresses.push(change.address);
      seen.count += 1;
    } else
      lines.set(key, {
        line: { addresses: [change.address], type: change.type, action },
        ...(ask.before ? { before: ask.before } : {}),
        ...(ask.after ? { after: ask.after } : {}),
        count: 1,
      });
  }
  const warnings: Diagnostic[] = [];
  await Promise.all(
    [...lines.values()].map(async (entry) => {
      const [before, after] = await Promise.all(
        [entry.before, entry.after].map((request) =>
          request ? askPrice(ctx, request.batch ? { ...request, body: { ...request.body, count: entry.count } } : request) : undefined,
        ),
      );
      for (const [side, got] of [
        ['before', before],
        ['after', after],
      ] as const) {
        if (got === undefined) continue;
        if ('problem' in got) entry.line.problem = got.problem;
        else entry.line[side] = got;
      }
      const address = entry.line.addresses.length === 1 ? { address: must(entry.line.addresses[0], 'entry.line.addresses[0]') } : {};
      if (entry.line.problem !== undefined)
        warnings.push({ severity: 'warning', code: 'price-unknown', summary: `price unknown for ${entry.line.addresses.join(', ')}: ${entry.line.problem}`, ...address });
      else if ([entry.line.before, entry.line.after].some((q) => q?.status === 'error'))
        warnings.push({
          severity: 'warning',
          code: 'price-unknown',
          summary: `price unknown for ${entry.line.addresses.join(', ')}: the platform answered price_status "error"`,
          ...address,
        });
    }),
  );
  return {
    cost: summarizeCost(
      [...lines.values()].map((e) => e.line),
      notPriced,
    ),
    warnings,
  };
}

/** One pricing request, its answer as a quote; a failure as its reason (never thrown, but for an interrupt). */
async function askPrice(ctx: ProviderContext, request: PriceRequest): Promise<PriceQuote | { problem: string }> {
  try {
    if (request.answer === 'instance') {
      const a = (await ctx.api.request({ method: request.method, path: request.path, body: request.body, schema: instancePriceAnswer, retry: 'idempotent', signal: ctx.signal }))
        .body;
      const discount = a.discount_percent === null || a.discount_percent === undefined ? null : Number(a.discount_percent);
      return quote(a.price_status, a.currency_code, a.total_price_per_month, a.price_without_discount_per_month, Number.isFinite(discount) ? discount : null, a.tax_percent);
    }
    if (request.answer === 'loadbalancer') {
      const a = (await ctx.api.request({ method: request.method, path: request.path, body: request.body, schema: balancerPriceAnswer, retry: 'idempotent', signal: ctx.signal }))
        .body;
      // The external IP the preview counts for a VIP whose network it was not told (one the plan creates).
      const less = request.withoutExternalIp ? (a.per_month?.external_ip ?? 0) : 0;
      const minus = (n: number | null | undefined) => (n === null || n === undefined ? n : Math.round((n - less) * 100_000) / 100_000);
      return quote(
        a.price_status,
        a.currency_code,
        minus(a.total_price_per_month),
        less === 0 ? a.price_without_discount_per_month : null,
        a.discount_percent ?? null,
        a.tax_percent,
      );
    }
    const a = (await ctx.api.request({ method: request.method, path: request.path, body: request.body, schema: itemPriceAnswer, retry: 'idempotent', signal: ctx.signal })).body;
    return quote(a.price_status, a.currency_code, a.price_per_month, a.price_without_discount_per_month, a.discount_percent ?? null, a.tax_percent);
  } catch (error) {
    return { problem: `${request.method} ${request.path} failed: ${describeFailure(error, ctx.signal)}` };
  }
}

function quote(
  status: PriceQuote['status'],
  currency: string | null | undefined,
  perMonth: number | null | undefined,
  withoutDiscount: number | null | undefined,
  discount: number | null,
  tax: number | null | undefined,
): PriceQuote {
  return {
    status,
    currency: currency ?? null,
    per_month: status === 'show' ? (perMonth ?? null) : null,
    without_discount_per_month: status === 'show' ? (withoutDiscount ?? null) : null,
    discount_percent: discount,
    tax_percent: tax ?? null,
  };
}
