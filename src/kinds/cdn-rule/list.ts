import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type KindList } from '../kind-list.js';

/** The fields of a rule answer (RuleResponse) edgeform reads. */
export const ruleAnswer = z.looseObject({
  id: z.int(),
  name: z.string(),
  rule: z.string().optional(),
  ruleType: z.int().optional(),
  weight: z.int().nullish(),
  active: z.boolean().optional(),
  originGroup: z.int().nullish(),
  overrideOriginProtocol: z.string().nullish(),
  options: z.record(z.string(), z.unknown()).nullish(),
});

/** A rule as edgeform reads it. */
export type CdnRule = z.infer<typeof ruleAnswer>;

/** A CDN resource: where its rules are listed. */
export interface CdnResourceScope {
  resource_id: number;
}

/** A page of a resource's rule list: paginated (`{count, results}`) when `limit` is given, else a plain array. */
const rulePage = z.union([z.array(ruleAnswer), z.looseObject({ count: z.int().min(0), results: z.array(ruleAnswer) })]);

/** The rules of one CDN resource (`limit`/`offset`, up to 1,000 a page). */
export const ruleList: KindList<CdnResourceScope, CdnRule> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cdn/resources/${s.resource_id}/rules`,
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(ruleList.path(s), { schema: rulePage, query: { limit, offset }, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};
