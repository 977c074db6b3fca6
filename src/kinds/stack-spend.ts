import { z } from 'zod';
import { UsageError } from '../errors.js';
import { totalSpend, type SpendItem, type StackSpend } from '../plan/cost.js';
import { STACK_TAG } from './fields.js';
import type { ProviderContext } from './provider.js';
import { RESOURCE_KINDS } from './registry.js';

/** CostReportTotalsResponseSerializer: the fields `edgeform cost` shows of each total (every type has these). */
const totalsAnswer = z.looseObject({
  price_status: z.enum(['show', 'hide', 'error']).nullish(),
  results: z.array(
    z.looseObject({
      type: z.string(),
      region_id: z.number(),
      flavor: z.string().nullish(),
      volume_type: z.string().nullish(),
      file_share_type: z.string().nullish(),
      billing_value: z.number(),
      billing_value_unit: z.string(),
      cost: z.number().nullish(),
      currency: z.string().nullish(),
      err: z.string().nullish(),
    }),
  ),
});

/** The kinds whose creates write the ownership tags: what the tag filter of the cost report finds. */
export function taggedKinds(): string[] {
  return Object.values(RESOURCE_KINDS)
    .filter((k) => (k as { create?: { key?: unknown } }).create?.key === 'owner')
    .map((k) => k.type)
    .sort();
}

/** The cost report's limits on a tag filter's value (TagsFilterConditionSerializer: 3 to 256 characters). */
function checkStackName(name: string): void {
  if (name.length < 3 || name.length > 256)
    throw new UsageError(
      `the cost report filters tags by values of 3 to 256 characters; stack "${name}" has ${name.length}, so its spend cannot be asked for by its ownership tag`,
    );
}

/**
 * What a stack's resources cost from the start of `from`'s day to the end of `to`'s day (UTC):
 * `POST /cloud/v1/cost_report/totals` filtered by the ownership tag `edgeform-stack = NAME`
 * (strict), with the last day counted (enable_last_day). No state: whatever carries the tag is
 * counted, per resource type and region.
 */
export async function readStackSpend(ctx: ProviderContext, stack: { name: string; path: string }, period: { from: Date; to: Date }): Promise<StackSpend> {
  checkStackName(stack.name);
  const body = {
    time_from: period.from.toISOString(),
    time_to: period.to.toISOString(),
    enable_last_day: true,
    tags: { condition_type: 'AND', conditions: [{ key: STACK_TAG, value: stack.name, strict: true }] },
  };
  const answer = (await ctx.api.request({ method: 'POST', path: '/cloud/v1/cost_report/totals', body, schema: totalsAnswer, retry: 'idempotent', signal: ctx.signal })).body;
  const items: SpendItem[] = answer.results.map((r) => ({
    type: r.type,
    region_id: r.region_id,
    detail: r.flavor ?? r.volume_type ?? r.file_share_type ?? null,
    billing_value: r.billing_value,
    billing_value_unit: r.billing_value_unit,
    cost: r.cost ?? null,
    currency: r.currency ?? null,
    err: r.err ?? null,
  }));
  return {
    stack: stack.name,
    path: stack.path,
    from: body.time_from.slice(0, 10),
    to: body.time_to.slice(0, 10),
    price_status: answer.price_status ?? 'show',
    items,
    totals: totalSpend(items),
    counted_kinds: taggedKinds(),
  };
}
