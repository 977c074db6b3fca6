import { isPlainObject, parseDate, parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { CdnPurgeRecord, CdnSlice } from './index.js';
import { CDN_PRODUCT } from './product.js';

type Ctx = RouteContext<CdnSlice>;

/**
 * Purging a CDN resource's cache and the purge history (cdn_api.yaml: `purge-cache`,
 * `get-purge-status-list`), with the platform's limits on the emulator clock: per resource, one
 * purge-all and one pattern purge a minute, two URL purges a minute (a 429 with Retry-After
 * past that), at most 100 URLs or 10 patterns a request (400 past that). A purge is `In
 * progress` for the emulator's task duration, then `Successful`, or `Failed` when its resource
 * was inactive when it was asked for (nothing is served, so nothing is purged).
 */

/** The limits per resource and purge type: requests a window, items a request. */
const LIMITS = { purge_all: { perMinute: 1, items: Infinity }, purge_by_pattern: { perMinute: 1, items: 10 }, purge_by_url: { perMinute: 2, items: 100 } } as const;
const WINDOW_MS = 60_000;

/** 400 `{"errors": {"paths": ...}}`, as the platform refuses a purge body. */
function refusePaths(messages: unknown): never {
  return fail(jsonReply(400, { errors: { paths: messages } }));
}

/** The purge a body asks for (ResourcePurge: `{urls}`, `{paths}`, `{paths: []}`), or a 400 in the vendor's shapes. */
function readPurge(body: unknown): { type: CdnPurgeRecord['purge_type']; items: string[] } {
  if (!isPlainObject(body)) return fail(jsonReply(400, { message: 'JSON parse error - Expecting value: line 1 column 1 (char 0)' }));
  const key = body.urls !== undefined ? 'urls' : 'paths';
  const value = body[key];
  if (value === undefined) return refusePaths(['This field is required.']);
  if (!Array.isArray(value)) return refusePaths([`Expected a list of items but got type "${typeof value === 'string' ? 'str' : typeof value}".`]);
  const bad: Record<string, string[]> = {};
  value.forEach((item, index) => {
    if (typeof item !== 'string') bad[index] = ['Not a valid string.'];
    else if (item.trim() === '') bad[index] = ['This field may not be blank.'];
  });
  if (Object.keys(bad).length > 0) return refusePaths(bad);
  const items = value as string[];
  if (items.some((p) => !p.startsWith('/'))) return refusePaths(['A path should start with /.']);
  const type = key === 'urls' ? 'purge_by_url' : items.length === 0 ? 'purge_all' : 'purge_by_pattern';
  if (type === 'purge_by_pattern' && items.some((p) => p.indexOf('*') !== -1 && p.indexOf('*') !== p.length - 1)) {
    return refusePaths(['Wildcard * is allowed only at the end of a pattern.']);
  }
  const limit = LIMITS[type].items;
  if (items.length > limit) return refusePaths([`Ensure this field has no more than ${limit} elements.`]);
  return { type, items };
}

/** The resource of a path's `{resource_id}`, or a 404. */
function resourceOf(ctx: Ctx) {
  const id = parseIntStrict(ctx.params.resource_id ?? '');
  const resource = id === undefined ? undefined : ctx.state.cdnResources.get(id);
  if (resource === undefined) return fail(CDN_PRODUCT.notFound(`CDN resource ${ctx.params.resource_id}`, ctx.requestId));
  return resource;
}

/** A purge's status at `now`. */
function statusOf(p: CdnPurgeRecord, now: number): string {
  if (now < p.created + p.durationMs) return 'In progress';
  return p.fails ? 'Failed' : 'Successful';
}

/** A history entry (PurgeStatusResponse). */
function renderPurge(p: CdnPurgeRecord, ctx: Ctx): Record<string, unknown> {
  return {
    purge_id: p.purge_id,
    status: statusOf(p, ctx.now),
    resource: { id: p.resource, cname: p.cname },
    payload: p.purge_type === 'purge_by_url' ? { urls: p.items } : { paths: p.items },
    created: new Date(p.created).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    purge_type: p.purge_type,
  };
}

const purge: ServiceRoute<CdnSlice> = {
  method: 'POST',
  pattern: '/cdn/resources/{resource_id}/purge',
  handler(ctx) {
    const resource = resourceOf(ctx);
    const asked = readPurge(ctx.body);
    const recent = ctx.state.cdnPurges.filter((p) => p.resource === resource.id && p.purge_type === asked.type && p.created > ctx.now - WINDOW_MS);
    if (recent.length >= LIMITS[asked.type].perMinute) {
      const freeAt = Math.min(...recent.map((p) => p.created)) + WINDOW_MS;
      const seconds = Math.max(1, Math.ceil((freeAt - ctx.now) / 1000));
      return jsonReply(429, { detail: `Request was throttled. Expected available in ${seconds} seconds.` }, { 'retry-after': String(seconds) });
    }
    const record: CdnPurgeRecord = {
      purge_id: ctx.state.cdnNextIds.purge++,
      resource: resource.id,
      cname: resource.cname,
      purge_type: asked.type,
      items: asked.items,
      created: ctx.now,
      durationMs: ctx.settings.taskDurationMs,
      fails: !resource.active,
    };
    ctx.state.cdnPurges.push(record);
    ctx.state.recordMutation(ctx.now, 'cdn_purge', record.purge_id, 'create', { resource: resource.id, purge_type: asked.type, items: asked.items });
    return emptyReply(201);
  },
};

/** The history filters' values, or a 400. */
function dateQuery(ctx: Ctx, name: string): number | undefined {
  const text = ctx.query.get(name);
  if (text === null || text === '') return undefined;
  const ms = parseDate(text);
  return Number.isNaN(ms) ? fail(jsonReply(400, { errors: { [name]: ['Enter a valid date/time.'] } })) : ms;
}

function intQueryOf(ctx: Ctx, name: string, fallback: number, max?: number): number {
  const text = ctx.query.get(name);
  if (text === null || text === '') return fallback;
  const n = parseIntStrict(text);
  if (n === undefined || n < 0) return fail(jsonReply(400, { errors: { [name]: ['A valid integer is required.'] } }));
  return max === undefined ? n : Math.min(n, max);
}

/** The purge history, newest first, paginated (`limit` 100 by default and at most). */
const history: ServiceRoute<CdnSlice> = {
  method: 'GET',
  pattern: '/cdn/purge_statuses',
  handler(ctx) {
    const cname = ctx.query.get('cname');
    const status = ctx.query.get('status');
    const type = ctx.query.get('purge_type');
    const from = dateQuery(ctx, 'from_created');
    const to = dateQuery(ctx, 'to_created');
    const limit = Math.max(1, intQueryOf(ctx, 'limit', 100, 100));
    const offset = intQueryOf(ctx, 'offset', 0);
    const all = ctx.state.cdnPurges
      .filter(
        (p) =>
          (cname === null || cname === '' || p.cname === cname) &&
          (type === null || type === '' || p.purge_type === type) &&
          (status === null || status === '' || statusOf(p, ctx.now) === status) &&
          (from === undefined || p.created >= from) &&
          (to === undefined || p.created <= to),
      )
      .sort((a, b) => b.purge_id - a.purge_id);
    const link = (at: number): string => {
      const query = new URLSearchParams(ctx.query);
      query.set('limit', String(limit));
      query.set('offset', String(at));
      return `${ctx.path}?${query.toString()}`;
    };
    return jsonReply(200, {
      count: all.length,
      next: offset + limit < all.length ? link(offset + limit) : null,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      results: all.slice(offset, offset + limit).map((p) => renderPurge(p, ctx)),
    });
  },
};

/** The purge routes. */
export const purgeRoutes: ServiceRoute<CdnSlice>[] = [purge, history];
