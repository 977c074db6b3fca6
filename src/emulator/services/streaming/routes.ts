import { UUID_PATTERN, isPlainObject, parseDate, parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { AiTaskRecord, PlayerRecord, StreamingSlice } from './index.js';
import { subtitleRoutes } from './subtitles.js';

type Ctx = RouteContext<StreamingSlice>;

/** AI task statuses; RECEIVED is accepted as a filter value by the platform too. */
export const AI_TASK_STATUSES = ['FAILURE', 'PENDING', 'RECEIVED', 'RETRY', 'REVOKED', 'STARTED', 'SUCCESS'] as const;

/** Players per page of GET /streaming/players (the platform does not document its page size). */
export const PLAYERS_PAGE_SIZE = 25;

/** Videos per page of GET /streaming/videos without `per_page`, and the most a page holds (the platform documents neither). */
export const VIDEOS_PAGE_SIZE = { default: 25, max: 100 } as const;

function streamingError(status: 400 | 404 | 422, error: string): never {
  return fail(jsonReply(status, { status, error }));
}

function notFound(what: string): never {
  return streamingError(404, `Not Found. ${what} was not found; check the initial parameters of the request.`);
}

function pathId(ctx: Ctx, name: string): number {
  const text = ctx.params[name] ?? '';
  const id = parseIntStrict(text);
  if (id === undefined || id < 1) streamingError(400, `Bad Request. ${name} must be a positive integer, got "${text}".`);
  return id;
}

function pageParam(ctx: Ctx, name: string, fallback: number, status: 400 | 422): number {
  const text = ctx.query.get(name);
  if (text === null) return fallback;
  const value = parseIntStrict(text);
  if (value === undefined || value < 1) streamingError(status, `${status === 400 ? 'Bad Request' : 'Unprocessable Entity'}. ${name} must be an integer ≥ 1, got "${text}".`);
  return value;
}

// ---- players ----

function findPlayer(ctx: Ctx): PlayerRecord {
  const id = pathId(ctx, 'player_id');
  const player = ctx.state.players.get(id);
  if (!player) notFound(`Player ${id}`);
  return player;
}

function listPlayers(ctx: Ctx): Reply {
  const page = pageParam(ctx, 'page', 1, 400);
  const all = [...ctx.state.players.values()].sort((a, b) => a.id - b.id);
  const start = (page - 1) * PLAYERS_PAGE_SIZE;
  return jsonReply(
    200,
    all.slice(start, start + PLAYERS_PAGE_SIZE).map((p) => ({ ...p })),
  );
}

function getPlayer(ctx: Ctx): Reply {
  return jsonReply(200, { ...findPlayer(ctx) });
}

function deletePlayer(ctx: Ctx): Reply {
  const player = findPlayer(ctx);
  ctx.state.players.delete(player.id);
  ctx.state.recordMutation(ctx.now, 'streaming_player', player.id, 'delete');
  return emptyReply(204);
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

/** POST: a new player with the platform's defaults for what the body leaves out; 200 with no body, as documented. */
function createPlayer(ctx: Ctx): Reply {
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
  ctx.state.players.set(id, player);
  ctx.state.recordMutation(ctx.now, 'streaming_player', id, 'create', settings);
  return emptyReply(200);
}

/** PATCH: the settings in the body change (a blank logo position clears it); 200 with the player. */
function patchPlayer(ctx: Ctx): Reply {
  const player = findPlayer(ctx);
  const settings = readPlayerBody(ctx);
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings)) {
    if ((player[field] ?? null) === value) continue;
    changed[field] = value;
    if (value === null) delete player[field];
    else player[field] = value;
  }
  if (Object.keys(changed).length > 0) ctx.state.recordMutation(ctx.now, 'streaming_player', player.id, 'update', changed);
  return jsonReply(200, { ...player });
}

// ---- videos ----

/**
 * GET /streaming/videos: the account's videos (searchVideo: id, name, client_id, status), oldest
 * (lowest id) first, a bare array in numbered pages (`page`, `per_page`; more than the largest
 * page asked for is served as the largest page); a page past the end is an empty array.
 */
function listVideos(ctx: Ctx): Reply {
  const page = pageParam(ctx, 'page', 1, 400);
  const perPage = Math.min(pageParam(ctx, 'per_page', VIDEOS_PAGE_SIZE.default, 400), VIDEOS_PAGE_SIZE.max);
  const all = [...ctx.state.videos.values()].sort((a, b) => a.id - b.id);
  const start = (page - 1) * perPage;
  return jsonReply(
    200,
    all.slice(start, start + perPage).map((v) => ({ id: v.id, name: v.name, client_id: ctx.state.defaults.client_id, status: 'ready' })),
  );
}

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

function listAiTasks(ctx: Ctx): Reply {
  const taskId = ctx.query.get('task_id');
  if (taskId !== null && !UUID_PATTERN.test(taskId)) streamingError(422, `Unprocessable Entity. task_id must be a UUID; got "${taskId}".`);
  const taskName = enumParam(ctx, 'task_name', ['transcription', 'content-moderation'] as const);
  const status = enumParam(ctx, 'status', AI_TASK_STATUSES);
  const ordering = enumParam(ctx, 'ordering', AI_ORDERINGS);
  const dateText = ctx.query.get('date_created');
  const dateCreated = dateText === null ? null : readCreatedFilter(dateText);
  if (dateCreated === undefined) streamingError(422, `Unprocessable Entity. date_created must be an ISO 8601 datetime; got "${dateText}".`);
  const search = ctx.query.get('search')?.toLowerCase();
  const page = pageParam(ctx, 'page', 1, 422);
  const limit = pageParam(ctx, 'limit', 10, 422);

  const matching = ctx.state.aiTasks.filter(
    (t) =>
      (taskId === null || t.task_id.toLowerCase() === taskId.toLowerCase()) &&
      (taskName === undefined || t.task_name === taskName) &&
      (status === undefined || t.status === status) &&
      (dateCreated === null || createdMatches(t, dateCreated)) &&
      (search === undefined || search === '' || searchableText(t).includes(search)),
  );
  if (ordering === undefined || ordering === 'started_at') {
    const sign = ordering === undefined ? -1 : 1;
    matching.sort((a, b) => sign * (a.started_at - b.started_at) || a.task_id.localeCompare(b.task_id));
  } else {
    matching.sort((a, b) => a[ordering].localeCompare(b[ordering]) || b.started_at - a.started_at);
  }
  // A page past the last is an empty page, not a 404: the vendor SDK's auto-paging asks for one.
  const pages = Math.max(1, Math.ceil(matching.length / limit));
  const start = (page - 1) * limit;
  return jsonReply(200, {
    count: matching.length,
    next: page < pages ? `page=${page + 1}` : null,
    previous: page > 1 ? `page=${page - 1}` : null,
    results: matching.slice(start, start + limit).map((t) => ({
      task_id: t.task_id,
      task_name: t.task_name,
      status: t.status,
      progress: t.progress,
      task_data: structuredClone(t.task_data),
      processing_time: processingTime(t),
    })),
  });
}

/** The streaming routes: players (list, POST, GET, PATCH, DELETE), the video list, video subtitles (subtitles.ts), AI task list. */
export const streamingRoutes: ServiceRoute<StreamingSlice>[] = [
  { method: 'GET', pattern: '/streaming/players', handler: listPlayers },
  { method: 'POST', pattern: '/streaming/players', handler: createPlayer },
  { method: 'GET', pattern: '/streaming/players/{player_id}', handler: getPlayer },
  { method: 'PATCH', pattern: '/streaming/players/{player_id}', handler: patchPlayer },
  { method: 'DELETE', pattern: '/streaming/players/{player_id}', handler: deletePlayer },
  { method: 'GET', pattern: '/streaming/videos', handler: listVideos },
  ...subtitleRoutes,
  { method: 'GET', pattern: '/streaming/ai/tasks', handler: listAiTasks },
];
