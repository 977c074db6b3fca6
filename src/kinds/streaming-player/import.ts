import { defineImport } from '../kind-list.js';
import { playerList } from './list.js';

/** Importing streaming players: every player of the account, each pinned by its id; named after the player. */
export const playerImport = defineImport('streaming_player', {
  scope: 'account',
  list: playerList,
  itemId: (player) => String(player.id),
  // A non-numeric id fails the kind's schema, and the import names the item (see defineImport).
  attributes: (player) => ({ player_id: player.id as number }),
  blockName: (player) => player.name,
  facts: (player) => [['name', player.name]],
});
