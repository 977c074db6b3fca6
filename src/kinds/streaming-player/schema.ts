import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** streaming_player: a streaming player by id; `ensure: absent` deletes it. */
export const streamingPlayerKind = defineKind({
  type: 'streaming_player',
  kind: 'resource',
  description: 'A streaming player, by id; ensure: absent deletes it.',
  identity: ['player_id'],
  shape: z.strictObject({
    player_id: positiveId.describe('The player id (integer).'),
    ensure: ensureDeletable,
  }),
});
