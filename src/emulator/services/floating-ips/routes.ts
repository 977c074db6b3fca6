import {
  cloudCreateTags,
  cloudError,
  cloudObjectBody,
  cloudPages,
  type CloudScope,
  cloudTagsPatch,
  matchesTagFilter,
  type TagFilter,
  tagFilter,
  defineCloudCollection,
  patchTags,
} from '../../cloud-common.js';
import type { Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN, formatOffsetDate } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { applyTagsPatch, sameTags } from '../../tags.js';
import type { InstanceSlice } from '../instances/index.js';
import { renderInstanceInFloating } from '../instances/routes.js';
import type { FloatingIpRecord, FloatingIpSlice } from './index.js';
import { freeAddress } from './addresses.js';

export { freeAddress };

/** The floating IP list shows each IP's instance, so the routes read the instance service's slice too. */
type State = FloatingIpSlice & InstanceSlice;
type Ctx = RouteContext<State>;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const STATUSES = ['ACTIVE', 'DOWN', 'ERROR'];

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

/** The first address of the pool no floating IP holds; 403 QuotaLimitExceed when none is left. */
function allocateAddress(ctx: Ctx): string {
  return freeAddress(ctx.state) ?? fail(cloudError(403, 'Quota exceeded: no floating IP address left in the pool', ctx.requestId, 'QuotaLimitExceed'));
}

/**
 * POST /cloud/v1/floatingips/{p}/{r}: validates the body (CreateFloatingIPSerializer: tags,
 * port_id, fixed_ip_address) and makes the floating IP at once, locked by its create_fip task (so
 * a lost answer still leaves it to be found by its tags). The finished task lists the IP under
 * created_resources.floatingips; a failed one removes it.
 */
function buildFloatingIp(ctx: Ctx, { projectId, regionId }: CloudScope): Created<FloatingIpRecord> {
  const body = cloudObjectBody(ctx);
  const tags = body.tags === undefined || body.tags === null ? {} : cloudCreateTags(ctx, body.tags);
  const port = parsePort(ctx, body, null);
  // A new id per create since the last reset (counted by its tasks), never one a deleted IP had.
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_fip').length;
  let id = stableUuid(`created-floating-ip/${projectId}/${regionId}/${n}`);
  while (ctx.state.floatingIps.has(id)) id = stableUuid(`created-floating-ip/${projectId}/${regionId}/${++n}`);
  const region = [...ctx.state.floatingIps.values()].find((f) => f.region_id === regionId)?.region ?? ctx.state.defaults.region;
  const record: FloatingIpRecord = {
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
  return { record, task: { type: 'create_fip', data: body, createdResources: { floatingips: [id] } } };
}

/**
 * Cloud floating IPs (v1): GET one and the list (`{count, results}` with each IP's instance,
 * filtered by status, tag_key and tag_key_value), POST create (task create_fip), DELETE (task
 * delete_fip), PATCH v2 (task update_floating_ip: tags merge patch and port association, `{"tasks":
 * []}` when nothing would change) and the deprecated synchronous PATCH v1 (tags only).
 */
interface ListQuery extends TagFilter {
  status: string | null;
}

export const floatingIps = defineCloudCollection<State, FloatingIpRecord, ListQuery>({
  path: '/cloud/v1/floatingips/{project_id}/{region_id}',
  idParam: 'floating_ip_id',
  noun: 'Floating IP',
  store: (ctx) => ctx.state.floatingIps,
  kind: 'floating_ip',
  list: {
    paging: cloudPages(),
    query(ctx) {
      const status = ctx.query.get('status');
      if (status !== null && !STATUSES.includes(status)) fail(cloudError(400, "status: Input should be 'ACTIVE', 'DOWN' or 'ERROR'", ctx.requestId));
      return { status, ...tagFilter(ctx) };
    },
    where: (fip, q) => (q.status === null || fip.status === q.status) && matchesTagFilter(fip.tags, q),
    render(fip, ctx) {
      const vm = fip.instance_id ? ctx.state.instances.get(fip.instance_id) : undefined;
      return { ...renderFloatingIp(fip), instance: vm ? renderInstanceInFloating(ctx.state, vm, ctx.now) : null, loadbalancer: null };
    },
  },
  get: renderFloatingIp,
  create: { build: buildFloatingIp },
  updates: [
    {
      method: 'PATCH',
      change(ctx, fip, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const tags = 'tags' in body ? cloudTagsPatch(ctx, fip.tags, body.tags) : undefined;
        checkLock();
        const changed: Record<string, unknown> = {};
        patchTags(fip, tags, changed);
        if (changed.tags !== undefined) fip.updated_at = ctx.now;
        return changed;
      },
      answer(fip) {
        const successor = `/cloud/v2/floatingips/${fip.project_id}/${fip.region_id}/${fip.id}`;
        return jsonReply(200, renderFloatingIp(fip), { Deprecation: 'true', Link: `<${successor}>; rel="successor-version"` });
      },
    },
    {
      method: 'PATCH',
      path: '/cloud/v2/floatingips/{project_id}/{region_id}/{floating_ip_id}',
      task(ctx, fip, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const tags = 'tags' in body ? cloudTagsPatch(ctx, fip.tags, body.tags) : undefined;
        const port = parsePort(ctx, body, fip.fixed_ip_address);
        checkLock();
        const tagsChange = tags !== undefined && !sameTags(applyTagsPatch(fip.tags, tags), fip.tags);
        const portChange = port !== undefined && (port.port_id !== fip.port_id || port.fixed_ip_address !== fip.fixed_ip_address);
        if (!tagsChange && !portChange) return undefined;
        return { type: 'update_floating_ip', effect: { type: 'update_floating_ip', tags: tagsChange ? tags : undefined, port: portChange ? port : undefined }, data: body };
      },
    },
  ],
  delete: { task: 'delete_fip' },
});
