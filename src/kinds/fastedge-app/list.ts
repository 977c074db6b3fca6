import { z } from 'zod';
import { deletableItemSchema } from '../adopt-or-delete.js';
import { type AccountScope, type KindList } from '../kind-list.js';

/** The fields of an app that `before` shows: its name and status (1 enabled, 2 disabled, ...). */
export const appFields = { name: z.string(), status: z.number().int() };

/** An app of the list: the shown fields and its `id`. */
const appItem = deletableItemSchema(appFields);

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
