import { cloudError, cloudObjectBody, cloudPaging, cloudPlacement, hasTagValues, lockedConflict, queryList, startRequestTask, tagKeyValueFilter } from '../../cloud-common.js';
import { UUID_PATTERN, formatOffsetDate } from '../../format.js';
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

/** PATCH /cloud/v2/...: validates, answers {"tasks": []} when nothing would change, else starts update_floating_ip. */
function patchFloatingIpV2(ctx: Ctx): Reply {
  const fip = findFloatingIp(ctx);
  const body = cloudObjectBody(ctx);
  const tags = 'tags' in body ? parseTags(ctx, fip, body.tags) : undefined;
  let port: { port_id: string | null; fixed_ip_address: string | null } | undefined;
  if ('port_id' in body) {
    const portId = body.port_id;
    if (portId !== null && (typeof portId !== 'string' || !UUID_PATTERN.test(portId))) fail(cloudError(400, 'port_id: Input should be a valid UUID or null', ctx.requestId));
    const fixed = body.fixed_ip_address;
    if (fixed !== undefined && fixed !== null && (typeof fixed !== 'string' || !IPV4.test(fixed)))
      fail(cloudError(400, 'fixed_ip_address: Input should be a valid IPv4 address or null', ctx.requestId));
    port =
      portId === null
        ? { port_id: null, fixed_ip_address: null }
        : { port_id: portId, fixed_ip_address: (fixed as string | null | undefined) ?? fip.fixed_ip_address ?? '10.0.0.2' };
  } else if (body.fixed_ip_address !== undefined && body.fixed_ip_address !== null) {
    fail(cloudError(400, 'fixed_ip_address: port_id is required when fixed_ip_address is given', ctx.requestId));
  }
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

/** The floating IP routes: GET one and list (v1), PATCH v2 (task update_floating_ip), deprecated PATCH v1. */
export const floatingIpRoutes: ServiceRoute<FloatingIpSlice & InstanceSlice>[] = [
  { method: 'GET', pattern: V1_ONE, handler: getFloatingIp },
  { method: 'PATCH', pattern: V1_ONE, handler: patchFloatingIpV1 },
  { method: 'GET', pattern: V1_LIST, handler: listFloatingIps },
  { method: 'PATCH', pattern: V2_ONE, handler: patchFloatingIpV2 },
];
