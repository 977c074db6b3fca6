import { cloudError, cloudObjectBody, cloudPaging, cloudPlacement, hasTagValues, lockedConflict, queryList, startRequestTask, tagKeyValueFilter } from '../../cloud-common.js';
import { UUID_PATTERN, formatOffsetDate } from '../../format.js';
import { stableUuid } from '../../fixture-parts.js';
import { isPlainObject } from '../../format.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import { applyTagsPatch, parseTagsPatch, readOnlyKeysTouched, sameTags, userTagMap, type TagsPatch } from '../../tags.js';
import type { InstanceSlice } from '../instances/index.js';
import { renderInstanceInFloating } from '../instances/routes.js';
import type { FloatingIpEffect, FloatingIpRecord, FloatingIpSlice } from './index.js';

/** The floating IP list shows each IP's instance, so the routes read the instance service's slice too. */
type Ctx = RouteContext<FloatingIpSlice & InstanceSlice>;

const V1_ONE = '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const V1_LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const V2_ONE = '/cloud/v2/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A floating IP in the FloatingIPSerializer shape. */
export function renderFloatingIp(fip: FloatingIpRecord): Record<string, unknown> {
  return {
    created_at: formatOffsetDate(fip.created_at),
    creator_task_id: fip.creator_task_id,
    fixed_ip_address: fip.fixed_ip_address,
    floating_ip_address: fip.floating_ip_address,
    id: fip.id,
    port_id: fip.port_id,
    project_id: fip.project_id,
    region: fip.region,
    region_id: fip.region_id,
    router_id: fip.router_id,
    status: fip.status,
    tags: fip.tags.map((t) => ({ ...t })),
    task_id: fip.task_id,
    updated_at: formatOffsetDate(fip.updated_at),
  };
}

function renderDetailed(state: FloatingIpSlice & InstanceSlice, fip: FloatingIpRecord, now: number): Record<string, unknown> {
  const vm = fip.instance_id ? state.instances.get(fip.instance_id) : undefined;
  return { ...renderFloatingIp(fip), instance: vm ? renderInstanceInFloating(state, vm, now) : null, loadbalancer: null };
}

function findFloatingIp(ctx: Ctx): FloatingIpRecord {
  const { projectId, regionId } = cloudPlacement(ctx);
  const id = ctx.params.floating_ip_id ?? '';
  if (!UUID_PATTERN.test(id)) fail(cloudError(400, `floating_ip_id: Input should be a valid UUID, got "${id}"`, ctx.requestId));
  const fip = ctx.state.floatingIps.get(id);
  if (!fip || fip.project_id !== projectId || fip.region_id !== regionId) fail(cloudError(404, `Floating IP ${id} not found`, ctx.requestId));
  return fip;
}

/** Validates `tags` of a PATCH body; 400 for a malformed patch or one touching a read-only tag. */
function parseTags(ctx: Ctx, fip: FloatingIpRecord, value: unknown): TagsPatch {
  const parsed = parseTagsPatch(value);
  if (!parsed.ok) fail(cloudError(400, parsed.message, ctx.requestId));
  const readOnly = readOnlyKeysTouched(fip.tags, parsed.patch);
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

function getFloatingIp(ctx: Ctx): Reply {
  return jsonReply(200, renderFloatingIp(findFloatingIp(ctx)));
}

function listFloatingIps(ctx: Ctx): Reply {
  const { projectId, regionId } = cloudPlacement(ctx);
  const { limit, offset } = cloudPaging(ctx);
  const status = ctx.query.get('status');
  if (status !== null && !['ACTIVE', 'DOWN', 'ERROR'].includes(status)) fail(cloudError(400, "status: Input should be 'ACTIVE', 'DOWN' or 'ERROR'", ctx.requestId));
  const tagKeys = queryList(ctx.query, 'tag_key');
  const tagKeyValue = tagKeyValueFilter(ctx);
  const matching: FloatingIpRecord[] = [];
  for (const fip of ctx.state.floatingIps.values()) {
    if (fip.project_id !== projectId || fip.region_id !== regionId) continue;
    if (status !== null && fip.status !== status) continue;
    if (tagKeys.length > 0 && !tagKeys.every((k) => fip.tags.some((t) => t.key === k))) continue;
    if (tagKeyValue && !hasTagValues(fip.tags, tagKeyValue)) continue;
    matching.push(fip);
  }
  const results = matching.slice(offset, offset + limit).map((fip) => renderDetailed(ctx.state, fip, ctx.now));
  return jsonReply(200, { count: matching.length, results });
}

/** Validates `tags` of a create (CreateTagsSerializer): a dictionary of tag keys and string values (no null: nothing to remove yet). */
function parseCreateTags(ctx: Ctx, value: unknown): Record<string, string> {
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

/** The port association of a create or update body (`port_id`, `fixed_ip_address`), validated; undefined when `port_id` is not given. */
function parsePort(ctx: Ctx, body: Record<string, unknown>, current: string | null): { port_id: string | null; fixed_ip_address: string | null } | undefined {
  if ('port_id' in body) {
    const portId = body.port_id;
    if (portId !== null && (typeof portId !== 'string' || !UUID_PATTERN.test(portId))) fail(cloudError(400, 'port_id: Input should be a valid UUID or null', ctx.requestId));
    const fixed = body.fixed_ip_address;
    if (fixed !== undefined && fixed !== null && (typeof fixed !== 'string' || !IPV4.test(fixed)))
      fail(cloudError(400, 'fixed_ip_address: Input should be a valid IPv4 address or null', ctx.requestId));
    return portId === null ? { port_id: null, fixed_ip_address: null } : { port_id: portId, fixed_ip_address: (fixed as string | null | undefined) ?? current ?? '10.0.0.2' };
  }
  if (body.fixed_ip_address !== undefined && body.fixed_ip_address !== null)
    fail(cloudError(400, 'fixed_ip_address: port_id is required when fixed_ip_address is given', ctx.requestId));
  return undefined;
}

/**
 * The emulator's pool of public addresses, in the order they are given: the documentation ranges
 * 203.0.113.20–254 and 198.51.100.1–254 (489), then the benchmarking range 198.18.0.0/15
 * (RFC 2544: 130,048 more, no .0 or .255), so fixtures and the benchmark's creates (1,000 and more) never run
 * out. A third /24 of documentation addresses would still be too few.
 */
function* poolAddresses(): Generator<string> {
  for (const [prefix, first] of [
    ['203.0.113.', 20],
    ['198.51.100.', 1],
  ] as const) {
    for (let host = first; host <= 254; host++) yield `${prefix}${host}`;
  }
  for (let n = 1; n < 2 ** 17 - 1; n++) {
    const [third, fourth] = [(n >> 8) & 0xff, n & 0xff];
    if (fourth !== 0 && fourth !== 255) yield `198.${18 + (n >> 16)}.${third}.${fourth}`;
  }
}

/** The first address of the pool (poolAddresses) no floating IP holds; 403 QuotaLimitExceed when none is left. */
function allocateAddress(ctx: Ctx): string {
  const used = new Set([...ctx.state.floatingIps.values()].map((f) => f.floating_ip_address));
  for (const address of poolAddresses()) if (!used.has(address)) return address;
  fail(cloudError(403, 'Quota exceeded: no floating IP address left in the pool', ctx.requestId, 'QuotaLimitExceed'));
}

/**
 * POST /cloud/v1/floatingips/{p}/{r}: validates the body (CreateFloatingIPSerializer: tags,
 * port_id, fixed_ip_address), makes the floating IP at once, locked by its create_fip task (so a
 * lost answer still leaves it to be found by its tags), and answers the task. The finished task
 * lists the IP under created_resources.floatingips; a failed one removes it.
 */
function createFloatingIp(ctx: Ctx): Reply {
  const { projectId, regionId } = cloudPlacement(ctx);
  const body = cloudObjectBody(ctx);
  const tags = body.tags === undefined || body.tags === null ? {} : parseCreateTags(ctx, body.tags);
  const port = parsePort(ctx, body, null);
  // A new id per create since the last reset (counted by its tasks), never one a deleted IP had.
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_fip').length;
  let id = stableUuid(`created-floating-ip/${projectId}/${regionId}/${n}`);
  while (ctx.state.floatingIps.has(id)) id = stableUuid(`created-floating-ip/${projectId}/${regionId}/${++n}`);
  const region = [...ctx.state.floatingIps.values()].find((f) => f.region_id === regionId)?.region ?? ctx.state.defaults.region;
  const fip: FloatingIpRecord = {
    id,
    project_id: projectId,
    region_id: regionId,
    region,
    floating_ip_address: allocateAddress(ctx),
    fixed_ip_address: port?.fixed_ip_address ?? null,
    port_id: port?.port_id ?? null,
    router_id: null,
    status: port?.port_id ? 'ACTIVE' : 'DOWN',
    tags: Object.entries(tags).map(([key, value]) => ({ key, value, read_only: false })),
    task_id: null,
    creator_task_id: null,
    created_at: ctx.now,
    updated_at: ctx.now,
    instance_id: null,
    next_task_error: null,
  };
  ctx.state.floatingIps.set(id, fip);
  const task = startRequestTask(ctx, {
    taskType: 'create_fip',
    kind: 'floating_ip',
    resourceId: id,
    projectId,
    regionId,
    effect: { type: 'create_fip' } satisfies FloatingIpEffect,
    data: body,
    requestId: ctx.requestId,
    createdResources: { floatingips: [id] },
  });
  fip.creator_task_id = task.id;
  return jsonReply(200, { tasks: [task.id] });
}

/** DELETE /cloud/v1/...: 409 while a task holds the lock, else starts delete_fip, which removes the IP when it finishes. */
function deleteFloatingIp(ctx: Ctx): Reply {
  const fip = findFloatingIp(ctx);
  if (fip.task_id) lockedConflict(ctx, `Floating IP ${fip.id}`, fip.task_id);
  const task = startRequestTask(ctx, {
    taskType: 'delete_fip',
    kind: 'floating_ip',
    resourceId: fip.id,
    projectId: fip.project_id,
    regionId: fip.region_id,
    effect: { type: 'delete_fip' } satisfies FloatingIpEffect,
    data: null,
    requestId: ctx.requestId,
  });
  return jsonReply(200, { tasks: [task.id] });
}

/** PATCH /cloud/v2/...: validates, answers {"tasks": []} when nothing would change, else starts update_floating_ip. */
function patchFloatingIpV2(ctx: Ctx): Reply {
  const fip = findFloatingIp(ctx);
  const body = cloudObjectBody(ctx);
  const tags = 'tags' in body ? parseTags(ctx, fip, body.tags) : undefined;
  const port = parsePort(ctx, body, fip.fixed_ip_address);
  if (fip.task_id) lockedConflict(ctx, `Floating IP ${fip.id}`, fip.task_id);
  const tagsChange = tags !== undefined && !sameTags(applyTagsPatch(fip.tags, tags), fip.tags);
  const portChange = port !== undefined && (port.port_id !== fip.port_id || port.fixed_ip_address !== fip.fixed_ip_address);
  if (!tagsChange && !portChange) return jsonReply(200, { tasks: [] });
  const task = startRequestTask(ctx, {
    taskType: 'update_floating_ip',
    kind: 'floating_ip',
    resourceId: fip.id,
    projectId: fip.project_id,
    regionId: fip.region_id,
    effect: { type: 'update_floating_ip', tags: tagsChange ? tags : undefined, port: portChange ? port : undefined } satisfies FloatingIpEffect,
    data: body,
    requestId: ctx.requestId,
  });
  return jsonReply(200, { tasks: [task.id] });
}

/** Deprecated PATCH /cloud/v1/...: applies the tags merge patch synchronously and answers the floating IP. */
function patchFloatingIpV1(ctx: Ctx): Reply {
  const fip = findFloatingIp(ctx);
  const body = cloudObjectBody(ctx);
  const tags = 'tags' in body ? parseTags(ctx, fip, body.tags) : undefined;
  if (fip.task_id) lockedConflict(ctx, `Floating IP ${fip.id}`, fip.task_id);
  if (tags !== undefined) {
    const next = applyTagsPatch(fip.tags, tags);
    if (!sameTags(next, fip.tags)) {
      fip.tags = next;
      fip.updated_at = ctx.now;
      ctx.state.recordMutation(ctx.now, 'floating_ip', fip.id, 'update', { tags: userTagMap(fip.tags) });
    }
  }
  const successor = `/cloud/v2/floatingips/${fip.project_id}/${fip.region_id}/${fip.id}`;
  return jsonReply(200, renderFloatingIp(fip), { Deprecation: 'true', Link: `<${successor}>; rel="successor-version"` });
}

/** The floating IP routes: GET one and list, POST create and DELETE (v1, tasks), PATCH v2 (task update_floating_ip), deprecated PATCH v1. */
export const floatingIpRoutes: ServiceRoute<FloatingIpSlice & InstanceSlice>[] = [
  { method: 'GET', pattern: V1_ONE, handler: getFloatingIp },
  { method: 'PATCH', pattern: V1_ONE, handler: patchFloatingIpV1 },
  { method: 'DELETE', pattern: V1_ONE, handler: deleteFloatingIp },
  { method: 'GET', pattern: V1_LIST, handler: listFloatingIps },
  { method: 'POST', pattern: V1_LIST, handler: createFloatingIp },
  { method: 'PATCH', pattern: V2_ONE, handler: patchFloatingIpV2 },
];
