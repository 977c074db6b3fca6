import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** A skin colour in the platform's format #AAAAAA. */
const colour = (what: string) =>
  z
    .string()
    .regex(/^#[0-9A-Fa-f]{6}$/, { error: 'must be a colour in the format #AAAAAA (# and six hex digits)' })
    .optional()
    .describe(`${what}, #AAAAAA.`);

const flag = (what: string) => z.boolean().optional().describe(what);
const text = (what: string) => z.string().optional().describe(what);

// Built at load, unlike other kinds' shapes: its field list (PLAYER_FIELDS) is what the player's
// provider reads and writes, and it is small.
const playerShape = z.strictObject({
  player_id: positiveId.optional().describe('The player id (integer). Omit it to have edgeform find the player by name, or create it.'),
  name: z.string().min(1, { error: 'must not be empty' }).optional().describe('The player name: how a block without player_id finds its player (exactly one player may have it).'),
  framework: text('Player framework type.'),
  design: text('Rendered as JS parameters to the player.'),
  custom_css: text('CSS added to the player iframe.'),
  js_url: text("The player's main JS file URL; empty = the default player's."),
  skin_is_url: text('URL of a custom skin JS file.'),
  bg_color: colour('Skin background colour'),
  fg_color: colour('Skin foreground (elements) colour'),
  text_color: colour('Skin text colour'),
  hover_color: colour('Colour of elements under the mouse'),
  autoplay: flag('Start playing as soon as the player loads (platform default false).'),
  mute: flag('Start with the sound off (platform default false).'),
  disable_skin: flag('Disable the player skin (platform default false).'),
  save_options_to_cookies: flag('Keep volume and other options in cookies (platform default true).'),
  show_sharing: flag('Show the sharing button (platform default true).'),
  logo_position: z
    .enum(['tl', 'tr', 'bl', 'br'], { error: 'must be tl, tr, bl or br (top/bottom, left/right)' })
    .nullable()
    .optional()
    .describe('Logo position: tl, tr, bl or br; null = none (the platform default).'),
  speed_control: flag('Show the speed control button (platform default false).'),
  logo: text('URL of the logo image.'),
  ensure: ensureDeletable,
});

/** The player settings a block may declare (every field of the vendor's `player` but its ids). */
export const PLAYER_FIELDS = Object.keys(playerShape.shape).filter((f) => f !== 'player_id' && f !== 'ensure') as ReadonlyArray<
  Exclude<keyof typeof playerShape.shape, 'player_id' | 'ensure'>
>;

/**
 * streaming_player: a streaming player, adopted by `player_id` or found by its `name`, and
 * created when no player has that name; `ensure: absent` deletes it.
 */
export const streamingPlayerKind = defineKind({
  type: 'streaming_player',
  kind: 'resource',
  description:
    'A streaming player, by player_id or by name; edgeform creates it when no player has that name, sets the settings the block declares, and ensure: absent deletes it.',
  identity: ['player_id', 'name'],
  create: { idField: 'player_id', key: ['name'] },
  readable: {
    id: { type: 'number', description: 'The player id (integer).', read: (s) => s.player_id },
    name: { type: 'string', description: 'The player name.', read: (s) => s.name },
  },
  shape: () => playerShape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.player_id === undefined && value.name === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['name'],
          message: `must be set when player_id is not: edgeform finds the player by name (and creates it when none has the name), or adopts the player player_id names`,
        });
      }
    }),
});
