import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';
import { listEndpointOf } from '../kind-list.js';
import { playerImport } from './import.js';
import { playerFields, playerList } from './list.js';

/**
 * Streaming players. edgeform only adopts and deletes them; DELETE answers 204. Many players
 * are read together from the player list: a bare array in numbered pages of the platform's own
 * size, with no count, so the list ends at an empty page.
 */
export const streamingPlayer = defineDeletableProvider<'streaming_player'>({
  type: 'streaming_player',
  idField: 'player_id',
  path: (desired) => apiPath`/streaming/players/${desired.player_id}`,
  fields: playerFields,
  list: {
    group: () => 'players',
    ...listEndpointOf(playerList, () => ({})),
  },
  import: playerImport,
});
