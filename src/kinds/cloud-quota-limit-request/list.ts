import { z } from 'zod';
import { deletableItemSchema } from '../adopt-or-delete.js';
import { type KindList } from '../kind-list.js';

/** The fields of a quota limit request that `before` shows. */
export const requestFields = { status: z.string(), description: z.string().nullish() };

/** A request of the list: its status, description and `id`. */
const requestItem = deletableItemSchema(requestFields);

/** A quota limit request as the list shows it. */
export type RequestItem = z.infer<typeof requestItem>;

/** A page of the request list. */
const requestPage = z.looseObject({ count: z.int().min(0), results: z.array(requestItem) });

/** The requests listed: those named by `request_ids` (grouped reads), or every one of the account (import). */
export interface RequestScope {
  request_ids?: readonly number[];
}

/** The account's quota limit requests (`limit`/`offset`, 1,000 a page, filtered by `request_ids` when given). */
export const requestList: KindList<RequestScope, RequestItem> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cloud/v2/limits_request',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = s.request_ids === undefined ? { limit, offset } : { request_ids: [...s.request_ids], limit, offset };
    const page = (await ctx.api.get(requestList.path(s), { schema: requestPage, query, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
