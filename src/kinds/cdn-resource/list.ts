import { z } from 'zod';
import { type AccountScope, type KindList } from '../kind-list.js';

/** The fields of a CDN resource answer (ResourceResponse) edgeform reads. */
export const resourceAnswer = z.looseObject({
  id: z.int(),
  cname: z.string(),
  status: z.string().optional(),
  active: z.boolean().optional(),
  description: z.string().nullish(),
  originGroup: z.int().nullish(),
  originProtocol: z.string().nullish(),
  secondaryHostnames: z.array(z.string()).nullish(),
  sslEnabled: z.boolean().optional(),
  sslData: z.int().nullish(),
  options: z.record(z.string(), z.unknown()).nullish(),
});

/** A CDN resource as edgeform reads it. */
export type CdnResource = z.infer<typeof resourceAnswer>;

/** A page of the resource list: paginated (`{count, results}`) when `limit` is given, else a plain array. */
const resourcePage = z.union([z.array(resourceAnswer), z.looseObject({ count: z.int().min(0), results: z.array(resourceAnswer) })]);

/** The account's CDN resources (`limit`/`offset`, up to 1,000 a page); `cname` filters them (the caller keeps only the exact cname). */
export const resourceList: KindList<AccountScope & { cname?: string }, CdnResource> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cdn/resources',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { limit, offset, ...(s.cname === undefined ? {} : { cname: s.cname }) };
    const page = (await ctx.api.get(resourceList.path(s), { schema: resourcePage, query, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};
