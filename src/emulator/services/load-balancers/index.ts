import { z } from 'zod';
import { isIpAddress, parseNetwork } from '../../cidr.js';
import { CLOUD_PRODUCT, CLOUD_NAME_PATTERN, placeIn, placementFixture } from '../../cloud-common.js';
import type { WorldDefaults } from '../../core-state.js';
import { datetime, fixtureDate, fixtureTags, int, listSection, nextTaskError, positiveInt, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService, type SectionsOf } from '../../service.js';
import { balancerRoutes } from './balancers.js';
import { onBalancer } from './common.js';
import { l7Routes } from './l7.js';
import { balancerTasks, secretTasks } from './lb-tasks.js';
import { listeners } from './listeners.js';
import {
  CONNECTIVITIES,
  DEFAULT_CONNECTION_LIMIT,
  HTTP_METHODS,
  IP_FAMILIES,
  L7_ACTIONS,
  L7_COMPARE_TYPES,
  L7_RULE_TYPES,
  LB_ALGORITHMS,
  LISTENER_PROTOCOLS,
  LISTENER_TIMEOUT_DEFAULTS,
  MONITOR_TYPES,
  OPERATING_STATUSES,
  PERSISTENCE_TYPES,
  POOL_PROTOCOLS,
  PROVISIONING_STATUSES,
  REDIRECT_CODES,
  SECRET_TYPES,
  type HealthMonitorRecord,
  type L7PolicyRecord,
  type LbFlavorRecord,
  type ListenerRecord,
  type LoadBalancerRecord,
  type LoadBalancerSlice,
  type PoolRecord,
} from './model.js';
import { monitorDefaults, poolRoutes } from './pools.js';
import { secrets } from './secrets.js';

export type { LoadBalancerSlice } from './model.js';

/** The flavors of a region without an `lb_flavors` section (Gcore's lb1-<vCPUs>-<RAM GiB> names). */
const DEFAULT_FLAVORS: LbFlavorRecord[] = [
  [1, 2],
  [2, 4],
  [4, 8],
  [8, 16],
].map(([vcpus, gib]) => ({ flavor_id: `lb1-${vcpus}-${gib}`, flavor_name: `lb1-${vcpus}-${gib}`, vcpus: vcpus!, ram: gib! * 1024 }));

const port = int.min(1).max(65535);
const ipAddress = z.string().refine(isIpAddress, 'must be an IPv4 or IPv6 address');
const cidr = z.string().refine((s) => !('error' in parseNetwork(s)), 'must be a network in CIDR notation, e.g. 10.0.0.0/8');
const resourceName = z.string().regex(CLOUD_NAME_PATTERN, 'must be 3–63 characters of the platform name pattern');
const timeoutMs = int.min(0).max(86_400_000).nullable();
const provisioning = z.enum(PROVISIONING_STATUSES).default('ACTIVE');

const memberFixture = z.strictObject({
  id: uuid.optional(),
  address: ipAddress,
  protocol_port: port,
  weight: int.min(1).max(256).default(1),
  admin_state_up: z.boolean().default(true),
  backup: z.boolean().default(false),
  subnet_id: uuid.nullable().default(null),
  instance_id: uuid.nullable().default(null),
  monitor_address: ipAddress.nullable().default(null),
  monitor_port: port.nullable().default(null),
  provisioning_status: provisioning,
  /** Pins the member's operating status (ERROR, DEGRADED, ...); absent: derived. */
  operating_status: z.enum(OPERATING_STATUSES).nullable().default(null),
});

const monitorFixture = z.strictObject({
  id: uuid.optional(),
  type: z.enum(MONITOR_TYPES),
  delay: positiveInt,
  timeout: int.min(0),
  max_retries: int.min(1).max(10),
  max_retries_down: int.min(1).max(10).default(3),
  http_method: z.enum(HTTP_METHODS).nullable().default(null),
  url_path: z.string().nullable().default(null),
  expected_codes: z.string().nullable().default(null),
  http_version: z.enum(['1.0', '1.1']).nullable().default(null),
  domain_name: z.string().nullable().default(null),
  admin_state_up: z.boolean().default(true),
});

const poolFixture = z.strictObject({
  id: uuid.optional(),
  name: resourceName,
  protocol: z.enum(POOL_PROTOCOLS),
  lb_algorithm: z.enum(LB_ALGORITHMS).default('ROUND_ROBIN'),
  admin_state_up: z.boolean().default(true),
  session_persistence: z
    .strictObject({
      type: z.enum(PERSISTENCE_TYPES),
      cookie_name: z.string().nullable().default(null),
      persistence_granularity: z.string().nullable().default(null),
      persistence_timeout: int.nullable().default(null),
    })
    .nullable()
    .default(null),
  timeout_client_data: timeoutMs.default(null),
  timeout_member_connect: timeoutMs.default(null),
  timeout_member_data: timeoutMs.default(null),
  secret_id: uuid.nullable().default(null),
  ca_secret_id: uuid.nullable().default(null),
  crl_secret_id: uuid.nullable().default(null),
  members: z.array(memberFixture).default([]),
  healthmonitor: monitorFixture.nullable().default(null),
  provisioning_status: provisioning,
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
});

const ruleFixture = z.strictObject({
  id: uuid.optional(),
  type: z.enum(L7_RULE_TYPES),
  compare_type: z.enum(L7_COMPARE_TYPES),
  key: z.string().nullable().default(null),
  value: z.string().min(1).max(255),
  invert: z.boolean().default(false),
  tags: z.array(z.string()).default([]),
});

const policyFixture = z.strictObject({
  id: uuid.optional(),
  name: z.string().default(''),
  action: z.enum(L7_ACTIONS),
  redirect_url: z.string().nullable().default(null),
  redirect_prefix: z.string().nullable().default(null),
  /** A pool of the same balancer (by id). */
  redirect_pool_id: uuid.nullable().default(null),
  redirect_http_code: z
    // z.union needs a tuple type; the mapped array is that tuple of the codes' literals.
    .union(REDIRECT_CODES.map((c) => z.literal(c)) as unknown as [z.ZodLiteral<301>, z.ZodLiteral<302>])
    .nullable()
    .default(null),
  tags: z.array(z.string()).default([]),
  rules: z.array(ruleFixture).default([]),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
});

const listenerFixture = z.strictObject({
  id: uuid.optional(),
  name: resourceName,
  protocol: z.enum(LISTENER_PROTOCOLS),
  protocol_port: port,
  admin_state_up: z.boolean().default(true),
  allowed_cidrs: z.array(cidr).nullable().default(null),
  connection_limit: int.min(1).max(1_000_000).default(DEFAULT_CONNECTION_LIMIT),
  insert_x_forwarded: z.boolean().default(false),
  secret_id: uuid.nullable().default(null),
  sni_secret_id: z.array(uuid).default([]),
  timeout_client_data: timeoutMs.default(LISTENER_TIMEOUT_DEFAULTS.timeout_client_data),
  timeout_member_connect: timeoutMs.default(LISTENER_TIMEOUT_DEFAULTS.timeout_member_connect),
  timeout_member_data: timeoutMs.default(LISTENER_TIMEOUT_DEFAULTS.timeout_member_data),
  user_list: z.array(z.strictObject({ username: z.string().min(1).max(32), encrypted_password: z.string().max(128) })).default([]),
  /** The listener's pool, if it has one. */
  pool: poolFixture.nullable().default(null),
  l7_policies: z.array(policyFixture).default([]),
  provisioning_status: provisioning,
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
});

const loggingFixture = z.strictObject({
  enabled: z.boolean().default(false),
  destination_region_id: int.nullable().default(null),
  topic_name: z.string().nullable().default(null),
  retention_policy: z
    .strictObject({ period: int.min(1).max(1825).nullable() })
    .nullable()
    .default(null),
});

const balancerFixture = z
  .strictObject({
    id: uuid,
    ...placementFixture,
    name: resourceName,
    /** A flavor of `lb_flavors` (one the catalogue lacks is derived from its lb1-<vCPUs>-<RAM GiB> name). */
    flavor: z.string().min(1).default('lb1-1-2'),
    vip_network_id: uuid.nullable().default(null),
    vip_subnet_id: uuid.nullable().default(null),
    vip_address: ipAddress.nullable().default(null),
    /** The amphora's address on the VIP subnet (shown in `vrrp_ips` with `vip_subnet_id`). */
    vrrp_address: ipAddress.nullable().default(null),
    /** Default: derived from the id. A floating IP whose `port_id` is this port is the balancer's. */
    vip_port_id: uuid.optional(),
    vip_ip_family: z.enum(IP_FAMILIES).nullable().default('ipv4'),
    /** Null: the answer's `logging` is null; absent: logging off. */
    logging: loggingFixture.nullable().optional(),
    preferred_connectivity: z.enum(CONNECTIVITIES).default('L2'),
    admin_state_up: z.boolean().default(true),
    provisioning_status: provisioning,
    /** Pins the balancer's operating status; absent: derived. */
    operating_status: z.enum(OPERATING_STATUSES).nullable().default(null),
    tags: tagMap.default({}),
    read_only_tags: tagMap.default({}),
    listeners: z.array(listenerFixture).default([]),
    /** Pools on the balancer without a listener. */
    pools: z.array(poolFixture).default([]),
    creator_task_id: uuid.nullable().default(null),
    created_at: datetime.optional(),
    updated_at: datetime.nullable().optional(),
    next_task_error: nextTaskError,
  })
  .superRefine((lb, issue) => {
    const poolIds = [...lb.listeners.flatMap((l) => (l.pool?.id ? [l.pool.id] : [])), ...lb.pools.flatMap((p) => (p.id ? [p.id] : []))];
    lb.listeners.forEach((l, i) =>
      l.l7_policies.forEach((p, j) => {
        if (p.redirect_pool_id !== null && !poolIds.includes(p.redirect_pool_id))
          issue.addIssue({ code: 'custom', path: ['listeners', i, 'l7_policies', j, 'redirect_pool_id'], message: 'must be the id of a pool of this load balancer' });
      }),
    );
  });

const secretFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1).max(255),
  secret_type: z.enum(SECRET_TYPES).default('certificate'),
  expiration: datetime.nullable().default(null),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const flavorFixture = z.strictObject({ flavor_id: z.string().min(1), flavor_name: z.string().min(1).optional(), vcpus: positiveInt, ram: positiveInt });

const sections = {
  lb_flavors: listSection(flavorFixture),
  load_balancers: listSection(balancerFixture),
  secrets: listSection(secretFixture),
};

type Fixtures = SectionsOf<typeof sections>;
type BalancerFixture = Fixtures['load_balancers'][number];
type PoolFixture = z.output<typeof poolFixture>;

/** A flavor named lb1-<vCPUs>-<RAM GiB> (or 1 vCPU, 2 GiB when the name says nothing). */
function deriveFlavor(name: string): LbFlavorRecord {
  const m = /-(\d+)-(\d+)$/.exec(name);
  const [vcpus, gib] = m ? [Number(m[1]), Number(m[2])] : [1, 2];
  return { flavor_id: name, flavor_name: name, vcpus, ram: gib * 1024 };
}

/** The HTTP defaults a monitor of an HTTP type gets (GET, `/`, 200, 1.0), as a create gives them. */
function loadMonitor(x: z.output<typeof monitorFixture>, poolId: string): HealthMonitorRecord {
  const defaults = monitorDefaults(x.type);
  return {
    ...x,
    id: x.id ?? stableUuid(`${poolId}/healthmonitor`),
    http_method: x.http_method ?? defaults.http_method,
    url_path: x.url_path ?? defaults.url_path,
    expected_codes: x.expected_codes ?? defaults.expected_codes,
    http_version: x.http_version ?? defaults.http_version,
    provisioning_status: 'ACTIVE',
  };
}

/** A fixture pool on its balancer (and listener). */
function loadPool(x: PoolFixture, id: string, lb: LoadBalancerRecord, listenerId: string | null): PoolRecord {
  const { members, healthmonitor, id: _id, created_at, creator_task_id, ...fields } = x;
  return {
    ...fields,
    id,
    ...onBalancer(lb),
    listener_id: listenerId,
    members: members.map((m, i) => ({ ...m, id: m.id ?? stableUuid(`${id}/member/${i}`) })),
    healthmonitor: healthmonitor === null ? null : loadMonitor(healthmonitor, id),
    creator_task_id: creator_task_id ?? stableUuid(`creator-task/${id}`),
    created_at: fixtureDate(created_at, lb.created_at),
  };
}

/** Puts a fixture balancer, its listeners (their pools and L7 policies) and its other pools in the slice. */
function loadBalancer(slice: LoadBalancerSlice, x: BalancerFixture, world: WorldDefaults): void {
  const created = fixtureDate(x.created_at);
  const lb: LoadBalancerRecord = {
    id: x.id,
    ...placeIn(world, x),
    name: x.name,
    flavor: x.flavor,
    vip_network_id: x.vip_network_id,
    vip_subnet_id: x.vip_subnet_id,
    vip_address: x.vip_address,
    vrrp_address: x.vrrp_address,
    vip_port_id: x.vip_port_id ?? stableUuid(`${x.id}/vip-port`),
    vip_ip_family: x.vip_ip_family,
    pending_floating_ip: null,
    logging: x.logging === undefined ? { enabled: false, destination_region_id: null, topic_name: null, retention_policy: null } : x.logging,
    preferred_connectivity: x.preferred_connectivity,
    admin_state_up: x.admin_state_up,
    provisioning_status: x.provisioning_status,
    operating_status: x.operating_status,
    tags: fixtureTags(x.tags, x.read_only_tags),
    task_id: null,
    creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
    created_at: created,
    updated_at: x.updated_at ? fixtureDate(x.updated_at) : null,
    next_task_error: x.next_task_error,
  };
  slice.loadBalancers.set(lb.id, lb);
  if (!slice.lbFlavors.has(lb.flavor)) slice.lbFlavors.set(lb.flavor, deriveFlavor(lb.flavor));
  x.listeners.forEach((l, i) => {
    const { pool, l7_policies, id, created_at, creator_task_id, ...fields } = l;
    const listener: ListenerRecord = {
      ...fields,
      id: id ?? stableUuid(`${lb.id}/listener/${i}`),
      ...onBalancer(lb),
      creator_task_id: creator_task_id ?? stableUuid(`creator-task/${id ?? `${lb.id}/listener/${i}`}`),
      created_at: fixtureDate(created_at, created),
    };
    slice.lbListeners.set(listener.id, listener);
    if (pool !== null) {
      const made = loadPool(pool, pool.id ?? stableUuid(`${lb.id}/pool/${i}`), lb, listener.id);
      slice.lbPools.set(made.id, made);
    }
    l7_policies.forEach((p, j) => {
      const { rules, id: policyId, created_at: policyCreated, creator_task_id: policyCreator, ...policyFields } = p;
      const pid = policyId ?? stableUuid(`${listener.id}/l7policy/${j}`);
      const policy: L7PolicyRecord = {
        ...policyFields,
        id: pid,
        ...onBalancer(lb),
        listener_id: listener.id,
        position: j + 1,
        rules: rules.map((r, k) => ({ ...r, id: r.id ?? stableUuid(`${pid}/rule/${k}`), provisioning_status: 'ACTIVE' })),
        provisioning_status: 'ACTIVE',
        creator_task_id: policyCreator ?? stableUuid(`creator-task/${pid}`),
        created_at: fixtureDate(policyCreated, created),
      };
      slice.lbL7Policies.set(pid, policy);
    });
  });
  x.pools.forEach((p, i) => {
    const made = loadPool(p, p.id ?? stableUuid(`${lb.id}/pool/lb-${i}`), lb, null);
    slice.lbPools.set(made.id, made);
  });
}

/**
 * Cloud load balancers and what hangs off them, in the vendor's shapes: balancers (v1 list, get,
 * create, delete; v2 PATCH; resize), listeners (v1; v2 PATCH), pools with their members and health
 * monitor (v1; v2 PATCH; member and monitor routes), L7 policies and rules, secrets (v2 create, v1
 * list, get, delete) and the load balancer flavors. Every write to a balancer or to one of its
 * children is a task on the balancer, which refuses another write (409) while one runs.
 * Fixtures: `lb_flavors`, `load_balancers` (listeners, pools, members, monitors and L7 policies
 * nested), `secrets`.
 */
export const loadBalancersService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: sections,
  fixtureIds: { lb_flavors: (x) => x.flavor_id, load_balancers: (x) => x.id, secrets: (x) => x.id },
  createState: (): LoadBalancerSlice => ({
    loadBalancers: new Map(),
    lbListeners: new Map(),
    lbPools: new Map(),
    lbL7Policies: new Map(),
    secrets: new Map(),
    lbFlavors: new Map(),
  }),
  load(slice, { lb_flavors, load_balancers, secrets: secretItems }, world) {
    for (const map of [slice.loadBalancers, slice.lbListeners, slice.lbPools, slice.lbL7Policies, slice.secrets, slice.lbFlavors]) map.clear();
    for (const f of lb_flavors.length > 0 ? lb_flavors : DEFAULT_FLAVORS) slice.lbFlavors.set(f.flavor_id, { ...f, flavor_name: f.flavor_name ?? f.flavor_id });
    for (const x of load_balancers) loadBalancer(slice, x, world);
    for (const x of secretItems) {
      slice.secrets.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        secret_type: x.secret_type,
        expiration: x.expiration === null ? null : fixtureDate(x.expiration),
        payload: null,
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        created_at: fixtureDate(x.created_at),
        next_task_error: x.next_task_error,
      });
    }
  },
  dump: (state) => ({
    lb_flavors: [...state.lbFlavors.values()],
    load_balancers: [...state.loadBalancers.values()],
    lb_listeners: [...state.lbListeners.values()],
    lb_pools: [...state.lbPools.values()],
    lb_l7_policies: [...state.lbL7Policies.values()],
    // The state route is plain output too: a secret's payload is shown held, never its text.
    secrets: [...state.secrets.values()].map((s) => ({ ...s, payload: s.payload === null ? null : '<held, never answered>' })),
  }),
  routes: [...balancerRoutes, ...listeners.routes, ...poolRoutes, ...l7Routes, ...secrets.routes],
  mutationKinds: ['load_balancer', 'lb_listener', 'lb_pool', 'lb_member', 'lb_healthmonitor', 'lb_l7policy', 'lb_l7rule', 'secret'],
  taskTargets: [balancerTasks, secretTasks],
});
