import { nthHost, parseNetwork } from '../../cidr.js';
import {
  booleanQuery,
  CLOUD_PRODUCT,
  cloudCreatedTags,
  cloudError,
  cloudObjectBody,
  cloudPages,
  cloudPlacement,
  cloudTagsPatch,
  enumQuery,
  matchesTagFilter,
  placedIn,
  tagFilter,
  type CloudScope,
  type TagFilter,
} from '../../cloud-common.js';
import { defineCollection, type Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { fail } from '../../reply.js';
import type { ServiceRoute } from '../../router.js';
import type { SubnetRecord } from '../networks/index.js';
import { applyTagsPatch, sameTags } from '../../tags.js';
import { assertBalancerFree, assertPoolFitsListener, newId, regionName, type LbCtx, type LbState } from './common.js';
import { at, bad, boolean, choice, integer, list, name, need, objectOf, optional, orNull, same, text, uuid } from './fields.js';
import { LISTENER_FIELDS, assertPortFree, newListener, readListener, type ListenerDraft } from './listeners.js';
import { CONNECTIVITIES, IP_FAMILIES, childrenOf, type LbLogging, type LoadBalancerRecord, type RequestedFloatingIp } from './model.js';
import { POOL_FIELDS, newPool, poolResources, readPool, type PoolDraft } from './pools.js';
import { balancerOperating, indexState, renderBalancer, renderFlavor, type LbIndex } from './render.js';

const CREATE_FIELDS = [
  'flavor',
  'floating_ip',
  'listeners',
  'logging',
  'name',
  'preferred_connectivity',
  'tags',
  'vip_ip_family',
  'vip_network_id',
  'vip_port_id',
  'vip_subnet_id',
];
const PATCH_FIELDS = ['admin_state_up', 'logging', 'name', 'preferred_connectivity', 'tags'];
const TOPIC = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])*)*$/;

/** The flavor a create without one gets: the smallest of the catalogue. */
function defaultFlavor(ctx: LbCtx): string {
  const flavors = [...ctx.state.lbFlavors.values()].sort((a, b) => a.vcpus - b.vcpus || a.ram - b.ram);
  return flavors[0]?.flavor_id ?? fail(cloudError(400, 'flavor: the region offers no load balancer flavor', ctx.requestId));
}

/** A flavor of the catalogue (by its name); 400 otherwise. */
function readFlavor(ctx: LbCtx, value: unknown, field: string): string {
  const flavor = text(ctx, value, field);
  if (!ctx.state.lbFlavors.has(flavor)) bad(ctx, `${field}: ${flavor} is not a load balancer flavor of the region (${[...ctx.state.lbFlavors.keys()].join(', ')})`);
  return flavor;
}

/** A balancer's logging (LoadbalancerLoggingSerializer), its defaults filled in. */
function readLogging(ctx: LbCtx, value: unknown, field: string): LbLogging {
  const body = objectOf(ctx, value, field, ['destination_region_id', 'enabled', 'retention_policy', 'topic_name']);
  return {
    enabled: optional(body, 'enabled', false, (v) => boolean(ctx, v, at(field, 'enabled'))),
    destination_region_id: optional(body, 'destination_region_id', null, (v) => orNull(v, (r) => integer(ctx, r, at(field, 'destination_region_id')))),
    topic_name: optional(body, 'topic_name', null, (v) => orNull(v, (t) => text(ctx, t, at(field, 'topic_name'), { min: 1, max: 223, pattern: TOPIC }))),
    retention_policy: optional(body, 'retention_policy', null, (v) =>
      orNull(v, (r) => {
        const policy = objectOf(ctx, r, at(field, 'retention_policy'), ['period']);
        const period = need(ctx, policy, 'period', at(field, 'retention_policy'));
        return { period: orNull(period, (p) => integer(ctx, p, at(field, 'retention_policy.period'), { above: 0, max: 1825 })) };
      }),
    ),
  };
}

/** The floating IP of a create (`source` new, or existing with its id: a floating IP of the place that is free and not locked). */
function readFloatingIp(ctx: LbCtx, value: unknown, scope: CloudScope): RequestedFloatingIp {
  const source = objectOf(ctx, value, 'floating_ip', ['existing_floating_id', 'source']).source;
  if (source === 'new') {
    objectOf(ctx, value, 'floating_ip', ['source']);
    return { source: 'new' };
  }
  if (source !== 'existing') bad(ctx, `floating_ip: Input tag '${String(source)}' found using 'source' does not match any of the expected tags: 'new', 'existing'`);
  const id = uuid(ctx, need(ctx, value as Record<string, unknown>, 'existing_floating_id', 'floating_ip'), 'floating_ip.existing_floating_id');
  const fip = ctx.state.floatingIps.get(id);
  if (fip === undefined || !placedIn(fip, scope)) return fail(cloudError(404, `Floating IP ${id} not found`, ctx.requestId));
  if (fip.port_id !== null) fail(cloudError(409, `Floating IP ${id} is already associated with port ${fip.port_id}`, ctx.requestId));
  if (fip.task_id !== null) fail(cloudError(409, `Floating IP ${id} is locked by task ${fip.task_id}; wait until the task finishes`, ctx.requestId));
  return { source: 'existing', existing_floating_id: id };
}

/** Addresses the balancers already hold (VIPs and their amphorae's). */
function vipsInUse(ctx: LbCtx): Set<string> {
  return new Set([...ctx.state.loadBalancers.values()].flatMap((lb) => [lb.vip_address, lb.vrrp_address]).filter((a): a is string => a !== null));
}

/**
 * Two free addresses of a subnet (the VIP, then the amphora's), from its top down (instances take
 * theirs from the bottom up, so the two never meet), skipping the gateway, the balancers'
 * addresses and instances' ports.
 */
function subnetVip(ctx: LbCtx, subnet: SubnetRecord): [string, string] {
  const network = parseNetwork(subnet.cidr);
  if ('error' in network) throw new Error(`subnet ${subnet.id} has CIDR ${subnet.cidr}: ${network.error}`);
  const used = vipsInUse(ctx);
  if (subnet.gateway_ip !== null) used.add(subnet.gateway_ip);
  for (const vm of ctx.state.instances.values()) for (const port of vm.ports) if (port.subnet_id === subnet.id) used.add(port.ip_address);
  const top = network.version === 4 ? 2 ** (32 - network.bits) - 2 : 65534;
  const free: string[] = [];
  for (let n = top; n >= 1 && free.length < 2; n--) {
    const address = nthHost(network, n);
    if (address !== undefined && !used.has(address)) free.push(address);
  }
  if (free.length === 2) return free as [string, string];
  return fail(cloudError(409, `Subnet ${subnet.id} has no free IP address left`, ctx.requestId, 'IpAddressGenerationFailure'));
}

/** A VIP on the default external network: 192.0.2.1–254 (RFC 5737), then 100.127.0.0/16. */
function externalVip(ctx: LbCtx): string {
  const used = vipsInUse(ctx);
  for (let n = 1; n <= 254; n++) if (!used.has(`192.0.2.${n}`)) return `192.0.2.${n}`;
  for (let n = 1; n < 65535; n++) {
    const address = `100.127.${n >> 8}.${n & 0xff}`;
    if ((n & 0xff) !== 0 && (n & 0xff) !== 255 && !used.has(address)) return address;
  }
  return fail(cloudError(409, 'No free IP address left on the external network', ctx.requestId, 'IpAddressGenerationFailure'));
}

/** Where a create puts the VIP: a subnet of `vip_network_id` (the given one, or the first of the family), or the external network. */
interface Vip {
  network_id: string | null;
  subnet: SubnetRecord | null;
  family: LoadBalancerRecord['vip_ip_family'];
}

/** The VIP placement of a create; 404 for a network, subnet or port not in the place, 400 for a subnet of another network or none of the family. */
function readVip(ctx: LbCtx, body: Record<string, unknown>, scope: CloudScope): Vip {
  const family = optional(body, 'vip_ip_family', null, (v) => choice(ctx, v, 'vip_ip_family', IP_FAMILIES));
  if (body.vip_port_id !== undefined) {
    const portId = uuid(ctx, body.vip_port_id, 'vip_port_id');
    if (body.vip_network_id !== undefined) bad(ctx, 'vip_port_id: vip_port_id and vip_network_id are mutually exclusive');
    // The emulator holds no reserved fixed IP ports, so no port id names one.
    return fail(cloudError(404, `Port ${portId} not found`, ctx.requestId));
  }
  if (body.vip_network_id === undefined) return { network_id: null, subnet: null, family: family ?? 'ipv4' };
  const networkId = uuid(ctx, body.vip_network_id, 'vip_network_id');
  const net = ctx.state.networks.get(networkId);
  if (net === undefined || !placedIn(net, scope)) return fail(cloudError(404, `Network ${networkId} not found`, ctx.requestId));
  let subnet: SubnetRecord | undefined;
  if (body.vip_subnet_id !== undefined) {
    const subnetId = uuid(ctx, body.vip_subnet_id, 'vip_subnet_id');
    subnet = ctx.state.subnets.get(subnetId);
    if (subnet === undefined || !placedIn(subnet, scope)) return fail(cloudError(404, `Subnet ${subnetId} not found`, ctx.requestId));
    if (subnet.network_id !== networkId) bad(ctx, `vip_subnet_id: subnet ${subnetId} is not in network ${networkId}`);
  } else {
    const version = family === 'ipv6' ? 6 : 4;
    subnet = [...ctx.state.subnets.values()].find((s) => s.network_id === networkId && s.ip_version === version);
    if (subnet === undefined) bad(ctx, `vip_network_id: network ${networkId} has no IPv${version} subnet for the load balancer`);
  }
  return { network_id: networkId, subnet, family: family ?? (subnet.ip_version === 6 ? 'ipv6' : 'ipv4') };
}

/** A create's listeners with their pools (CreateListenerSerializer, at most one pool each); two on one port → 409. */
function readListeners(ctx: LbCtx, value: unknown, scope: CloudScope, lb: LoadBalancerRecord): Array<{ listener: ListenerDraft; pool: PoolDraft | null }> {
  const read: Array<{ listener: ListenerDraft; pool: PoolDraft | null }> = [];
  list(ctx, value, 'listeners', 51).forEach((item, i) => {
    const field = at('listeners', i);
    const body = objectOf(ctx, item, field, [...LISTENER_FIELDS, 'pools']);
    const listener = readListener(ctx, body, field, scope);
    const pools = optional(body, 'pools', [] as unknown[], (v) => list(ctx, v, at(field, 'pools'), 1));
    const pool = pools.length === 0 ? null : readPool(ctx, objectOf(ctx, pools[0], at(field, 'pools.0'), POOL_FIELDS), at(field, 'pools.0'), scope);
    if (pool) assertPoolFitsListener(ctx, listener.protocol, pool.protocol, at(field, 'pools.0.protocol'));
    assertPortFree(
      ctx,
      lb,
      listener,
      read.map((r) => r.listener),
    );
    read.push({ listener, pool });
  });
  return read;
}

/**
 * POST /cloud/v1/loadbalancers/{p}/{r} (CreateLoadbalancerSerializer): the balancer is made at
 * once, PENDING_CREATE, with the listeners (and their pools, members and monitors) the request
 * names inline, by task create_loadbalancer (its created_resources list them all). The VIP is on
 * a subnet of `vip_network_id` or on the external network; `floating_ip` (a VIP on a network
 * only) is associated with the VIP port when the task finishes.
 */
function buildBalancer(ctx: LbCtx, scope: CloudScope): Created<LoadBalancerRecord> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', CREATE_FIELDS);
  const lbName = name(ctx, need(ctx, body, 'name', ''), 'name');
  const flavor = optional(body, 'flavor', null, (v) => readFlavor(ctx, v, 'flavor')) ?? defaultFlavor(ctx);
  const tags = cloudCreatedTags(ctx, body.tags);
  const logging = optional(body, 'logging', null, (v) => readLogging(ctx, v, 'logging'));
  const connectivity = optional(body, 'preferred_connectivity', 'L2' as const, (v) => choice(ctx, v, 'preferred_connectivity', CONNECTIVITIES));
  const vip = readVip(ctx, body, scope);
  const floating = optional(body, 'floating_ip', null, (v) => readFloatingIp(ctx, v, scope));
  if (floating !== null && vip.subnet === null)
    bad(ctx, 'floating_ip: a floating IP is for a load balancer on a private network (vip_network_id); an external one has a public address');
  const id = newId(ctx, 'create_loadbalancer', ctx.state.loadBalancers, scope);
  const lb: LoadBalancerRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region: regionName(ctx, scope.regionId),
    name: lbName,
    flavor,
    vip_network_id: vip.network_id,
    vip_subnet_id: vip.subnet?.id ?? null,
    vip_address: null,
    vrrp_address: null,
    vip_port_id: stableUuid(`${id}/vip-port`),
    vip_ip_family: vip.family,
    pending_floating_ip: floating,
    logging: logging ?? { enabled: false, destination_region_id: null, topic_name: null, retention_policy: null },
    preferred_connectivity: connectivity,
    admin_state_up: true,
    provisioning_status: 'PENDING_CREATE',
    operating_status: null,
    tags,
    task_id: null,
    creator_task_id: null,
    created_at: ctx.now,
    updated_at: null,
    next_task_error: null,
  };
  const children = optional(body, 'listeners', [], (v) => readListeners(ctx, v, scope, lb));
  if (vip.subnet === null) lb.vip_address = externalVip(ctx);
  else [lb.vip_address, lb.vrrp_address] = subnetVip(ctx, vip.subnet);
  const resources = { loadbalancers: [id], listeners: [] as string[], pools: [] as string[], members: [] as string[], healthmonitors: [] as string[] };
  children.forEach(({ listener, pool }, i) => {
    const record = newListener(listener, stableUuid(`${id}/listener/${i}`), lb, ctx.now);
    ctx.state.lbListeners.set(record.id, record);
    resources.listeners.push(record.id);
    if (pool === null) return;
    const made = newPool(pool, stableUuid(`${id}/pool/${i}`), lb, record.id, ctx.now);
    ctx.state.lbPools.set(made.id, made);
    const { pools, members, healthmonitors } = poolResources(made);
    resources.pools.push(...pools);
    resources.members.push(...members);
    resources.healthmonitors.push(...healthmonitors);
  });
  const createdResources: Record<string, string[]> = { ...resources };
  if (floating !== null) createdResources.floatingips = [floating.source === 'new' ? stableUuid(`${id}/floating-ip`) : floating.existing_floating_id];
  return { record: lb, task: { type: 'create_loadbalancer', data: body, createdResources } };
}

/** What a balancer PATCH v2 (LoadBalancerPatchSerializerV2) changes; empty when nothing. */
function readBalancerPatch(ctx: LbCtx, lb: LoadBalancerRecord): Record<string, unknown> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', PATCH_FIELDS);
  const changes: Record<string, unknown> = {};
  if (body.name !== undefined && name(ctx, body.name, 'name') !== lb.name) changes.name = body.name;
  if (body.admin_state_up !== undefined && boolean(ctx, body.admin_state_up, 'admin_state_up') !== lb.admin_state_up) changes.admin_state_up = body.admin_state_up;
  if (body.preferred_connectivity !== undefined && choice(ctx, body.preferred_connectivity, 'preferred_connectivity', CONNECTIVITIES) !== lb.preferred_connectivity)
    changes.preferred_connectivity = body.preferred_connectivity;
  if (body.logging !== undefined) {
    const logging = readLogging(ctx, body.logging, 'logging');
    if (!same(logging, lb.logging)) changes.logging = logging;
  }
  if ('tags' in body) {
    const patch = cloudTagsPatch(ctx, lb.tags, body.tags);
    if (!sameTags(applyTagsPatch(lb.tags, patch), lb.tags)) changes.tags = patch;
  }
  return changes;
}

/** The list's `order_by` choices (LoadBalancerOrderByChoices). */
const ORDER_BY = [
  'created_at.asc',
  'created_at.desc',
  'flavor.asc',
  'flavor.desc',
  'name.asc',
  'name.desc',
  'operating_status.asc',
  'operating_status.desc',
  'provisioning_status.asc',
  'provisioning_status.desc',
  'updated_at.asc',
  'updated_at.desc',
  'vip_address.asc',
  'vip_address.desc',
  'vip_ip_family.asc',
  'vip_ip_family.desc',
] as const;

interface BalancerQuery extends TagFilter {
  name: string | null;
  assignedFloating: boolean | undefined;
  loggingEnabled: boolean | undefined;
  order: { keyOf(lb: LoadBalancerRecord): string | number; sign: number };
  index: LbIndex;
  stats: boolean;
}

/** The value a balancer is ordered by. */
function sortKey(index: LbIndex, lb: LoadBalancerRecord, field: string): string | number {
  switch (field) {
    case 'created_at':
      return lb.created_at;
    case 'updated_at':
      return lb.updated_at ?? lb.created_at;
    case 'operating_status':
      return balancerOperating(index, lb);
    default:
      // Any other filter field, by its name: the record's type has no index signature.
      return String((lb as unknown as Record<string, unknown>)[field] ?? '');
  }
}

/**
 * Load balancers: the list (`{count, results}`, limit 1..1000, newest first unless `order_by`,
 * filters `name`, `tag_key`, `tag_key_value`, `assigned_floating`, `logging_enabled`; `show_stats`
 * and `with_ddos` checked), GET, POST (task create_loadbalancer), PATCH v2 (task
 * update_loadbalancer: name, tags merge patch, logging, preferred connectivity, admin state;
 * `{"tasks": []}` when nothing would change), POST resize (task resize_loadbalancer) and DELETE
 * (task delete_loadbalancer: cascades to its listeners, pools and L7 policies; its floating IPs
 * are disassociated and stay). The deprecated v1 PATCH is not served (405).
 */
export const balancers = defineCollection<LbState, LoadBalancerRecord, CloudScope, BalancerQuery, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/loadbalancers/{project_id}/{region_id}',
  idParam: 'load_balancer_id',
  idSyntax: 'uuid',
  noun: 'Load balancer',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.loadBalancers,
  inScope: placedIn,
  key: (id) => id.toLowerCase(),
  idOf: (lb) => lb.id,
  tasks: { kind: 'load_balancer' },
  list: {
    paging: cloudPages(),
    query(ctx) {
      const [field, direction] = (enumQuery(ctx, 'order_by', ORDER_BY) ?? 'created_at.desc').split('.') as [string, string];
      booleanQuery(ctx, 'with_ddos');
      const index = indexState(ctx.state);
      return {
        index,
        name: ctx.query.get('name'),
        ...tagFilter(ctx),
        assignedFloating: booleanQuery(ctx, 'assigned_floating'),
        loggingEnabled: booleanQuery(ctx, 'logging_enabled'),
        order: { keyOf: (lb: LoadBalancerRecord) => sortKey(index, lb, field), sign: direction === 'asc' ? 1 : -1 },
        stats: booleanQuery(ctx, 'show_stats') ?? false,
      };
    },
    where: (lb, q) =>
      (q.name === null || lb.name === q.name) &&
      matchesTagFilter(lb.tags, q) &&
      (q.assignedFloating === undefined || (lb.vip_port_id !== null && q.index.floatingOn.has(lb.vip_port_id)) === q.assignedFloating) &&
      (q.loggingEnabled === undefined || (lb.logging?.enabled ?? false) === q.loggingEnabled),
    order(a, b, { order }) {
      const [x, y] = [order.keyOf(a), order.keyOf(b)];
      return (x < y ? -1 : x > y ? 1 : 0) * order.sign || a.id.localeCompare(b.id);
    },
    render: (lb, ctx, q) => renderBalancer(ctx.state, lb, { stats: q.stats, index: q.index }),
  },
  get(lb, ctx) {
    booleanQuery(ctx, 'with_ddos');
    return renderBalancer(ctx.state, lb, { stats: booleanQuery(ctx, 'show_stats') ?? false });
  },
  create: {
    build: buildBalancer,
  },
  updates: [
    {
      method: 'PATCH',
      path: '/cloud/v2/loadbalancers/{project_id}/{region_id}/{load_balancer_id}',
      task(ctx, lb) {
        const changes = readBalancerPatch(ctx, lb);
        assertBalancerFree(ctx, lb);
        if (Object.keys(changes).length === 0) return undefined;
        return { type: 'update_loadbalancer', effect: { type: 'update_loadbalancer', changes }, data: ctx.body };
      },
    },
    {
      method: 'POST',
      path: '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/resize',
      task(ctx, lb) {
        const body = objectOf(ctx, cloudObjectBody(ctx), '', ['flavor']);
        const flavor = readFlavor(ctx, need(ctx, body, 'flavor', ''), 'flavor');
        if (flavor === lb.flavor) bad(ctx, `flavor: load balancer ${lb.id} already has flavor ${flavor}`);
        assertBalancerFree(ctx, lb);
        return { type: 'resize_loadbalancer', effect: { type: 'resize_loadbalancer', flavor }, data: body };
      },
    },
  ],
  delete: {
    check(ctx, lb) {
      assertBalancerFree(ctx, lb);
    },
    task(ctx, lb) {
      const { listeners, pools, policies } = childrenOf(ctx.state, lb.id);
      for (const child of [...listeners, ...pools, ...policies]) child.provisioning_status = 'PENDING_DELETE';
      return { type: 'delete_loadbalancer', data: null };
    },
  },
});

/** Load balancer flavors: `{count, results}` of LbFlavorSerializer (LbFlavorPricingSerializer with `include_prices=true`: no prices, `price_status` hide). */
const flavors = defineCollection<LbState, { flavor_id: string; flavor_name: string; vcpus: number; ram: number }, CloudScope, { prices: boolean }>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/lbflavors/{project_id}/{region_id}',
  noun: 'Load balancer flavor',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.lbFlavors,
  idOf: (f) => f.flavor_id,
  list: { paging: cloudPages(), query: (ctx) => ({ prices: booleanQuery(ctx, 'include_prices') ?? false }), render: (f, _ctx, q) => renderFlavor(f, q.prices) },
});

/** The balancer and flavor routes. */
export const balancerRoutes: ServiceRoute<LbState>[] = [...balancers.routes, ...flavors.routes];
