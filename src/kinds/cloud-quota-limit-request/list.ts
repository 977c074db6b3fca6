import { z } from 'zod';
import { type KindList } from '../kind-list.js';
import { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS } from './schema.js';

/**
 * A limits object as the platform answers it, read as limit name → count (null or absent for one
 * it does not set): the limit names of the vendor's serializer, each checked; any other field (one
 * a later version of the answer adds) is left out, never refusing the whole answer.
 */
const limitsAnswer = (fields: readonly string[]) =>
  z.looseObject(Object.fromEntries(fields.map((f) => [f, z.number().nullish()]))).transform((l) => {
    const known: Record<string, number | null> = {};
    for (const f of fields) if (l[f] !== undefined) known[f] = l[f] as number | null;
    return known;
  });

/** The fields of a quota request answer (LimitsRequestSerializer) edgeform reads. */
export const requestAnswer = z.looseObject({
  id: z.int(),
  status: z.string(),
  description: z.string().nullish(),
  requested_limits: z
    .looseObject({ global_limits: limitsAnswer(GLOBAL_LIMIT_FIELDS).nullish(), regional_limits: z.array(limitsAnswer(['region_id', ...REGIONAL_LIMIT_FIELDS])).nullish() })
    .nullish(),
});

/** A quota limit request as edgeform reads it (GET one or the list). */
export type Request = z.infer<typeof requestAnswer>;

/** A page of the request list (LimitsRequestCollectionSerializer). */
const requestPage = z.looseObject({ count: z.int().min(0), results: z.array(requestAnswer) });

/** The requests listed: those named by `request_ids` (grouped reads), or every one of the account (import, find by description). */
export interface RequestScope {
  request_ids?: readonly number[];
}

/** The account's quota limit requests (`limit`/`offset`, 1,000 a page, filtered by `request_ids` when given). */
export const requestList: KindList<RequestScope, Request> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cloud/v2/limits_request',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = s.request_ids === undefined ? { limit, offset } : { request_ids: [...s.request_ids], limit, offset };
    const page = (await ctx.api.get(requestList.path(s), { schema: requestPage, query, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};

/**
 * Limits in one canonical form, so that the stack's and the platform's compare equal when they
 * ask for the same: limits the platform answers as null are not asked for, and an empty
 * global_limits or regional_limits is the same as none.
 */
export function normalizeLimits(
  limits:
    Request['requested_limits'] | { global_limits?: Record<string, number | null | undefined> | null; regional_limits?: Array<Record<string, number | null | undefined>> | null },
): Record<string, unknown> {
  const set = (l: Record<string, number | null | undefined>) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== null && v !== undefined));
  const global = limits?.global_limits ? set(limits.global_limits) : {};
  const regional = (limits?.regional_limits ?? []).map(set);
  return { ...(Object.keys(global).length > 0 ? { global_limits: global } : {}), ...(regional.length > 0 ? { regional_limits: regional } : {}) };
}
