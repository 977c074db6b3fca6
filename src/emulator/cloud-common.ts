import { z } from 'zod';
import type { WorldDefaults } from './core-state.js';
import { int } from './fixture-parts.js';
import { isPlainObject, parseIntStrict } from './format.js';
import { fail, jsonReply, type ApiProduct, type Reply } from './reply.js';
import type { RouteContext } from './router.js';
import { countResults, offsetLimit, unpaged, type PagingStyle } from './paging.js';
import { applyTagsPatch, parseTagsPatch, readOnlyKeysTouched, sameTags, userTagMap, type Tag, type TagsPatch } from './tags.js';
import { defineCollection, type Collection, type CollectionSpec } from './collection.js';
import type { Lockable } from './tasks.js';

// What the cloud services (floating IPs, instances, Kubernetes, tasks, quota requests) share.

const CLOUD_CLASS_BY_STATUS: Record<number, string> = {
  400: 'ValidationError',
  401: 'NotAuthenticated',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'HTTPError',
  409: 'ConflictError',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

/** Cloud error body `{exception_class, message, request_id}`; the server adds the matching X-Request-ID header. */
export function cloudError(status: number, message: string, requestId: string, exceptionClass?: string): Reply {
  return jsonReply(status, {
    exception_class: exceptionClass ?? CLOUD_CLASS_BY_STATUS[status] ?? 'HTTPError',
    message,
    request_id: requestId,
  });
}

/** The cloud API: errors `{exception_class, message, request_id}` and an X-Request-ID header on every answer. */
export const CLOUD_PRODUCT: ApiProduct = {
  pathPrefix: '/cloud/',
  requestIdHeader: true,
  error: (status, message, requestId) => cloudError(status, message, requestId),
  notFound: (what, requestId) => cloudError(404, `${what} not found`, requestId),
  invalidParam({ name, text, in: where, expected, status }, requestId) {
    if (expected.kind === 'uuid') return cloudError(status, `${name}: Input should be a valid UUID, got "${text}"`, requestId);
    if (where === 'path') return cloudError(status, `${name}: Input should be a valid integer, got "${text}"`, requestId);
    const { min = 0, max } = expected;
    const range = max === undefined ? `greater than or equal to ${min}` : `between ${min} and ${max}`;
    return cloudError(status, `${name}: Input should be an integer ${range}`, requestId);
  },
};

/** The cloud's limit/offset pages answered `{count, results}`: `limit` 1 to `max` (default `max` unless the list has its own). */
export function cloudPages<Scope = unknown>(max = 1000, defaultLimit = max): PagingStyle<Scope> {
  return offsetLimit({ maxLimit: max, defaultLimit, answer: countResults });
}

/** A cloud list the vendor answers whole, as `{count, results}`. */
export const cloudUnpaged: PagingStyle = unpaged(countResults);

/** Where a cloud resource lives. */
export interface Placement {
  project_id: number;
  region_id: number;
  region: string;
}

/** The task fields of a cloud record a create task makes: its lock (Lockable), the task that made it, its times. */
export interface TaskMade extends Lockable {
  creator_task_id: string | null;
  created_at: number;
  updated_at: number;
}

/** The task fields of a record made now: no task holds it yet (the create task locks it), none is named its creator, no failure is planned. */
export function madeNow(now: number): TaskMade {
  return { task_id: null, creator_task_id: null, created_at: now, updated_at: now, next_task_error: null };
}

/** The placement fields of a cloud fixture: each defaults to the fixtures' world. */
export const placementFixture = {
  project_id: int.optional(),
  region_id: int.optional(),
  region: z.string().optional(),
};

/** A fixture record's placement, the world's where it names none. */
export function placeIn(world: WorldDefaults, x: { project_id?: number | undefined; region_id?: number | undefined; region?: string | undefined }): Placement {
  return { project_id: x.project_id ?? world.project_id, region_id: x.region_id ?? world.region_id, region: x.region ?? world.region };
}

/** A cloud path's project and region (`{project_id}/{region_id}`), the scope of every placed cloud collection. */
export interface CloudScope {
  projectId: number;
  regionId: number;
}

/** project_id and region_id from the path; answers 400 ValidationError when not integers. */
export function cloudPlacement(ctx: RouteContext): CloudScope {
  const projectId = parseIntStrict(ctx.params.project_id);
  const regionId = parseIntStrict(ctx.params.region_id);
  if (projectId === undefined) fail(cloudError(400, `project_id: Input should be a valid integer, got "${ctx.params.project_id}"`, ctx.requestId));
  if (regionId === undefined) fail(cloudError(400, `region_id: Input should be a valid integer, got "${ctx.params.region_id}"`, ctx.requestId));
  return { projectId, regionId };
}

/** Whether a placed record is in the path's project and region. */
export function placedIn(record: { project_id: number; region_id: number }, scope: CloudScope): boolean {
  return record.project_id === scope.projectId && record.region_id === scope.regionId;
}

/** The JSON object body of a request; 400 ValidationError when missing or not an object. */
export function cloudObjectBody(ctx: RouteContext): Record<string, unknown> {
  if (ctx.body === undefined) fail(cloudError(400, 'Request body is required: a JSON object', ctx.requestId));
  if (!isPlainObject(ctx.body)) fail(cloudError(400, 'Input should be a valid dictionary (a JSON object)', ctx.requestId));
  return ctx.body;
}

/** Values of a repeatable query parameter, accepting both `name=a&name=b` and `name[]=a`. */
export function queryList(query: URLSearchParams, name: string): string[] {
  return [...query.getAll(name), ...query.getAll(`${name}[]`)];
}

/** The `tag_key_value` filter of a cloud list (a JSON object of tag keys and values), or undefined when absent; 400 when malformed. */
export function tagKeyValueFilter(ctx: RouteContext): Record<string, string> | undefined {
  const text = ctx.query.get('tag_key_value');
  if (text === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isPlainObject(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    fail(cloudError(400, 'tag_key_value: Input should be a JSON object of tag keys and values', ctx.requestId));
  }
  return parsed as Record<string, string>;
}

/** The tag filters of a cloud list: `tag_key` (repeatable: each key present) and `tag_key_value` (each key → value). */
export interface TagFilter {
  tagKeys: string[];
  tagKeyValue: Record<string, string> | undefined;
}

/** A cloud list's TagFilter from its query; 400 when `tag_key_value` is malformed. */
export function tagFilter(ctx: RouteContext): TagFilter {
  return { tagKeys: queryList(ctx.query, 'tag_key'), tagKeyValue: tagKeyValueFilter(ctx) };
}

/** Whether tags pass a TagFilter: every `tag_key` present, every `tag_key_value` pair carried. */
export function matchesTagFilter(tags: ReadonlyArray<{ key: string; value: string }>, filter: TagFilter): boolean {
  return filter.tagKeys.every((k) => tags.some((t) => t.key === k)) && (filter.tagKeyValue === undefined || hasTagValues(tags, filter.tagKeyValue));
}

/** Whether tags carry every key → value of a tag_key_value filter. */
export function hasTagValues(tags: ReadonlyArray<{ key: string; value: string }>, wanted: Readonly<Record<string, string>>): boolean {
  return Object.entries(wanted).every(([k, v]) => tags.some((t) => t.key === k && t.value === v));
}

/** A boolean query parameter (`true`/`false`, as the cloud API parses them), or undefined when absent; 400 otherwise. */
export function booleanQuery(ctx: RouteContext, name: string): boolean | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  const value = { true: true, false: false, '1': true, '0': false }[text.toLowerCase()];
  if (value === undefined) fail(cloudError(400, `${name}: Input should be a valid boolean, got "${text}"`, ctx.requestId));
  return value;
}

/** A query parameter that must be one of `allowed`, or undefined when absent; 400 listing the choices otherwise. */
export function enumQuery<T extends string>(ctx: RouteContext, name: string, allowed: readonly T[]): T | undefined {
  const value = ctx.query.get(name);
  if (value === null) return undefined;
  if (!(allowed as readonly string[]).includes(value)) fail(cloudError(400, `${name}: Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`, ctx.requestId));
  return value as T;
}

/** Validates `tags` of a PATCH body (UpdateTagsSerializer, a merge patch); 400 for a malformed patch or one touching a read-only tag of `current`. */
export function cloudTagsPatch(ctx: RouteContext, current: readonly Tag[], value: unknown): TagsPatch {
  const parsed = parseTagsPatch(value);
  if (!parsed.ok) fail(cloudError(400, parsed.message, ctx.requestId));
  const readOnly = readOnlyKeysTouched(current, parsed.patch);
  if (readOnly.length > 0) {
    fail(
      cloudError(
        400,
        `tags: ${readOnly.map((k) => `"${k}"`).join(', ')} ${readOnly.length === 1 ? 'is a read-only tag' : 'are read-only tags'} and cannot be modified`,
        ctx.requestId,
      ),
    );
  }
  return parsed.patch;
}

/** Validates `tags` of a create (CreateTagsSerializer): a dictionary of tag keys and string values (no null: nothing to remove yet). */
export function cloudCreateTags(ctx: RouteContext, value: unknown): Record<string, string> {
  if (!isPlainObject(value)) fail(cloudError(400, 'tags: Input should be a valid dictionary', ctx.requestId));
  const parsed = parseTagsPatch(value);
  if (!parsed.ok) fail(cloudError(400, parsed.message, ctx.requestId));
  const tags: Record<string, string> = {};
  for (const [key, v] of Object.entries(parsed.patch ?? {})) {
    if (v === null) fail(cloudError(400, `tags.${key}: Input should be a valid string`, ctx.requestId));
    tags[key] = v;
  }
  return tags;
}

/** The user tags of a create body's `tags` (absent or null: none) as the platform's tag list. */
export function cloudCreatedTags(ctx: RouteContext, value: unknown): Tag[] {
  const tags = value === undefined || value === null ? {} : cloudCreateTags(ctx, value);
  return Object.entries(tags).map(([key, v]) => ({ key, value: v, read_only: false }));
}

/** The name pattern of cloud networks, subnets and SSH keys (CreateNetworkSerializer.name and its kin): 3–63 characters. */
export const CLOUD_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/;

/** A body's `field` as a cloud resource name (CLOUD_NAME_PATTERN); 400 when missing (if required) or malformed. */
export function cloudName(ctx: RouteContext, body: Record<string, unknown>, field = 'name'): string {
  const value = body[field];
  if (value === undefined) fail(cloudError(400, `${field}: Field required`, ctx.requestId));
  if (typeof value !== 'string' || !CLOUD_NAME_PATTERN.test(value)) fail(cloudError(400, `${field}: String should match pattern '${CLOUD_NAME_PATTERN.source}'`, ctx.requestId));
  return value;
}

/** Applies a PATCH's tags merge patch (undefined: the body has no `tags`) to a record; the user tags go in `changed.tags` when they changed. */
export function patchTags(record: { tags: Tag[] }, patch: TagsPatch | undefined, changed: Record<string, unknown>): void {
  if (patch === undefined) return;
  const next = applyTagsPatch(record.tags, patch);
  if (sameTags(next, record.tags)) return;
  record.tags = next;
  changed.tags = userTagMap(next);
}

/** What every placed cloud collection declares alike, and defineCloudCollection fills in. */
type CloudFilled = 'product' | 'scope' | 'inScope' | 'idOf' | 'idSyntax' | 'mutationKind' | 'tasks';

/**
 * Declares a cloud collection placed under `{project_id}/{region_id}` (floating IPs, networks,
 * volumes, ...): the cloud's error shapes, the path's placement as its scope, records by their
 * `id` (a UUID unless `idSyntax` says otherwise), its changes logged and its tasks started under
 * `kind`. The rest is the collection's own, as CollectionSpec declares it.
 */
export function defineCloudCollection<
  State extends object,
  Rec extends { id: string; project_id: number; region_id: number },
  Query = undefined,
  Syntax extends 'uuid' | 'text' = 'uuid',
>(spec: Omit<CollectionSpec<State, Rec, string, CloudScope, Query, Syntax>, CloudFilled> & { kind: string; idSyntax?: Syntax }): Collection<State, Rec, CloudScope> {
  const { kind, ...own } = spec;
  return defineCollection<State, Rec, CloudScope, Query, Syntax, string>({
    product: CLOUD_PRODUCT,
    idSyntax: 'uuid' as Syntax,
    scope: cloudPlacement,
    inScope: placedIn,
    idOf: (record) => record.id,
    mutationKind: kind,
    tasks: { kind },
    ...own,
  });
}
