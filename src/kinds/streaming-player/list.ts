import { z } from 'zod';
import { deletableItemSchema } from '../adopt-or-delete.js';
import { type AccountScope, type KindList } from '../kind-list.js';

/** The fields of a player that `before` shows. */
export const playerFields = { name: z.string() };

/** A player of the list: its name and `id`. */
const playerItem = deletableItemSchema(playerFields);

/** A player as the list shows it. */
export type PlayerItem = z.infer<typeof playerItem>;

/**
 * The account's streaming players: a bare array in numbered pages of the platform's own size,
 * with no count, so the list ends at an empty page. Grouped reads and import page through it.
 */
export const playerList: KindList<AccountScope, PlayerItem> = {
  paging: { kind: 'pages' },
  path: () => '/streaming/players',
  async fetchPage(ctx, s, { index }) {
    const page = (await ctx.api.get(playerList.path(s), { schema: z.array(playerItem), query: { page: index + 1 }, signal: ctx.signal })).body;
    return { items: page };
  },
};
