import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

const PLAYERS = '/streaming/players';

/**
 * Streaming players. edgeform only adopts and deletes them; DELETE answers 204. Many players
 * are read together from the player list: a bare array in numbered pages of the platform's own
 * size, with no count, so the list ends at an empty page.
 */
export const streamingPlayer = defineDeletableProvider({
  type: 'streaming_player',
  idField: 'player_id',
  path: (desired) => apiPath`/streaming/players/${desired.player_id}`,
  fields: { name: z.string() },
  list: {
    group: () => 'players',
    paging: { kind: 'pages' },
    describe: () => `GET ${PLAYERS}`,
    async fetchPage(ctx, _members, { index }, item) {
      const page = (await ctx.api.get(PLAYERS, { schema: z.array(item), query: { page: index + 1 }, signal: ctx.signal })).body;
      return { items: page };
    },
  },
});
