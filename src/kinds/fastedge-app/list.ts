import { z } from 'zod';
import { type AccountScope, type KindList } from '../kind-list.js';

/**
 * The fields of an app answer edgeform reads (`app` from GET one, `app_short` in the list, which
 * lacks env and rsp_headers). The vendor's `app` requires no field; an app's name is always there.
 */
export const appFields = {
  name: z.string(),
  status: z.int().optional(),
  binary: z.int().optional(),
  comment: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  rsp_headers: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
};

/** An app of the list (`app_short`): the fields and its `id`. */
const appItem = z.looseObject({ ...appFields, id: z.int() });

/** An app as the list shows it. */
export type AppItem = z.infer<typeof appItem>;

/** A page of the app list (`{apps, count}`); the vendor schema makes `count` optional: without it the list ends at a short page. */
const appPage = z.looseObject({ apps: z.array(appItem), count: z.int().min(0).optional() });

/** The account's FastEdge apps (`limit`/`offset`, up to 1,000 a page, by id): grouped reads and import page through it. */
export const appList: KindList<AccountScope, AppItem> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/fastedge/v1/apps',
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(appList.path(s), { schema: appPage, query: { limit, offset, ordering: 'id' }, signal: ctx.signal })).body;
    return page.count === undefined ? { items: page.apps } : { items: page.apps, total: page.count };
  },
};

/**
 * The apps whose name contains `name` (the list's `name` filter: a partial, case-insensitive
 * match, so the caller keeps only the exact name), paged as the whole list is.
 */
export const appsNamedList: KindList<{ name: string }, AppItem> = {
  paging: appList.paging,
  path: () => '/fastedge/v1/apps',
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(appsNamedList.path(s), { schema: appPage, query: { name: s.name, limit, offset, ordering: 'id' }, signal: ctx.signal })).body;
    return page.count === undefined ? { items: page.apps } : { items: page.apps, total: page.count };
  },
};
