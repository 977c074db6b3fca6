import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

/** Streaming players. edgeform only adopts and deletes them; DELETE answers 204. */
export const streamingPlayer = defineDeletableProvider({
  type: 'streaming_player',
  idField: 'player_id',
  path: (desired) => apiPath`/streaming/players/${desired.player_id}`,
  fields: { name: z.string() },
});
