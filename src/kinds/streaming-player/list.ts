import { z } from 'zod';
import { type AccountScope, type KindList } from '../kind-list.js';
import { PLAYER_FIELDS } from './schema.js';

const FLAGS = new Set(['autoplay', 'mute', 'disable_skin', 'save_options_to_cookies', 'show_sharing', 'speed_control']);

/** The fields of a player answer edgeform reads: the vendor's `player`, each setting optional (blank inherits the default player's). */
const playerFields = Object.fromEntries(PLAYER_FIELDS.filter((f) => f !== 'name').map((f) => [f, (FLAGS.has(f) ? z.boolean() : z.string()).nullable().optional()])) as Record<
  string,
  z.ZodType
>;

/** A player as GET one answers it. */
export const playerAnswer = z.looseObject({ ...playerFields, name: z.string() });

/** A player of the list: its settings and `id`. */
const listedPlayer = z.looseObject({ ...playerFields, name: z.string(), id: z.int() });

/** A player as edgeform reads it (from GET one, with the id it was asked for, or from the list). */
export type Player = z.infer<typeof playerAnswer> & { id: number };

/**
 * The account's streaming players: a bare array in numbered pages of the platform's own size,
 * with no count, so the list ends at an empty page. Grouped reads, the find by name and import
 * page through it.
 */
export const playerList: KindList<AccountScope, Player> = {
  paging: { kind: 'pages' },
  path: () => '/streaming/players',
  async fetchPage(ctx, s, { index }) {
    const page = (await ctx.api.get(playerList.path(s), { schema: z.array(listedPlayer), query: { page: index + 1 }, signal: ctx.signal })).body;
    return { items: page as Player[] };
  },
};
