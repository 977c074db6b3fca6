import { z } from 'zod';
import { type AccountScope, type KindList } from '../kind-list.js';

/** An origin of a group as the platform shows it (a host source; S3 sources are read but not managed). */
const sourceAnswer = z.looseObject({ source: z.string().optional(), backup: z.boolean().optional(), enabled: z.boolean().optional() });

/** The fields of an origin group answer (OriginGroupsResponse) edgeform reads. */
export const originGroupAnswer = z.looseObject({
  id: z.int(),
  name: z.string(),
  use_next: z.boolean().optional(),
  proxy_next_upstream: z.array(z.string()).nullish(),
  sources: z.array(sourceAnswer).nullish(),
});

/** An origin group as edgeform reads it. */
export type OriginGroup = z.infer<typeof originGroupAnswer>;

/** A page of the origin group list: paginated (`{count, results}`) when `limit` is given, else a plain array. */
const originGroupPage = z.union([z.array(originGroupAnswer), z.looseObject({ count: z.int().min(0), results: z.array(originGroupAnswer) })]);

/** The account's origin groups (`limit`/`offset`, up to 1,000 a page); `name` filters them (the caller keeps only the exact name). */
export const originGroupList: KindList<AccountScope & { name?: string }, OriginGroup> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cdn/origin_groups',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { limit, offset, ...(s.name === undefined ? {} : { name: s.name }) };
    const page = (await ctx.api.get(originGroupList.path(s), { schema: originGroupPage, query, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};
