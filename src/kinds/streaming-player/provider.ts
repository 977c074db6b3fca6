import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { createPlan, onlyMatch } from '../create.js';
import { declaredFields, diffDeclared } from '../declared-fields.js';
import { defineListReads } from '../list-read.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import { defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { listAll, listEndpointOf } from '../kind-list.js';
import { playerImport } from './import.js';
import { playerAnswer, playerList, type Player } from './list.js';
import { PLAYER_FIELDS } from './schema.js';

const PLAYERS = playerList.path({});
const playerPath = (id: number | string) => apiPath`/streaming/players/${id}`;

/** What a create or an update sends: `{"player": {...}}`, the declared (create) or changed (update) settings, always with `name` (the vendor schema requires it). */
const payloadSchema = z.object({
  body: z.strictObject({
    player: z
      .looseObject({ name: z.string().min(1) })
      .refine((p) => Object.keys(p).every((k) => (PLAYER_FIELDS as readonly string[]).includes(k)), { error: 'only player settings may be sent' }),
  }),
});

async function readPlayer(ctx: ProviderContext, id: number): Promise<Player | null> {
  const player = await readOrGone(async () => (await ctx.api.get(playerPath(id), { schema: playerAnswer, signal: ctx.signal })).body);
  return player === null ? null : { ...player, id };
}

/** The one player with the block's name among `players`; two or more are an error naming every id (names are not unique on the platform). */
function pickByName(desired: { name?: string | undefined }, players: readonly Player[]): { item: Player; foundBy: string } | null {
  const name = must(desired.name, 'desired.name');
  const identity = `name ${JSON.stringify(name)}`;
  const player = onlyMatch(
    players.filter((p) => p.name === name),
    (p) => p.id,
    { type: 'streaming_player', identity },
  );
  return player === null ? null : { item: player, foundBy: identity };
}

/**
 * The state of a player: its id and every setting (absent ones as null). A blank logo position
 * is none too: a blank setting inherits the default player's, whose logo position is null.
 */
function stateOf(player: Player): Record<string, unknown> {
  const state: Record<string, unknown> = { player_id: player.id, ...Object.fromEntries(PLAYER_FIELDS.map((f) => [f, player[f] ?? null])) };
  if (state.logo_position === '') state.logo_position = null;
  return state;
}

/**
 * A setting as the vendor's `player` takes it: every setting is typed without null, so a
 * `logo_position: null` (none) is sent as the blank the vendor documents ("may be blank to
 * inherit their values from default Streaming player", whose logo position is null).
 */
function sentValue(field: string, value: unknown): unknown {
  return field === 'logo_position' && value === null ? '' : value;
}

/** The settings a create sends: the declared ones, but a null logo position, which is the new player's default anyway. */
function createSettings(desired: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const declared = declaredFields(desired, PLAYER_FIELDS);
  if (declared.logo_position === null) delete declared.logo_position;
  return declared;
}

const reads = defineListReads<'streaming_player', Player>({
  readOne: (ctx, desired) => readPlayer(ctx, must(desired.player_id, 'desired.player_id')),
  project: (_ctx, _desired, player) => ({ exists: true, state: stateOf(player) }),
  hasId: (desired) => desired.player_id !== undefined,
  async find(ctx, desired) {
    // Names are not unique on the platform: every page is read, and two players with the name are an error naming both.
    return pickByName(desired, await listAll(ctx, playerList, {}, (p) => String(p.id)));
  },
  // Players found by name are found in the one player list, read to its end once for all of them.
  findInList: {
    key: (desired) => must(desired.name, 'desired.name'),
    itemKey: (player) => player.name,
    pick: pickByName,
  },
  list: {
    group: () => 'players',
    memberId: (desired) => String(desired.player_id),
    itemId: (player) => String(player.id),
    ...listEndpointOf(playerList, () => ({})),
  },
});

/** Create (POST /players, answered without a body), update (PATCH, setting values) and delete (204); no tasks. */
const lifecycle = defineLifecycle('streaming_player', {
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: PLAYERS, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: playerPath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: playerPath(id) }) },
});

/**
 * Streaming players. A block names its `player_id` (adopt) or only its `name`: the player list
 * (a bare array in numbered pages of the platform's own size, with no count, so it ends at an
 * empty page) is read to its end, and the one player with that name is the block's; none means
 * create (`POST /streaming/players`, whose answer carries no body: the executor's re-read by
 * name finds the new player and its id); two or more are an error naming every id, since names
 * are not unique on the platform. Every setting the block declares is compared and changed in
 * place (`PATCH /streaming/players/{id}` with the changed settings, and `name`, which the
 * vendor schema requires in every body), so nothing forces a replacement. A create whose
 * answer is lost is never sent again. DELETE answers 204. Players named by id are read together
 * from the player list.
 */
export const streamingPlayer: ResourceProvider<'streaming_player'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'streaming_player',

  read: reads.read,
  groupRead: reads.groupRead,
  import: playerImport,

  summarize: (state) => ({ player_id: state.player_id, name: state.name }),

  plan(desired, state) {
    const diff = diffDeclared(desired, state, PLAYER_FIELDS);
    const before: Record<string, unknown> = { player_id: state.player_id, name: state.name };
    for (const field of PLAYER_FIELDS) if (desired[field] !== undefined) before[field] = state[field] ?? null;
    const after: Record<string, unknown> = { ...before, ...declaredFields(desired, PLAYER_FIELDS) };
    const player = { name: after.name, ...Object.fromEntries(diff.changed.map((field) => [field, sentValue(field, desired[field as keyof typeof desired])])) };
    return {
      action: diff.changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes: diff.changes,
      ...(diff.changes.length > 0 ? { payload: { body: { player } } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired) {
      return createPlan(declaredFields(desired, PLAYER_FIELDS), 'player_id', { body: { player: createSettings(desired) } });
    },
    identity: (desired) => (desired.player_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
  },
};
