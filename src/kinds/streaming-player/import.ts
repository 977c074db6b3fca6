import { defineImport } from '../kind-list.js';
import { playerList } from './list.js';
import { PLAYER_FIELDS } from './schema.js';

/**
 * Importing streaming players: every player of the account, each pinned by its id, with its name
 * and every setting the player has (a blank setting inherits the default player's, so it is left
 * out); named after the player.
 */
export const playerImport = defineImport('streaming_player', {
  scope: 'account',
  list: playerList,
  itemId: (player) => String(player.id),
  attributes: (player) => ({
    player_id: player.id,
    ...Object.fromEntries(PLAYER_FIELDS.filter((f) => player[f] !== undefined && player[f] !== null).map((f) => [f, player[f]])),
  }),
  blockName: (player) => player.name,
  facts: (player) => [['name', player.name]],
});
