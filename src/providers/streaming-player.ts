import { apiPath } from '../api/path.js';
import type { ResourceProvider } from './provider.js';
import { deleteIfPresent, readOrGone } from './shared.js';

interface Player {
  id?: number;
  name?: string;
}

const playerPath = (id: number) => apiPath`/streaming/players/${id}`;

/** Streaming players. edgeform only adopts and deletes them; DELETE answers 204. */
export const streamingPlayer: ResourceProvider<'streaming_player'> = {
  kind: 'resource',
  type: 'streaming_player',
  idField: 'player_id',
  verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },

  async read(ctx, desired) {
    const player = await readOrGone(async () => (await ctx.api.request<Player>({ method: 'GET', path: playerPath(desired.player_id), signal: ctx.signal })).body);
    if (!player) return { exists: false };
    return { exists: true, state: { player_id: desired.player_id, name: player.name ?? null } };
  },

  summarize: (state) => ({ player_id: state.player_id, name: state.name }),

  plan: (_desired, state) => ({ action: 'no-op', before: { ...state }, after: { ...state }, changes: [], errors: [], warnings: [], notes: [] }),

  async apply(ctx, change) {
    const id = change.desired.player_id as number;
    await deleteIfPresent(() => ctx.api.request({ method: 'DELETE', path: playerPath(id), retry: 'idempotent', signal: ctx.signal }));
  },
};
