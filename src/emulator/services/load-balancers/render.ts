import { formatOffsetDate } from '../../format.js';
import type { FloatingIpRecord, FloatingIpSlice } from '../floating-ips/index.js';
import { renderFloatingIp } from '../floating-ips/routes.js';
import {
  isPending,
  type HealthMonitorRecord,
  type L7PolicyRecord,
  type L7RuleRecord,
  type LbFlavorRecord,
  type ListenerRecord,
  type LoadBalancerRecord,
  type LoadBalancerSlice,
  type MemberRecord,
  type OperatingStatus,
  type PoolRecord,
  type ProvisioningStatus,
  type SecretRecord,
} from './model.js';

// The answers of the load balancer routes, in the vendor's serializers' shapes.

type State = LoadBalancerSlice & FloatingIpSlice;

/** LoadbalancerStatsSerializer: the emulator carries no traffic, so every counter is 0. */
const ZERO_STATS = { active_connections: 0, bytes_in: 0, bytes_out: 0, request_errors: 0, total_connections: 0 };

/** A secret's datetimes: `2020-01-01T12:00:00+00:00`, as SecretSerializer documents them. */
function secretDate(ms: number): string {
  return formatOffsetDate(ms).replace(/\+0000$/, '+00:00');
}

/** The lock a child shows: its balancer's task while a task is changing the child, else none. */
function childTask(state: State, lbId: string, status: ProvisioningStatus): string | null {
  return isPending(status) ? (state.loadBalancers.get(lbId)?.task_id ?? null) : null;
}

/**
 * Which listeners and pools each balancer has, how many pools each listener has and which floating
 * IPs each port has: built once per request, so a list renders in time proportional to the state,
 * not to its square.
 */
export interface LbIndex {
  listenersOf: Map<string, ListenerRecord[]>;
  poolsOf: Map<string, PoolRecord[]>;
  poolCount: Map<string, number>;
  floatingOn: Map<string, FloatingIpRecord[]>;
}

/** Appends `value` to the list of `key`. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The index of the state as it is now. */
export function indexState(state: State): LbIndex {
  const index: LbIndex = { listenersOf: new Map(), poolsOf: new Map(), poolCount: new Map(), floatingOn: new Map() };
  for (const l of state.lbListeners.values()) push(index.listenersOf, l.load_balancer_id, l);
  for (const p of state.lbPools.values()) {
    push(index.poolsOf, p.load_balancer_id, p);
    if (p.listener_id !== null) index.poolCount.set(p.listener_id, (index.poolCount.get(p.listener_id) ?? 0) + 1);
  }
  for (const f of state.floatingIps.values()) if (f.port_id !== null) push(index.floatingOn, f.port_id, f);
  return index;
}

/** What a resource is doing, derived: OFFLINE while being created or when disabled, else ONLINE. */
function basicOperating(status: ProvisioningStatus, adminUp: boolean): OperatingStatus {
  return status === 'PENDING_CREATE' || !adminUp ? 'OFFLINE' : 'ONLINE';
}

/** A member's operating status: a fixture's, else OFFLINE (being created, disabled), ONLINE under a monitor, NO_MONITOR without. */
export function memberOperating(member: MemberRecord, pool: PoolRecord): OperatingStatus {
  if (member.operating_status !== null) return member.operating_status;
  if (member.provisioning_status === 'PENDING_CREATE' || !member.admin_state_up) return 'OFFLINE';
  return pool.healthmonitor === null ? 'NO_MONITOR' : 'ONLINE';
}

/** A pool's operating status: OFFLINE (being created, disabled), ERROR when every member is, DEGRADED when some are, else ONLINE. */
export function poolOperating(pool: PoolRecord): OperatingStatus {
  const base = basicOperating(pool.provisioning_status, pool.admin_state_up);
  if (base !== 'ONLINE') return base;
  const failing = pool.members.filter((m) => memberOperating(m, pool) === 'ERROR').length;
  if (failing > 0 && failing === pool.members.length) return 'ERROR';
  return failing > 0 ? 'DEGRADED' : 'ONLINE';
}

/** A balancer's operating status: a fixture's, else OFFLINE (being created, disabled), DEGRADED when a pool is not ONLINE, else ONLINE. */
export function balancerOperating(index: LbIndex, lb: LoadBalancerRecord): OperatingStatus {
  if (lb.operating_status !== null) return lb.operating_status;
  const base = basicOperating(lb.provisioning_status, lb.admin_state_up);
  if (base !== 'ONLINE') return base;
  const pools = (index.poolsOf.get(lb.id) ?? []).filter((p) => p.provisioning_status === 'ACTIVE');
  return pools.some((p) => ['DEGRADED', 'ERROR'].includes(poolOperating(p))) ? 'DEGRADED' : 'ONLINE';
}

/** A flavor (LbFlavorSerializer), with the price fields of LbFlavorPricingSerializer when prices are asked for. */
export function renderFlavor(flavor: LbFlavorRecord, withPrices = false): Record<string, unknown> {
  const base = { flavor_id: flavor.flavor_id, flavor_name: flavor.flavor_name, ram: flavor.ram, vcpus: flavor.vcpus };
  return withPrices ? { ...base, currency_code: null, price_per_hour: null, price_per_month: null, price_status: 'hide' } : base;
}

/**
 * A balancer in the LoadbalancerSerializer shape: tags as `tags_v2`, its listeners as ids, its
 * floating IPs those on its VIP port. The serializer has no `vip_network_id` nor `vip_subnet_id`:
 * the VIP's subnet shows in `vrrp_ips` (the amphora's address on it).
 */
export function renderBalancer(state: State, lb: LoadBalancerRecord, options: { stats?: boolean; index?: LbIndex } = {}): Record<string, unknown> {
  const index = options.index ?? indexState(state);
  const flavor = state.lbFlavors.get(lb.flavor);
  const listeners = (index.listenersOf.get(lb.id) ?? []).map((l) => ({ id: l.id }));
  const floating = lb.vip_port_id === null ? [] : (index.floatingOn.get(lb.vip_port_id) ?? []);
  return {
    additional_vips: [],
    admin_state_up: lb.admin_state_up,
    created_at: formatOffsetDate(lb.created_at),
    creator_task_id: lb.creator_task_id,
    ddos_profile: null,
    flavor: flavor ? renderFlavor(flavor) : null,
    floating_ips: floating.map(renderFloatingIp),
    id: lb.id,
    listeners,
    logging: lb.logging === null ? null : { ...lb.logging, retention_policy: lb.logging.retention_policy && { ...lb.logging.retention_policy } },
    name: lb.name,
    operating_status: balancerOperating(index, lb),
    preferred_connectivity: lb.preferred_connectivity,
    project_id: lb.project_id,
    provisioning_status: lb.provisioning_status,
    region: lb.region,
    region_id: lb.region_id,
    stats: options.stats ? { ...ZERO_STATS } : null,
    tags_v2: lb.tags.map((t) => ({ ...t })),
    task_id: lb.task_id,
    updated_at: lb.updated_at === null ? null : formatOffsetDate(lb.updated_at),
    vip_address: lb.vip_address,
    vip_fqdn: null,
    vip_ip_family: lb.vip_ip_family,
    vip_port_id: lb.vip_port_id,
    vrrp_ips: lb.vip_subnet_id !== null && lb.vrrp_address !== null ? [{ ip_address: lb.vrrp_address, role: 'STANDALONE', subnet_id: lb.vip_subnet_id }] : [],
  };
}

/** The insert_headers of a listener: the X-Forwarded headers when it inserts them. */
function insertHeaders(listener: ListenerRecord): Record<string, string> {
  return listener.insert_x_forwarded ? { 'X-Forwarded-For': 'true', 'X-Forwarded-Port': 'true', 'X-Forwarded-Proto': 'true' } : {};
}

/** A listener in the LbListenerSerializer shape (`pool_count`: the pools on it). */
export function renderListener(state: State, listener: ListenerRecord, options: { stats?: boolean; index?: LbIndex } = {}): Record<string, unknown> {
  const index = options.index ?? indexState(state);
  return {
    admin_state_up: listener.admin_state_up,
    allowed_cidrs: listener.allowed_cidrs === null ? null : [...listener.allowed_cidrs],
    connection_limit: listener.connection_limit,
    creator_task_id: listener.creator_task_id,
    id: listener.id,
    insert_headers: insertHeaders(listener),
    load_balancer_id: listener.load_balancer_id,
    name: listener.name,
    operating_status: basicOperating(listener.provisioning_status, listener.admin_state_up),
    pool_count: index.poolCount.get(listener.id) ?? 0,
    protocol: listener.protocol,
    protocol_port: listener.protocol_port,
    provisioning_status: listener.provisioning_status,
    secret_id: listener.secret_id,
    sni_secret_id: [...listener.sni_secret_id],
    stats: options.stats ? { ...ZERO_STATS } : null,
    task_id: childTask(state, listener.load_balancer_id, listener.provisioning_status),
    timeout_client_data: listener.timeout_client_data,
    timeout_member_connect: listener.timeout_member_connect,
    timeout_member_data: listener.timeout_member_data,
    user_list: listener.user_list.map((u) => ({ ...u })),
  };
}

/** A member in the DetailedLbPoolMemberSerializer shape. */
export function renderMember(member: MemberRecord, pool: PoolRecord): Record<string, unknown> {
  return {
    address: member.address,
    admin_state_up: member.admin_state_up,
    backup: member.backup,
    id: member.id,
    monitor_address: member.monitor_address,
    monitor_port: member.monitor_port,
    operating_status: memberOperating(member, pool),
    protocol_port: member.protocol_port,
    provisioning_status: member.provisioning_status,
    subnet_id: member.subnet_id,
    weight: member.weight,
  };
}

/** A health monitor in the LbHealthMonitorSerializer shape. */
export function renderMonitor(hm: HealthMonitorRecord): Record<string, unknown> {
  return {
    admin_state_up: hm.admin_state_up,
    delay: hm.delay,
    domain_name: hm.domain_name,
    expected_codes: hm.expected_codes,
    http_method: hm.http_method,
    http_version: hm.http_version,
    id: hm.id,
    max_retries: hm.max_retries,
    max_retries_down: hm.max_retries_down,
    operating_status: basicOperating(hm.provisioning_status, hm.admin_state_up),
    provisioning_status: hm.provisioning_status,
    timeout: hm.timeout,
    type: hm.type,
    url_path: hm.url_path,
  };
}

/**
 * A pool in the LbPoolSerializer / LbPoolInstanceSerializer shape. Its members are detailed
 * unless `details` is false (the list without `details=true` shows their ids only, as the
 * vendor's `details` parameter says: "Show members and Health Monitor details").
 */
export function renderPool(state: State, pool: PoolRecord, details = true): Record<string, unknown> {
  return {
    admin_state_up: pool.admin_state_up,
    ca_secret_id: pool.ca_secret_id,
    creator_task_id: pool.creator_task_id,
    crl_secret_id: pool.crl_secret_id,
    healthmonitor: pool.healthmonitor === null ? null : renderMonitor(pool.healthmonitor),
    id: pool.id,
    lb_algorithm: pool.lb_algorithm,
    listeners: pool.listener_id === null ? [] : [{ id: pool.listener_id }],
    loadbalancers: [{ id: pool.load_balancer_id }],
    members: pool.members.map((m) => (details ? renderMember(m, pool) : { id: m.id })),
    name: pool.name,
    operating_status: poolOperating(pool),
    protocol: pool.protocol,
    provisioning_status: pool.provisioning_status,
    secret_id: pool.secret_id,
    session_persistence: pool.session_persistence === null ? null : { ...pool.session_persistence },
    task_id: childTask(state, pool.load_balancer_id, pool.provisioning_status),
    timeout_client_data: pool.timeout_client_data,
    timeout_member_connect: pool.timeout_member_connect,
    timeout_member_data: pool.timeout_member_data,
  };
}

/** An L7 rule in the L7RuleSerializer shape. */
export function renderRule(state: State, policy: L7PolicyRecord, rule: L7RuleRecord): Record<string, unknown> {
  return {
    compare_type: rule.compare_type,
    id: rule.id,
    invert: rule.invert,
    key: rule.key,
    operating_status: basicOperating(rule.provisioning_status, true),
    project_id: policy.project_id,
    provisioning_status: rule.provisioning_status,
    region: policy.region,
    region_id: policy.region_id,
    tags: [...rule.tags],
    task_id: childTask(state, policy.load_balancer_id, rule.provisioning_status),
    type: rule.type,
    value: rule.value,
  };
}

/** An L7 policy in the L7PolicySerializer shape (its rules as ids with their place). */
export function renderPolicy(state: State, policy: L7PolicyRecord): Record<string, unknown> {
  return {
    action: policy.action,
    id: policy.id,
    listener_id: policy.listener_id,
    name: policy.name,
    operating_status: basicOperating(policy.provisioning_status, true),
    position: policy.position,
    project_id: policy.project_id,
    provisioning_status: policy.provisioning_status,
    redirect_http_code: policy.redirect_http_code,
    redirect_pool_id: policy.redirect_pool_id,
    redirect_prefix: policy.redirect_prefix,
    redirect_url: policy.redirect_url,
    region: policy.region,
    region_id: policy.region_id,
    rules: policy.rules.map((r) => ({ id: r.id, project_id: policy.project_id, region: policy.region, region_id: policy.region_id })),
    tags: [...policy.tags],
    task_id: childTask(state, policy.load_balancer_id, policy.provisioning_status),
  };
}

/** A secret in the SecretSerializer shape: its metadata only, never its payload (the private key above all). */
export function renderSecret(secret: SecretRecord): Record<string, unknown> {
  return {
    algorithm: null,
    bit_length: null,
    content_types: { default: 'application/octet-stream' },
    created: secretDate(secret.created_at),
    expiration: secret.expiration === null ? null : secretDate(secret.expiration),
    id: secret.id,
    mode: null,
    name: secret.name,
    secret_type: secret.secret_type,
    status: 'ACTIVE',
  };
}
