import { defineCollection, type Created } from '../../collection.js';
import { UUID_PATTERN, isPlainObject, parseDate } from '../../format.js';
import { bareArray, pageNumbers } from '../../paging.js';
import { emptyReply, fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { AiTaskRecord, PlayerRecord, StreamingSlice } from './index.js';
import { STREAMING_PRODUCT } from './product.js';
import { subtitleRoutes } from './subtitles.js';

type Ctx = RouteContext<StreamingSlice>;

/** AI task statuses; RECEIVED is accepted as a filter value by the platform too. */
export const AI_TASK_STATUSES = ['FAILURE', 'PENDING', 'RECEIVED', 'RETRY', 'REVOKED', 'STARTED', 'SUCCESS'] as const;

/** Players per page of GET /streaming/players (the platform does not document its page size). */
export const PLAYERS_PAGE_SIZE = 25;

function streamingError(status: 400 | 404 | 422, error: string): never {
  return fail(jsonReply(status, { status, error }));
}

/** The player settings a body may carry, by type (the vendor's `player`; `id` and `client_id` are the platform's). */
const PLAYER_STRINGS = ['framework', 'design', 'custom_css', 'js_url', 'skin_is_url', 'bg_color', 'fg_color', 'text_color', 'hover_color', 'logo'] as const;
const PLAYER_FLAGS = ['autoplay', 'mute', 'disable_skin', 'save_options_to_cookies', 'show_sharing', 'speed_control'] as const;
const PLAYER_COLOURS = new Set(['bg_color', 'fg_color', 'text_color', 'hover_color']);
const COLOUR = /^#[0-9A-Fa-f]{6}$/;

/**
 * Reads the `{"player": {...}}` body of a POST or PATCH: the settings it sets, or 422
 * `{"errors": {field: [message]}}` as the vendor documents it (`name` can't be blank; a value of
 * the wrong type, null included, since the vendor schema types every setting without null, a
 * colour not in the format #AAAAAA or an unknown logo position is invalid). A blank string
 * inherits the default player's setting, as the vendor's `player` says; for `logo_position`
 * that is none (its documented default is null), so a blank one clears it.
 */
function readPlayerBody(ctx: Ctx): Record<string, unknown> {
  const body = ctx.body;
  const player = isPlainObject(body) && isPlainObject(body.player) ? body.player : {};
  const errors: Record<string, string[]> = {};
  const settings: Record<string, unknown> = {};
  if (typeof player.name !== 'string' || player.name.trim() === '') errors.name = ["can't be blank"];
  else settings.name = player.name;
  for (const field of PLAYER_STRINGS) {
    const value = player[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || (PLAYER_COLOURS.has(field) && value !== '' && !COLOUR.test(value))) errors[field] = ['is invalid'];
    else settings[field] = value;
  }
  for (const field of PLAYER_FLAGS) {
    const value = player[field];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') errors[field] = ['is invalid'];
    else settings[field] = value;
  }
  const position = player.logo_position;
  if (position !== undefined) {
    if (typeof position !== 'string') errors.logo_position = ['is invalid'];
    else if (position === '') settings.logo_position = null;
    else if (!['tl', 'tr', 'bl', 'br'].includes(position)) errors.logo_position = ['is not included in the list'];
    else settings.logo_position = position;
  }
  if (Object.keys(errors).length > 0) fail(jsonReply(422, { errors }));
  return settings;
}

/** POST: a new player with the platform's defaults for what the body leaves out. */
function buildPlayer(ctx: Ctx): Created<PlayerRecord> {
  const settings = readPlayerBody(ctx);
  const id = Math.max(0, ...ctx.state.players.keys()) + 1;
  const player: PlayerRecord = {
    id,
    name: settings.name as string,
    client_id: ctx.state.defaults.client_id,
    autoplay: false,
    mute: false,
    disable_skin: false,
    save_options_to_cookies: true,
    show_sharing: true,
    speed_control: false,
    ...settings,
  };
  for (const [k, v] of Object.entries(player)) if (v === null) delete player[k];
  return { record: player, logged: settings };
}

/** PATCH: the settings in the body change (a blank logo position clears it). */
function changePlayer(ctx: Ctx, player: PlayerRecord): Record<string, unknown> {
  const settings = readPlayerBody(ctx);
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings)) {
    if ((player[field] ?? null) === value) continue;
    changed[field] = value;
    if (value === null) delete player[field];
    else player[field] = value;
  }
  return changed;
}

/**
 * Streaming players: the list (a bare array, oldest first, in numbered pages of PLAYERS_PAGE_SIZE),
 * POST (200 with no body, as documented), GET one, PATCH (200 with the player), DELETE (204).
 */
const players = defineCollection<StreamingSlice, PlayerRecord, undefined, undefined, 'positive-integer'>({
  product: STREAMING_PRODUCT,
  path: '/streaming/players',
  idParam: 'player_id',
  idSyntax: 'positive-integer',
  noun: 'Player',
  store: (ctx) => ctx.state.players,
  idOf: (player) => player.id,
  mutationKind: 'streaming_player',
  list: { paging: pageNumbers({ size: PLAYERS_PAGE_SIZE, answer: bareArray }), order: (a, b) => a.id - b.id, render: (p) => ({ ...p }) },
  get: (player) => ({ ...player }),
  create: { build: buildPlayer, answer: () => emptyReply(200) },
  updates: [{ method: 'PATCH', change: changePlayer, answer: (player) => jsonReply(200, { ...player }) }],
  delete: {},
});

// ---- AI tasks ----

const AI_ORDERINGS = ['task_id', 'status', 'task_name', 'started_at'] as const;
function searchableText(task: AiTaskRecord): string {
  return [task.task_id, task.task_name, task.status, flattenValues(task.task_data)].join('\n').toLowerCase();
}

function flattenValues(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}\n${flattenValues(v)}`)
    .join('\n');
}

function enumParam<T extends string>(ctx: Ctx, name: string, allowed: readonly T[]): T | undefined {
  const value = ctx.query.get(name);
  if (value === null) return undefined;
  if (!(allowed as readonly string[]).includes(value)) streamingError(422, `Unprocessable Entity. ${name} must be one of ${allowed.join(', ')}; got "${value}".`);
  return value as T;
}

/** An ISO 8601 date, optionally with an hour, a minute or a full time, and optionally a zone (reduced precision, as ISO 8601 allows). */
const CREATED_FILTER = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2}(?:\.\d+)?))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Reads `date_created`, which the vendor documents as "Datetime in ISO 8601 format": a day, an
 * hour (`2025-12-01T08`), a minute or a full datetime, with or without a zone (UTC without). The
 * instant it starts at (epoch ms) and how many characters of an ISO string it fixes; undefined
 * when it is not such a datetime.
 */
function readCreatedFilter(text: string): { from: number; precision: number } | undefined {
  const m = CREATED_FILTER.exec(text.trim());
  if (!m) return undefined;
  const [, date, hour, minute, second] = m;
  const from = parseDate(`${date}T${hour ?? '00'}:${minute ?? '00'}:${second ?? '00'}${m[5] ?? 'Z'}`);
  if (Number.isNaN(from)) return undefined;
  return { from, precision: second !== undefined ? 19 : minute !== undefined ? 16 : hour !== undefined ? 13 : 10 };
}

/** Whether a task was created within the day, hour, minute or second the filter names. */
function createdMatches(task: AiTaskRecord, filter: { from: number; precision: number }): boolean {
  return new Date(task.created_at).toISOString().slice(0, filter.precision) === new Date(filter.from).toISOString().slice(0, filter.precision);
}

/** When the task was processed, as the vendor's current SDK models expect it on every task (ai_results.processing_time). */
function processingTime(task: AiTaskRecord): Record<string, unknown> {
  return {
    started_at: new Date(task.started_at).toISOString(),
    completed_at: task.completed_at === null ? null : new Date(task.completed_at).toISOString(),
    total_time_sec: task.completed_at === null ? null : Math.max(0, task.completed_at - task.started_at) / 1000,
  };
}

/** The AI task list's filters (read before its page, as the vendor checks them). */
function readAiTaskQuery(ctx: Ctx) {
  const taskId = ctx.query.get('task_id');
  if (taskId !== null && !UUID_PATTERN.test(taskId)) streamingError(422, `Unprocessable Entity. task_id must be a UUID; got "${taskId}".`);
  const taskName = enumParam(ctx, 'task_name', ['transcription', 'content-moderation'] as const);
  const status = enumParam(ctx, 'status', AI_TASK_STATUSES);
  const ordering = enumParam(ctx, 'ordering', AI_ORDERINGS);
  const dateText = ctx.query.get('date_created');
  const dateCreated = dateText === null ? null : readCreatedFilter(dateText);
  if (dateCreated === undefined) streamingError(422, `Unprocessable Entity. date_created must be an ISO 8601 datetime; got "${dateText}".`);
  return { taskId, taskName, status, ordering, dateCreated, search: ctx.query.get('search')?.toLowerCase() };
}

/**
 * Streaming AI tasks: the list with every filter of the specification, newest started first
 * unless `ordering` says otherwise, in numbered pages (`page`, `limit` default 10) answered
 * `{count, next, previous, results}`. A page past the last is an empty page, not a 404: the
 * vendor SDK's auto-paging asks for one.
 */
const aiTasks = defineCollection<StreamingSlice, AiTaskRecord, undefined, ReturnType<typeof readAiTaskQuery>>({
  product: STREAMING_PRODUCT,
  path: '/streaming/ai/tasks',
  noun: 'Task',
  store: (ctx) => ctx.state.aiTasks,
  idOf: (task) => task.task_id,
  list: {
    queryFirst: true,
    query: readAiTaskQuery,
    paging: pageNumbers({
      size: { param: 'limit', default: 10 },
      status: 422,
      answer({ items, total, window: { page = 1, limit = 10 } }) {
        const pages = Math.max(1, Math.ceil(total / limit));
        return { count: total, next: page < pages ? `page=${page + 1}` : null, previous: page > 1 ? `page=${page - 1}` : null, results: items };
      },
    }),
    where: (t, q) =>
      (q.taskId === null || t.task_id.toLowerCase() === q.taskId.toLowerCase()) &&
      (q.taskName === undefined || t.task_name === q.taskName) &&
      (q.status === undefined || t.status === q.status) &&
      (q.dateCreated === null || createdMatches(t, q.dateCreated)) &&
      (q.search === undefined || q.search === '' || searchableText(t).includes(q.search)),
    order: (a, b, { ordering }) =>
      ordering === undefined || ordering === 'started_at'
        ? (ordering === undefined ? -1 : 1) * (a.started_at - b.started_at) || a.task_id.localeCompare(b.task_id)
        : a[ordering].localeCompare(b[ordering]) || b.started_at - a.started_at,
    render: (t) => ({
      task_id: t.task_id,
      task_name: t.task_name,
      status: t.status,
      progress: t.progress,
      task_data: structuredClone(t.task_data),
      processing_time: processingTime(t),
    }),
  },
});

/** The streaming routes: players, the video list and video subtitles (subtitles.ts), the AI task list. */
export const streamingRoutes: ServiceRoute<StreamingSlice>[] = [...players.routes, ...subtitleRoutes, ...aiTasks.routes];
