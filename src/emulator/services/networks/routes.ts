import {
  booleanQuery,
  cloudCreatedTags,
  cloudError,
  cloudName,
  cloudObjectBody,
  cloudPages,
  type CloudScope,
  cloudTagsPatch,
  enumQuery,
  matchesTagFilter,
  placedIn,
  type TagFilter,
  tagFilter,
  defineCloudCollection,
  madeNow,
} from '../../cloud-common.js';
import { contains, firstHost, hostCount, isIpAddress, overlaps, parseNetwork, type IpNetwork } from '../../cidr.js';
import type { Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN, formatOffsetDate, isPlainObject } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { applyTagsPatch, sameTags, userTagMap, type Tag } from '../../tags.js';
import type { InstanceSlice } from '../instances/index.js';
import type { LoadBalancerSlice } from '../load-balancers/index.js';
import type { HostRoute, NetworkRecord, NetworkSlice, SubnetRecord } from './index.js';

type Ctx = RouteContext<NetworkSlice>;

/** The region name of a new record: that of another record of the region, else the world's. */
function regionName(ctx: Ctx, regionId: number): string {
  for (const map of [ctx.state.networks, ctx.state.subnets]) for (const r of map.values()) if (r.region_id === regionId) return r.region;
  return ctx.state.defaults.region;
}

/** A new id per create of `kind` since the last reset (counted by its tasks), never one a deleted record had. */
function newId(ctx: Ctx, kind: 'network' | 'subnet', taken: Map<string, unknown>, { projectId, regionId }: CloudScope): string {
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === `create_${kind}`).length;
  let id = stableUuid(`created-${kind}/${projectId}/${regionId}/${n}`);
  while (taken.has(id)) id = stableUuid(`created-${kind}/${projectId}/${regionId}/${++n}`);
  return id;
}

/** A network in the NetworkSerializer shape: `subnets` lists the ids of its subnets. */
export function renderNetwork(ctx: Ctx, net: NetworkRecord): Record<string, unknown> {
  return {
    created_at: formatOffsetDate(net.created_at),
    creator_task_id: net.creator_task_id,
    default: net.default,
    external: net.external,
    id: net.id,
    mtu: net.mtu,
    name: net.name,
    port_security_enabled: net.port_security_enabled,
    project_id: net.project_id,
    region: net.region,
    region_id: net.region_id,
    segmentation_id: net.segmentation_id,
    shared: net.shared,
    subnets: subnetsOf(ctx, net).map((s) => s.id),
    tags: net.tags.map((t) => ({ ...t })),
    task_id: net.task_id,
    type: net.type,
    updated_at: formatOffsetDate(net.updated_at),
  };
}

/** A subnet in the SubnetSerializer shape. */
export function renderSubnet(subnet: SubnetRecord): Record<string, unknown> {
  return {
    available_ips: subnet.total_ips === null ? null : Math.max(0, subnet.total_ips - (subnet.gateway_ip === null ? 0 : 1)),
    cidr: subnet.cidr,
    created_at: formatOffsetDate(subnet.created_at),
    creator_task_id: subnet.creator_task_id,
    dns_nameservers: subnet.dns_nameservers === null ? null : [...subnet.dns_nameservers],
    enable_dhcp: subnet.enable_dhcp,
    gateway_ip: subnet.gateway_ip,
    has_router: false,
    host_routes: subnet.host_routes === null ? null : subnet.host_routes.map((r) => ({ ...r })),
    id: subnet.id,
    ip_version: subnet.ip_version,
    name: subnet.name,
    network_id: subnet.network_id,
    project_id: subnet.project_id,
    region: subnet.region,
    region_id: subnet.region_id,
    tags: subnet.tags.map((t) => ({ ...t })),
    task_id: subnet.task_id,
    total_ips: subnet.total_ips,
    updated_at: formatOffsetDate(subnet.updated_at),
  };
}

/** The subnets of a network, in creation order. */
function subnetsOf(ctx: Ctx, net: NetworkRecord): SubnetRecord[] {
  return [...ctx.state.subnets.values()].filter((s) => s.network_id === net.id);
}

/** A body's boolean field, `fallback` when absent; 400 otherwise. */
function booleanField(ctx: Ctx, body: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(cloudError(400, `${field}: Input should be a valid boolean`, ctx.requestId));
  return value;
}

/** The user tags of a PATCH body's merge patch applied to `tags`, or undefined when the body has no `tags`. */
function patchedTags(ctx: Ctx, body: Record<string, unknown>, tags: Tag[]): Tag[] | undefined {
  return 'tags' in body ? applyTagsPatch(tags, cloudTagsPatch(ctx, tags, body.tags)) : undefined;
}

/** POST /cloud/v1/networks/{p}/{r} (CreateNetworkSerializer): the network is made at once, locked by its create_network task. */
function buildNetwork(ctx: Ctx, scope: CloudScope): Created<NetworkRecord> {
  const body = cloudObjectBody(ctx);
  const name = cloudName(ctx, body);
  const type = body.type ?? 'vxlan';
  if (type !== 'vlan' && type !== 'vxlan') fail(cloudError(400, "type: Input should be 'vlan' or 'vxlan'", ctx.requestId));
  booleanField(ctx, body, 'create_router', true);
  const tags = cloudCreatedTags(ctx, body.tags);
  const id = newId(ctx, 'network', ctx.state.networks, scope);
  const record: NetworkRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region: regionName(ctx, scope.regionId),
    name,
    type,
    mtu: 1450,
    segmentation_id: type === 'vlan' ? 100 + ctx.state.networks.size : null,
    external: false,
    default: false,
    shared: false,
    port_security_enabled: true,
    tags,
    ...madeNow(ctx.now),
  };
  return { record, task: { type: 'create_network', data: body, createdResources: { networks: [id] } } };
}

interface NetworkQuery extends TagFilter {
  name: string | null;
  type: string | undefined;
  external: boolean | undefined;
}

/**
 * Networks (v1): the list (`{count, results}`, 1,000 a page, filtered by name, network_type,
 * external, tag_key, tag_key_value), GET, POST (task create_network), PATCH (name and tags merge
 * patch, synchronous, answering the network) and DELETE (task delete_network; 409 naming the
 * subnets while the network has any).
 */
export const networks = defineCloudCollection<NetworkSlice, NetworkRecord, NetworkQuery>({
  path: '/cloud/v1/networks/{project_id}/{region_id}',
  idParam: 'network_id',
  noun: 'Network',
  store: (ctx) => ctx.state.networks,
  kind: 'network',
  list: {
    paging: cloudPages(),
    query: (ctx) => ({
      name: ctx.query.get('name'),
      type: enumQuery(ctx, 'network_type', ['vlan', 'vxlan']),
      external: booleanQuery(ctx, 'external'),
      ...tagFilter(ctx),
    }),
    where: (net, q) =>
      (q.name === null || net.name === q.name) &&
      (q.type === undefined || net.type === q.type) &&
      (q.external === undefined || net.external === q.external) &&
      matchesTagFilter(net.tags, q),
    render: (net, ctx) => renderNetwork(ctx, net),
  },
  get: (net, ctx) => renderNetwork(ctx, net),
  create: { build: buildNetwork },
  updates: [
    {
      method: 'PATCH',
      change(ctx, net, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const name = body.name === undefined ? undefined : cloudName(ctx, body);
        const tags = patchedTags(ctx, body, net.tags);
        checkLock();
        const changed: Record<string, unknown> = {};
        if (name !== undefined && name !== net.name) changed.name = net.name = name;
        if (tags !== undefined && !sameTags(tags, net.tags)) {
          net.tags = tags;
          changed.tags = userTagMap(tags);
        }
        if (Object.keys(changed).length > 0) net.updated_at = ctx.now;
        return changed;
      },
      answer: (net, ctx) => jsonReply(200, renderNetwork(ctx, net)),
    },
  ],
  delete: {
    task: 'delete_network',
    check(ctx, net) {
      const inUse = subnetsOf(ctx, net);
      if (inUse.length > 0)
        fail(cloudError(409, `Network ${net.id} has subnets ${inUse.map((s) => `${s.id} (${s.name})`).join(', ')}: delete them before the network`, ctx.requestId));
    },
  },
});

/** A body's list of addresses (`dns_nameservers`): null or an array of IP addresses; 400 otherwise. */
function addressList(ctx: Ctx, value: unknown, field: string): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) fail(cloudError(400, `${field}: Input should be a valid list`, ctx.requestId));
  return value.map((v, i) => {
    if (typeof v !== 'string' || !isIpAddress(v)) fail(cloudError(400, `${field}.${i}: value is not a valid IPv4 or IPv6 address`, ctx.requestId));
    return v;
  });
}

/** A body's `host_routes` (RouteInSerializer list): null or destinations in CIDR and next hops; 400 otherwise. */
function hostRoutes(ctx: Ctx, value: unknown): HostRoute[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) fail(cloudError(400, 'host_routes: Input should be a valid list', ctx.requestId));
  return value.map((route, i) => {
    if (!isPlainObject(route)) fail(cloudError(400, `host_routes.${i}: Input should be a valid dictionary`, ctx.requestId));
    const { destination, nexthop } = route;
    if (typeof destination !== 'string' || 'error' in parseNetwork(destination))
      fail(cloudError(400, `host_routes.${i}.destination: value is not a valid IPv4 or IPv6 network`, ctx.requestId));
    if (typeof nexthop !== 'string' || !isIpAddress(nexthop)) fail(cloudError(400, `host_routes.${i}.nexthop: value is not a valid IPv4 or IPv6 address`, ctx.requestId));
    return { destination, nexthop };
  });
}

/** A body's `gateway_ip` within the subnet's network: null, or an address in it; 400 otherwise. */
function gatewayIp(ctx: Ctx, value: unknown, network: IpNetwork): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !isIpAddress(value)) fail(cloudError(400, 'gateway_ip: value is not a valid IPv4 or IPv6 address', ctx.requestId));
  if (!contains(network, value)) fail(cloudError(400, `gateway_ip: ${value} is not in the subnet's CIDR`, ctx.requestId));
  return value;
}

/**
 * POST /cloud/v1/subnets/{p}/{r} (CreateSubnetSerializer): the subnet is made at once, locked by
 * its create_subnet task. Refused: an unknown network of the project and region (404), a CIDR that
 * is not a network of `ip_version` or overlaps another subnet of the network (400), a null gateway
 * with `connect_to_network_router` not false (400).
 */
function buildSubnet(ctx: Ctx, scope: CloudScope): Created<SubnetRecord> {
  const body = cloudObjectBody(ctx);
  const name = cloudName(ctx, body);
  const networkId = body.network_id;
  if (networkId === undefined) fail(cloudError(400, 'network_id: Field required', ctx.requestId));
  if (typeof networkId !== 'string' || !UUID_PATTERN.test(networkId)) fail(cloudError(400, 'network_id: Input should be a valid UUID', ctx.requestId));
  if (body.cidr === undefined) fail(cloudError(400, 'cidr: Field required', ctx.requestId));
  const parsed = typeof body.cidr === 'string' ? parseNetwork(body.cidr) : { error: 'Input should be a valid string' };
  if ('error' in parsed) fail(cloudError(400, `cidr: ${parsed.error}`, ctx.requestId));
  const version = body.ip_version ?? parsed.version;
  if (version !== 4 && version !== 6) fail(cloudError(400, 'ip_version: Input should be 4 or 6', ctx.requestId));
  if (version !== parsed.version) fail(cloudError(400, `cidr: ${String(body.cidr)} is not an IPv${version} network`, ctx.requestId));
  const enableDhcp = booleanField(ctx, body, 'enable_dhcp', true);
  const connect = booleanField(ctx, body, 'connect_to_network_router', true);
  const dns = body.dns_nameservers === undefined ? null : addressList(ctx, body.dns_nameservers, 'dns_nameservers');
  const routes = body.host_routes === undefined ? null : hostRoutes(ctx, body.host_routes);
  const gateway = body.gateway_ip === undefined ? firstHost(parsed) : gatewayIp(ctx, body.gateway_ip, parsed);
  if (gateway === null && connect) fail(cloudError(400, "connect_to_network_router: must be explicitly 'false' when gateway_ip is null", ctx.requestId));
  const tags = cloudCreatedTags(ctx, body.tags);
  const net = ctx.state.networks.get(networkId);
  if (net === undefined || !placedIn(net, scope)) fail(cloudError(404, `Network ${networkId} not found`, ctx.requestId));
  if (net.task_id !== null) fail(cloudError(409, `Network ${net.id} is locked by task ${net.task_id}; wait until the task finishes`, ctx.requestId));
  const clash = subnetsOf(ctx, net).find((s) => overlaps(parseNetwork(s.cidr) as IpNetwork, parsed));
  if (clash) fail(cloudError(400, `cidr: ${String(body.cidr)} overlaps subnet ${clash.id} (${clash.cidr}) of network ${net.id}`, ctx.requestId, 'BadRequest'));
  const id = newId(ctx, 'subnet', ctx.state.subnets, scope);
  const record: SubnetRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region: net.region,
    name,
    network_id: net.id,
    cidr: parsed.address.toString() + `/${parsed.bits}`,
    ip_version: parsed.version,
    enable_dhcp: enableDhcp,
    dns_nameservers: dns,
    host_routes: routes,
    gateway_ip: gateway,
    total_ips: hostCount(parsed),
    tags,
    ...madeNow(ctx.now),
  };
  return { record, task: { type: 'create_subnet', data: body, createdResources: { subnets: [id] } } };
}

/** PATCH of a subnet (PatchSubnetSerializer): only the fields the body names change; what changed, for the mutation log. */
function patchSubnet(ctx: Ctx, subnet: SubnetRecord, checkLock: () => void): Record<string, unknown> {
  const body = cloudObjectBody(ctx);
  const network = parseNetwork(subnet.cidr) as IpNetwork;
  const next: Partial<SubnetRecord> = {};
  if (body.name !== undefined && body.name !== null) next.name = cloudName(ctx, body);
  if (body.dns_nameservers !== undefined) next.dns_nameservers = addressList(ctx, body.dns_nameservers, 'dns_nameservers');
  if (body.host_routes !== undefined) next.host_routes = hostRoutes(ctx, body.host_routes);
  if (body.gateway_ip !== undefined) next.gateway_ip = gatewayIp(ctx, body.gateway_ip, network);
  if (body.enable_dhcp !== undefined) next.enable_dhcp = booleanField(ctx, body, 'enable_dhcp', subnet.enable_dhcp);
  const tags = patchedTags(ctx, body, subnet.tags);
  checkLock();
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(next) as [keyof SubnetRecord, unknown][]) {
    if (JSON.stringify(value) === JSON.stringify(subnet[field])) continue;
    // `next` is a Partial<SubnetRecord> built by the checked reads above: each value fits its field.
    (subnet as unknown as Record<string, unknown>)[field] = value;
    changed[field] = value;
  }
  if (tags !== undefined && !sameTags(tags, subnet.tags)) {
    subnet.tags = tags;
    changed.tags = userTagMap(tags);
  }
  if (Object.keys(changed).length > 0) subnet.updated_at = ctx.now;
  return changed;
}

interface SubnetQuery extends TagFilter {
  networkId: string | null;
}

/**
 * Subnets (v1): the list (`{count, results}`, 1,000 a page, filtered by network_id, tag_key,
 * tag_key_value), GET, POST (task create_subnet), PATCH (name, DNS servers, routes, gateway,
 * DHCP, tags merge patch; synchronous, answering the subnet) and DELETE (task delete_subnet).
 */
export const subnets = defineCloudCollection<NetworkSlice & InstanceSlice & LoadBalancerSlice, SubnetRecord, SubnetQuery>({
  path: '/cloud/v1/subnets/{project_id}/{region_id}',
  idParam: 'subnet_id',
  noun: 'Subnet',
  store: (ctx) => ctx.state.subnets,
  kind: 'subnet',
  list: {
    paging: cloudPages(),
    query: (ctx) => ({ networkId: ctx.query.get('network_id'), ...tagFilter(ctx) }),
    where: (subnet, q) => (q.networkId === null || subnet.network_id === q.networkId) && matchesTagFilter(subnet.tags, q),
    render: renderSubnet,
  },
  get: renderSubnet,
  create: { build: buildSubnet },
  updates: [{ method: 'PATCH', change: (ctx, subnet, _scope, checkLock) => patchSubnet(ctx, subnet, checkLock), answer: (subnet) => jsonReply(200, renderSubnet(subnet)) }],
  delete: {
    task: 'delete_subnet',
    // Neutron refuses a subnet while ports hold addresses from it: an instance's interface, a load balancer's VIP.
    check(ctx, subnet) {
      const balancer = [...ctx.state.loadBalancers.values()].find((lb) => lb.vip_subnet_id === subnet.id);
      if (balancer) fail(cloudError(409, `Subnet ${subnet.id} is in use by load balancer ${balancer.name} (${balancer.id}): delete it before the subnet`, ctx.requestId));
      const users = [...ctx.state.instances.values()].filter((vm) => vm.ports.some((p) => p.subnet_id === subnet.id));
      if (users.length > 0)
        fail(
          cloudError(
            409,
            `Subnet ${subnet.id} is in use by instance${users.length === 1 ? '' : 's'} ${users.map((vm) => `${vm.name} (${vm.id})`).join(', ')}: delete them before the subnet`,
            ctx.requestId,
          ),
        );
    },
  },
});
