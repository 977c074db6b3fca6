import { contains, parseNetwork } from '../../cidr.js';
import { booleanQuery, CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPages, cloudPlacement, placedIn, type CloudScope } from '../../cloud-common.js';
import { defineCollection, tasksReply, type Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN } from '../../format.js';
import { emptyReply, fail, type Reply } from '../../reply.js';
import type { ServiceRoute } from '../../router.js';
import {
  assertBalancerFree,
  assertChildFree,
  assertPoolFitsListener,
  balancerNamed,
  deleteChild,
  newId,
  onBalancer,
  secretNamed,
  updateChild,
  type LbCtx,
  type LbState,
  type LbTask,
  type LbTaskState,
} from './common.js';
import { address as ipAddress, at, bad, boolean, choice, integer, list, name, need, objectOf, optional, orNull, same, text, timeout, uuid, uuidQuery } from './fields.js';
import {
  HTTP_METHODS,
  LB_ALGORITHMS,
  MONITOR_TYPES,
  PERSISTENCE_TYPES,
  POOL_PROTOCOLS,
  type HealthMonitorRecord,
  type LoadBalancerRecord,
  type MemberRecord,
  type PoolProtocol,
  type PoolRecord,
  type SessionPersistence,
} from './model.js';
import { renderPool } from './render.js';

/** A member of a request (CreateLbPoolMemberSerializer), its subnet resolved. */
export type MemberDraft = Omit<MemberRecord, 'id' | 'provisioning_status' | 'operating_status'>;

/** A health monitor of a request, its defaults filled in. */
export type MonitorDraft = Omit<HealthMonitorRecord, 'id' | 'provisioning_status'>;

/** A pool of a create request (BaseCreateLbPoolSerializer), its members and monitor read. */
export type PoolDraft = Pick<
  PoolRecord,
  | 'name'
  | 'protocol'
  | 'lb_algorithm'
  | 'session_persistence'
  | 'timeout_client_data'
  | 'timeout_member_connect'
  | 'timeout_member_data'
  | 'secret_id'
  | 'ca_secret_id'
  | 'crl_secret_id'
> & { members: MemberDraft[]; healthmonitor: MonitorDraft | null };

/** The fields of BaseCreateLbPoolSerializer (a pool inside a listener of a balancer's create). */
export const POOL_FIELDS = [
  'ca_secret_id',
  'crl_secret_id',
  'healthmonitor',
  'lb_algorithm',
  'members',
  'name',
  'protocol',
  'secret_id',
  'session_persistence',
  'timeout_client_data',
  'timeout_member_connect',
  'timeout_member_data',
] as const;

const MEMBER_FIELDS = ['address', 'admin_state_up', 'backup', 'instance_id', 'monitor_address', 'monitor_port', 'protocol_port', 'subnet_id', 'weight'];
const MONITOR_FIELDS = [
  'admin_state_up',
  'delay',
  'domain_name',
  'expected_codes',
  'http_method',
  'http_version',
  'max_retries',
  'max_retries_down',
  'timeout',
  'type',
  'url_path',
];
const HTTP_ONLY = ['domain_name', 'expected_codes', 'http_method', 'http_version', 'url_path'] as const;
/** Expected codes: a code or a range, comma-separated (200,202,300-302). */
const EXPECTED_CODES = /^\d{3}(-\d{3})?(,\d{3}(-\d{3})?)*$/;
const URL_PATH = /^\/([^/?#%][^?#%]*)?$/;
const DOMAIN_NAME = /^[A-Za-z0-9._-]{1,253}$/;
const COOKIE_NAME = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/;
/** The monitor types a UDP pool takes (Octavia's). */
const UDP_MONITORS = ['UDP-CONNECT', 'HTTP', 'TCP'];

/**
 * A member of a request, checked in the place: a `subnet_id` must be a subnet of the place
 * holding the address (404, 400), an `instance_id` an instance of the place (404). Its subnet is
 * the named one, else the instance's port holding the address, else none.
 */
export function readMember(ctx: LbCtx, value: unknown, field: string, scope: CloudScope): MemberDraft {
  const body = objectOf(ctx, value, field, MEMBER_FIELDS);
  const address = ipAddress(ctx, need(ctx, body, 'address', field), at(field, 'address'));
  const subnetId = optional(body, 'subnet_id', null, (v) => orNull(v, (s) => uuid(ctx, s, at(field, 'subnet_id'))));
  const instanceId = optional(body, 'instance_id', null, (v) => orNull(v, (s) => uuid(ctx, s, at(field, 'instance_id'))));
  const draft: MemberDraft = {
    address,
    protocol_port: integer(ctx, need(ctx, body, 'protocol_port', field), at(field, 'protocol_port'), { min: 1, max: 65535 }),
    weight: optional(body, 'weight', 1, (v) => integer(ctx, v, at(field, 'weight'), { above: 0, max: 256 })),
    admin_state_up: optional(body, 'admin_state_up', true, (v) => boolean(ctx, v, at(field, 'admin_state_up'))),
    backup: optional(body, 'backup', false, (v) => boolean(ctx, v, at(field, 'backup'))),
    subnet_id: subnetId,
    instance_id: instanceId,
    monitor_address: optional(body, 'monitor_address', null, (v) => orNull(v, (a) => ipAddress(ctx, a, at(field, 'monitor_address')))),
    monitor_port: optional(body, 'monitor_port', null, (v) => orNull(v, (p) => integer(ctx, p, at(field, 'monitor_port'), { min: 1, max: 65535 }))),
  };
  if (subnetId !== null) {
    const subnet = ctx.state.subnets.get(subnetId);
    if (subnet === undefined || !placedIn(subnet, scope)) fail(cloudError(404, `Subnet ${subnetId} not found`, ctx.requestId));
    const cidr = parseNetwork(subnet.cidr);
    if ('error' in cidr || !contains(cidr, address)) bad(ctx, `${at(field, 'address')}: ${address} is not in subnet ${subnetId} (${subnet.cidr})`);
  }
  if (instanceId !== null) {
    const vm = ctx.state.instances.get(instanceId);
    if (vm === undefined || !placedIn(vm, scope)) fail(cloudError(404, `Instance ${instanceId} not found`, ctx.requestId));
    if (subnetId === null) draft.subnet_id = vm.ports.find((p) => p.ip_address === address)?.subnet_id ?? null;
  }
  return draft;
}

/** The members of a request; two with one address and port are refused (409), as the platform refuses a duplicate member. */
function readMembers(ctx: LbCtx, value: unknown, field: string, scope: CloudScope): MemberDraft[] {
  const members = list(ctx, value, field).map((m, i) => readMember(ctx, m, at(field, i), scope));
  members.forEach((m, i) => {
    if (members.findIndex((o) => o.address === m.address && o.protocol_port === m.protocol_port) !== i) duplicateMember(ctx, m);
  });
  return members;
}

function duplicateMember(ctx: LbCtx, m: Pick<MemberDraft, 'address' | 'protocol_port'>): never {
  return fail(cloudError(409, `Another member on this pool is already using ip address ${m.address} on protocol_port ${m.protocol_port}`, ctx.requestId));
}

/**
 * A health monitor of a request (CreateLbHealthMonitorSerializer; with `current`, the PATCH's
 * PatchLbHealthMonitorSerializer, whose type may be left out and cannot change). The HTTP fields
 * are only for HTTP and HTTPS monitors (defaults GET, `/`, 200, 1.0), the timeout must be less
 * than the delay, `domain_name` needs HTTP 1.1, UDP-CONNECT is for UDP pools and UDP pools take
 * UDP-CONNECT, HTTP or TCP monitors.
 */
export function readMonitor(ctx: LbCtx, value: unknown, field: string, protocol: PoolProtocol, current: HealthMonitorRecord | null = null, patch = false): MonitorDraft {
  const body = objectOf(ctx, value, field, MONITOR_FIELDS);
  const given = body.type === undefined || (patch && body.type === null) ? undefined : choice(ctx, body.type, at(field, 'type'), MONITOR_TYPES);
  if (given === undefined && (!patch || current === null)) need(ctx, body, 'type', field);
  if (patch && current !== null && given !== undefined && given !== current.type)
    bad(ctx, `${at(field, 'type')}: a health monitor's type cannot be changed (it is ${current.type})`);
  const type = given ?? current!.type;
  const http = type === 'HTTP' || type === 'HTTPS';
  if (!http)
    for (const key of HTTP_ONLY)
      if (body[key] !== undefined && body[key] !== null) bad(ctx, `${at(field, key)}: can only be used with an HTTP or HTTPS health monitor, not ${type}`);
  const delay = integer(ctx, need(ctx, body, 'delay', field), at(field, 'delay'), { min: 1, max: 2_147_483_647 });
  const wait = integer(ctx, need(ctx, body, 'timeout', field), at(field, 'timeout'), { min: 0, max: 2_147_483 });
  if (wait >= delay) bad(ctx, `${at(field, 'timeout')}: must be less than the delay (${delay})`);
  if (type === 'UDP-CONNECT' && protocol !== 'UDP') bad(ctx, `${at(field, 'type')}: a UDP-CONNECT health monitor is for UDP pools, not ${protocol}`);
  if (protocol === 'UDP' && !UDP_MONITORS.includes(type)) bad(ctx, `${at(field, 'type')}: a UDP pool takes a ${UDP_MONITORS.join(', ')} health monitor, not ${type}`);
  const urlPath = optional(body, 'url_path', null, (v) => orNull(v, (p) => text(ctx, p, at(field, 'url_path'), { pattern: URL_PATH })));
  if (urlPath?.includes('//')) bad(ctx, `${at(field, 'url_path')}: consecutive slashes are not allowed`);
  const defaults = monitorDefaults(type);
  const draft: MonitorDraft = {
    type,
    delay,
    timeout: wait,
    max_retries: integer(ctx, need(ctx, body, 'max_retries', field), at(field, 'max_retries'), { min: 1, max: 10 }),
    max_retries_down: optional(body, 'max_retries_down', 3, (v) => integer(ctx, v, at(field, 'max_retries_down'), { min: 1, max: 10 })),
    http_method: optional(body, 'http_method', null, (v) => orNull(v, (m) => choice(ctx, m, at(field, 'http_method'), HTTP_METHODS))) ?? defaults.http_method,
    url_path: urlPath ?? defaults.url_path,
    expected_codes:
      optional(body, 'expected_codes', null, (v) => orNull(v, (c) => text(ctx, c, at(field, 'expected_codes'), { pattern: EXPECTED_CODES }))) ?? defaults.expected_codes,
    http_version: optional(body, 'http_version', null, (v) => orNull(v, (h) => choice(ctx, h, at(field, 'http_version'), ['1.0', '1.1'] as const))) ?? defaults.http_version,
    domain_name: optional(body, 'domain_name', null, (v) => orNull(v, (d) => text(ctx, d, at(field, 'domain_name'), { pattern: DOMAIN_NAME }))),
    admin_state_up: optional(body, 'admin_state_up', true, (v) => boolean(ctx, v, at(field, 'admin_state_up'))),
  };
  if (draft.domain_name !== null && draft.http_version !== '1.1') bad(ctx, `${at(field, 'domain_name')}: a domain name needs http_version 1.1`);
  return draft;
}

/**
 * A pool's session persistence (MutateLbSessionPersistence): APP_COOKIE needs `cookie_name`, the
 * other types take none; `persistence_timeout` and `persistence_granularity` are for UDP pools.
 */
function readPersistence(ctx: LbCtx, value: unknown, field: string, protocol: PoolProtocol): SessionPersistence {
  const body = objectOf(ctx, value, field, ['cookie_name', 'persistence_granularity', 'persistence_timeout', 'type']);
  const persistence: SessionPersistence = {
    type: choice(ctx, need(ctx, body, 'type', field), at(field, 'type'), PERSISTENCE_TYPES),
    cookie_name: optional(body, 'cookie_name', null, (v) => orNull(v, (c) => text(ctx, c, at(field, 'cookie_name'), { pattern: COOKIE_NAME }))),
    persistence_granularity: optional(body, 'persistence_granularity', null, (v) => orNull(v, (g) => text(ctx, g, at(field, 'persistence_granularity')))),
    persistence_timeout: optional(body, 'persistence_timeout', null, (v) => orNull(v, (t) => integer(ctx, t, at(field, 'persistence_timeout')))),
  };
  if (persistence.type === 'APP_COOKIE' && persistence.cookie_name === null) bad(ctx, `${at(field, 'cookie_name')}: APP_COOKIE session persistence needs a cookie name`);
  if (persistence.type !== 'APP_COOKIE' && persistence.cookie_name !== null) bad(ctx, `${at(field, 'cookie_name')}: only APP_COOKIE session persistence takes a cookie name`);
  if (protocol !== 'UDP' && (persistence.persistence_timeout !== null || persistence.persistence_granularity !== null))
    bad(ctx, `${field}: persistence_timeout and persistence_granularity are for UDP pools only`);
  return persistence;
}

/** A secret field of a pool: a secret of the place, or null. */
function secretField(ctx: LbCtx, body: Record<string, unknown>, key: string, prefix: string, scope: CloudScope): string | null {
  return optional(body, key, null, (v) => orNull(v, (s) => secretNamed(ctx, s, at(prefix, key), scope).id));
}

/** A pool of a create request (BaseCreateLbPoolSerializer's fields), its members, monitor and secrets checked in the place. */
export function readPool(ctx: LbCtx, body: Record<string, unknown>, prefix: string, scope: CloudScope): PoolDraft {
  const protocol = choice(ctx, need(ctx, body, 'protocol', prefix), at(prefix, 'protocol'), POOL_PROTOCOLS);
  return {
    name: name(ctx, need(ctx, body, 'name', prefix), at(prefix, 'name')),
    protocol,
    lb_algorithm: choice(ctx, need(ctx, body, 'lb_algorithm', prefix), at(prefix, 'lb_algorithm'), LB_ALGORITHMS),
    session_persistence: optional(body, 'session_persistence', null, (v) => orNull(v, (s) => readPersistence(ctx, s, at(prefix, 'session_persistence'), protocol))),
    timeout_client_data: optional(body, 'timeout_client_data', null, (v) => timeout(ctx, v, at(prefix, 'timeout_client_data'))),
    timeout_member_connect: optional(body, 'timeout_member_connect', null, (v) => timeout(ctx, v, at(prefix, 'timeout_member_connect'))),
    timeout_member_data: optional(body, 'timeout_member_data', null, (v) => timeout(ctx, v, at(prefix, 'timeout_member_data'))),
    secret_id: secretField(ctx, body, 'secret_id', prefix, scope),
    ca_secret_id: secretField(ctx, body, 'ca_secret_id', prefix, scope),
    crl_secret_id: secretField(ctx, body, 'crl_secret_id', prefix, scope),
    members: optional(body, 'members', [] as MemberDraft[], (v) => readMembers(ctx, v, at(prefix, 'members'), scope)),
    healthmonitor: optional(body, 'healthmonitor', null, (v) => orNull(v, (m) => readMonitor(ctx, m, at(prefix, 'healthmonitor'), protocol))),
  };
}

/** A member record of a draft. */
function newMember(draft: MemberDraft, id: string, status: MemberRecord['provisioning_status']): MemberRecord {
  return { id, ...draft, provisioning_status: status, operating_status: null };
}

/** The HTTP settings a monitor of `type` gets when a request leaves them out: GET, `/`, 200, HTTP 1.0 for HTTP and HTTPS monitors, none for the others. */
export function monitorDefaults(type: HealthMonitorRecord['type']): Pick<HealthMonitorRecord, 'http_method' | 'url_path' | 'expected_codes' | 'http_version'> {
  const http = type === 'HTTP' || type === 'HTTPS';
  return { http_method: http ? 'GET' : null, url_path: http ? '/' : null, expected_codes: http ? '200' : null, http_version: http ? '1.0' : null };
}

/** A monitor record of a draft. */
function newMonitor(draft: MonitorDraft, id: string, status: HealthMonitorRecord['provisioning_status']): HealthMonitorRecord {
  return { id, ...draft, provisioning_status: status };
}

/** A pool record of a draft, on its balancer (and listener), being created with its members and monitor. */
export function newPool(draft: PoolDraft, id: string, lb: LoadBalancerRecord, listenerId: string | null, now: number): PoolRecord {
  const { members, healthmonitor, ...fields } = draft;
  return {
    id,
    ...onBalancer(lb),
    listener_id: listenerId,
    ...fields,
    admin_state_up: true,
    members: members.map((m, i) => newMember(m, stableUuid(`${id}/member/${i}`), 'PENDING_CREATE')),
    healthmonitor: healthmonitor === null ? null : newMonitor(healthmonitor, stableUuid(`${id}/healthmonitor`), 'PENDING_CREATE'),
    provisioning_status: 'PENDING_CREATE',
    creator_task_id: null,
    created_at: now,
  };
}

/** What a pool create made, for its task's created_resources. */
export function poolResources(pool: PoolRecord): { pools: string[]; members: string[]; healthmonitors: string[] } {
  return { pools: [pool.id], members: pool.members.map((m) => m.id), healthmonitors: pool.healthmonitor ? [pool.healthmonitor.id] : [] };
}

/**
 * POST /cloud/v1/lbpools/{p}/{r} (CreateLbPoolSerializer): on a listener (`listener_id`, whose
 * balancer it joins) or on a balancer alone (`load_balancer_id`); a listener has one pool (409),
 * whose protocol it can serve (400). Made at once, PENDING_CREATE, with its members and monitor,
 * by task create_lbpool on the balancer (409 while the balancer is busy).
 */
function buildPool(ctx: LbCtx, scope: CloudScope): Created<PoolRecord> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', [...POOL_FIELDS, 'listener_id', 'load_balancer_id']);
  const listenerId = optional(body, 'listener_id', null, (v) => orNull(v, (s) => uuid(ctx, s, 'listener_id')));
  const draft = readPool(ctx, body, '', scope);
  let lb: LoadBalancerRecord;
  if (listenerId !== null) {
    const listener = ctx.state.lbListeners.get(listenerId);
    if (listener === undefined || !placedIn(listener, scope)) return fail(cloudError(404, `Listener ${listenerId} not found`, ctx.requestId));
    lb = ctx.state.loadBalancers.get(listener.load_balancer_id)!;
    if (body.load_balancer_id !== undefined && body.load_balancer_id !== null && uuid(ctx, body.load_balancer_id, 'load_balancer_id') !== lb.id)
      bad(ctx, `load_balancer_id: listener ${listenerId} is on load balancer ${lb.id}`);
    assertPoolFitsListener(ctx, listener.protocol, draft.protocol, 'protocol');
    const taken = [...ctx.state.lbPools.values()].find((p) => p.listener_id === listenerId);
    if (taken) fail(cloudError(409, `Listener ${listenerId} already has a pool (${taken.name}, ${taken.id})`, ctx.requestId));
  } else if (body.load_balancer_id !== undefined && body.load_balancer_id !== null) {
    lb = balancerNamed(ctx, body.load_balancer_id, 'load_balancer_id', scope);
  } else {
    return bad(ctx, 'listener_id: a pool needs a listener_id or a load_balancer_id');
  }
  assertBalancerFree(ctx, lb);
  const id = newId(ctx, 'create_lbpool', ctx.state.lbPools, scope);
  const record = newPool(draft, id, lb, listenerId, ctx.now);
  return { record, task: { type: 'create_lbpool', effect: { type: 'create_lbpool', pool_id: id }, data: body, createdResources: poolResources(record) } };
}

/** The member fields a pool update compares and sets on a kept member. */
const MEMBER_SETTINGS = ['weight', 'admin_state_up', 'backup', 'subnet_id', 'instance_id', 'monitor_address', 'monitor_port'] as const;

/** Whether a desired member list differs from a pool's members (as sets by address and port, then their settings). */
function membersDiffer(live: readonly MemberRecord[], desired: readonly MemberDraft[]): boolean {
  if (live.length !== desired.length) return true;
  return desired.some((want) => {
    const have = live.find((m) => m.address === want.address && m.protocol_port === want.protocol_port);
    return have === undefined || MEMBER_SETTINGS.some((k) => have[k] !== want[k]);
  });
}

/** Whether a desired monitor differs from a pool's (null: none). */
function monitorDiffers(live: HealthMonitorRecord | null, desired: MonitorDraft | null): boolean {
  if (live === null || desired === null) return live !== desired;
  return (Object.keys(desired) as (keyof MonitorDraft)[]).some((k) => live[k] !== desired[k]);
}

const POOL_PATCH_FIELDS = [...POOL_FIELDS, 'admin_state_up'];

/** What a pool update (PATCH v2, PatchLbPoolSerializer) changes: its fields, and its member list and monitor when they differ. */
interface PoolChange {
  changes: Partial<PoolRecord>;
  members?: MemberDraft[];
  healthmonitor?: MonitorDraft | null;
}

/**
 * Reads a pool PATCH: simple fields change when they differ; `members` is the new member list
 * (members equal by address and port are kept, with their ids; null is no members),
 * `healthmonitor` the whole monitor (null removes it), `session_persistence` the whole setting
 * (null removes it). A field equal to the pool's is skipped.
 */
function readPoolPatch(ctx: LbCtx, pool: PoolRecord, scope: CloudScope): PoolChange {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', POOL_PATCH_FIELDS);
  const next: Partial<PoolRecord> = {};
  if (body.name !== undefined) next.name = name(ctx, body.name, 'name');
  if (body.lb_algorithm !== undefined) next.lb_algorithm = choice(ctx, body.lb_algorithm, 'lb_algorithm', LB_ALGORITHMS);
  if (body.admin_state_up !== undefined) next.admin_state_up = boolean(ctx, body.admin_state_up, 'admin_state_up');
  if (body.protocol !== undefined) next.protocol = choice(ctx, body.protocol, 'protocol', POOL_PROTOCOLS);
  const protocol = next.protocol ?? pool.protocol;
  const listener = pool.listener_id === null ? undefined : ctx.state.lbListeners.get(pool.listener_id);
  if (listener && next.protocol !== undefined) assertPoolFitsListener(ctx, listener.protocol, protocol, 'protocol');
  if (body.session_persistence !== undefined) next.session_persistence = orNull(body.session_persistence, (v) => readPersistence(ctx, v, 'session_persistence', protocol));
  for (const key of ['timeout_client_data', 'timeout_member_connect', 'timeout_member_data'] as const) if (body[key] !== undefined) next[key] = timeout(ctx, body[key], key);
  for (const key of ['secret_id', 'ca_secret_id', 'crl_secret_id'] as const) if (body[key] !== undefined) next[key] = secretField(ctx, body, key, '', scope);
  const change: PoolChange = { changes: {} };
  for (const [key, value] of Object.entries(next) as [keyof PoolRecord, unknown][]) if (!same(value, pool[key])) (change.changes as Record<string, unknown>)[key] = value;
  if (body.members !== undefined) {
    const members = body.members === null ? [] : readMembers(ctx, body.members, 'members', scope);
    if (membersDiffer(pool.members, members)) change.members = members;
  }
  if (body.healthmonitor !== undefined) {
    const monitor = orNull(body.healthmonitor, (v) => readMonitor(ctx, v, 'healthmonitor', protocol, pool.healthmonitor, true));
    if (monitorDiffers(pool.healthmonitor, monitor)) change.healthmonitor = monitor;
  }
  return change;
}

interface PoolQuery {
  details: boolean;
  listenerId: string | null;
  lbId: string | null;
  name: string | null;
}

/**
 * Pools: the list (`{count, results}`, limit 1..1000, filters `listener_id`, `load_balancer_id`,
 * `name`; members detailed with `details=true`, else their ids), GET (detailed), POST (task
 * create_lbpool), PATCH v2 (task update_lbpool; `{"tasks": []}` when nothing would change) and
 * DELETE (task delete_lbpool, with its members and monitor; L7 policies redirecting to it turn to
 * REJECT). Every write is a task on the balancer, refused with 409 while one runs. The deprecated
 * v1 PATCH is not served (405).
 */
export const pools = defineCollection<LbState, PoolRecord, CloudScope, PoolQuery, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/lbpools/{project_id}/{region_id}',
  idParam: 'pool_id',
  idSyntax: 'uuid',
  noun: 'Pool',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.lbPools,
  inScope: placedIn,
  idOf: (p) => p.id,
  tasks: { kind: 'load_balancer', resourceId: (p) => p.load_balancer_id },
  list: {
    paging: cloudPages(),
    query: (ctx) => ({
      details: booleanQuery(ctx, 'details') ?? false,
      listenerId: uuidQuery(ctx, 'listener_id'),
      lbId: uuidQuery(ctx, 'load_balancer_id'),
      name: ctx.query.get('name'),
    }),
    where: (p, q) => (q.listenerId === null || p.listener_id === q.listenerId) && (q.lbId === null || p.load_balancer_id === q.lbId) && (q.name === null || p.name === q.name),
    render: (p, ctx, q) => renderPool(ctx.state, p, q.details),
  },
  get: (p, ctx) => renderPool(ctx.state, p),
  create: { build: buildPool },
  updates: [
    {
      method: 'PATCH',
      path: '/cloud/v2/lbpools/{project_id}/{region_id}/{pool_id}',
      task: (ctx, pool, scope) => {
        const change = readPoolPatch(ctx, pool, scope);
        const changed = Object.keys(change.changes).length > 0 || change.members !== undefined || change.healthmonitor !== undefined;
        return updateChild(ctx, pool, changed, 'update_lbpool', { pool_id: pool.id, ...change });
      },
    },
  ],
  delete: deleteChild('delete_lbpool', (_ctx, pool) => ({ pool_id: pool.id })),
});

/** Whether any pool has a member with this id. */
function memberIdTaken(state: LbState, id: string): boolean {
  for (const pool of state.lbPools.values()) if (pool.members.some((m) => m.id === id)) return true;
  return false;
}

/** POST .../lbpools/{p}/{r}/{pool_id}/member: the member joins at once, PENDING_CREATE, by task create_lbmember; a second member on one address and port → 409. */
function createMember(ctx: LbCtx): Reply {
  const { record: pool, scope } = pools.locate(ctx);
  const draft = readMember(ctx, cloudObjectBody(ctx), '', scope);
  assertChildFree(ctx, pool);
  if (pool.members.some((m) => m.address === draft.address && m.protocol_port === draft.protocol_port)) duplicateMember(ctx, draft);
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_lbmember').length;
  let id = stableUuid(`created-member/${pool.id}/${n}`);
  while (memberIdTaken(ctx.state, id)) id = stableUuid(`created-member/${pool.id}/${++n}`);
  pool.members.push(newMember(draft, id, 'PENDING_CREATE'));
  const start = { type: 'create_lbmember', effect: { type: 'create_lbmember', pool_id: pool.id, member_id: id }, data: ctx.body, createdResources: { members: [id] } };
  return tasksReply(pools.startTask(ctx, pool, start));
}

/** DELETE .../lbpools/{p}/{r}/{pool_id}/member/{member_id}: task delete_lbmember. */
function deleteMember(ctx: LbCtx): Reply {
  const pool = pools.find(ctx);
  const memberId = ctx.params.member_id ?? '';
  if (!UUID_PATTERN.test(memberId)) bad(ctx, `member_id: Input should be a valid UUID, got "${memberId}"`);
  const member = pool.members.find((m) => m.id === memberId.toLowerCase());
  if (member === undefined) return fail(cloudError(404, `Member ${memberId} not found`, ctx.requestId));
  assertChildFree(ctx, pool);
  member.provisioning_status = 'PENDING_DELETE';
  return tasksReply(pools.startTask(ctx, pool, { type: 'delete_lbmember', effect: { type: 'delete_lbmember', pool_id: pool.id, member_id: member.id }, data: null }));
}

/** POST .../lbpools/{p}/{r}/{pool_id}/healthmonitor: the monitor is made at once, PENDING_CREATE, by task create_lbhealthmonitor; a pool has one (409). */
function createMonitor(ctx: LbCtx): Reply {
  const pool = pools.find(ctx);
  const draft = readMonitor(ctx, cloudObjectBody(ctx), '', pool.protocol);
  assertChildFree(ctx, pool);
  if (pool.healthmonitor !== null) fail(cloudError(409, `Pool ${pool.id} already has a health monitor (${pool.healthmonitor.id})`, ctx.requestId));
  const id = stableUuid(`created-healthmonitor/${pool.id}/${ctx.state.tasks.size}`);
  pool.healthmonitor = newMonitor(draft, id, 'PENDING_CREATE');
  const start = { type: 'create_lbhealthmonitor', effect: { type: 'create_lbhealthmonitor', pool_id: pool.id }, data: ctx.body, createdResources: { healthmonitors: [id] } };
  return tasksReply(pools.startTask(ctx, pool, start));
}

/** DELETE .../lbpools/{p}/{r}/{pool_id}/healthmonitor: 204 at once, as documented (no task); 404 without one, 409 while the balancer is busy. */
function deleteMonitor(ctx: LbCtx): Reply {
  const pool = pools.find(ctx);
  if (pool.healthmonitor === null) fail(cloudError(404, `Pool ${pool.id} has no health monitor`, ctx.requestId));
  assertChildFree(ctx, pool);
  const id = pool.healthmonitor.id;
  pool.healthmonitor = null;
  ctx.state.recordMutation(ctx.now, 'lb_healthmonitor', id, 'delete', { pool_id: pool.id });
  return emptyReply(204);
}

/** Every pool route: the collection's, then the member and health monitor routes. */
export const poolRoutes: ServiceRoute<LbState>[] = [
  ...pools.routes,
  { method: 'POST', pattern: '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/member', handler: createMember },
  { method: 'DELETE', pattern: '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/member/{member_id}', handler: deleteMember },
  { method: 'POST', pattern: '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/healthmonitor', handler: createMonitor },
  { method: 'DELETE', pattern: '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/healthmonitor', handler: deleteMonitor },
];

/** A pool's members against a desired list: those equal by address and port kept (their ids, the desired settings), the others new. */
function replaceMembers(pool: PoolRecord, desired: readonly MemberDraft[], seed: string): MemberRecord[] {
  return desired.map((want, i) => {
    const kept = pool.members.find((m) => m.address === want.address && m.protocol_port === want.protocol_port);
    return kept ? { ...kept, ...want, provisioning_status: 'ACTIVE' } : newMember(want, stableUuid(`${seed}/member/${i}`), 'ACTIVE');
  });
}

/** Marks a pool, its members and its monitor ACTIVE. */
function activate(pool: PoolRecord): void {
  pool.provisioning_status = 'ACTIVE';
  for (const m of pool.members) m.provisioning_status = 'ACTIVE';
  if (pool.healthmonitor) pool.healthmonitor.provisioning_status = 'ACTIVE';
}

/** Removes a pool; L7 policies that redirect to it turn to REJECT (as Octavia does). */
export function removePool(state: LbTaskState, pool: PoolRecord): void {
  for (const policy of state.lbL7Policies.values()) {
    if (policy.redirect_pool_id !== pool.id) continue;
    policy.action = 'REJECT';
    policy.redirect_pool_id = null;
  }
  state.lbPools.delete(pool.id);
}

/** `address:port` of members, as the mutation log shows a pool's members. */
const endpoints = (members: readonly { address: string; protocol_port: number }[]): string[] => members.map((m) => `${m.address}:${m.protocol_port}`);

/** Ends a pool, member or monitor task on its balancer: applies it when `ok` (and logs it), else puts things back (a failed create removes what it made). */
export function finishPoolTask(state: LbTaskState, task: LbTask, ok: boolean): void {
  const effect = task.effect;
  const pool = state.lbPools.get(effect.pool_id as string);
  if (pool === undefined) return;
  const log = (kind: 'lb_pool' | 'lb_member' | 'lb_healthmonitor', id: string, after: Record<string, unknown> = {}): void =>
    state.recordMutation(task.finish_at, kind, id, effect.type, after, task.id);
  switch (effect.type) {
    case 'create_lbpool':
      if (!ok) return void state.lbPools.delete(pool.id);
      activate(pool);
      return log('lb_pool', pool.id, { load_balancer_id: pool.load_balancer_id, listener_id: pool.listener_id, name: pool.name, members: endpoints(pool.members) });
    case 'update_lbpool': {
      pool.provisioning_status = 'ACTIVE';
      if (!ok) return;
      // The task's effect is the PoolChange this collection queued with it (the task store keeps it untyped).
      const change = effect as unknown as PoolChange;
      Object.assign(pool, change.changes);
      const after: Record<string, unknown> = { ...change.changes };
      if (change.members !== undefined) {
        pool.members = replaceMembers(pool, change.members, task.id);
        after.members = endpoints(pool.members);
      }
      if (change.healthmonitor !== undefined) {
        const monitor = change.healthmonitor;
        pool.healthmonitor = monitor === null ? null : newMonitor(monitor, pool.healthmonitor?.id ?? stableUuid(`${task.id}/healthmonitor`), 'ACTIVE');
        after.healthmonitor = monitor === null ? null : monitor.type;
      }
      return log('lb_pool', pool.id, after);
    }
    case 'delete_lbpool':
      pool.provisioning_status = 'ACTIVE';
      if (!ok) return;
      removePool(state, pool);
      return log('lb_pool', pool.id);
    case 'create_lbmember': {
      const member = pool.members.find((m) => m.id === effect.member_id);
      if (member === undefined) return;
      if (!ok) return void (pool.members = pool.members.filter((m) => m !== member));
      member.provisioning_status = 'ACTIVE';
      return log('lb_member', member.id, { pool_id: pool.id, address: member.address, protocol_port: member.protocol_port });
    }
    case 'delete_lbmember': {
      const member = pool.members.find((m) => m.id === effect.member_id);
      if (member === undefined) return;
      member.provisioning_status = 'ACTIVE';
      if (!ok) return;
      pool.members = pool.members.filter((m) => m !== member);
      return log('lb_member', member.id, { pool_id: pool.id });
    }
    case 'create_lbhealthmonitor': {
      const monitor = pool.healthmonitor;
      if (monitor === null) return;
      if (!ok) return void (pool.healthmonitor = null);
      monitor.provisioning_status = 'ACTIVE';
      return log('lb_healthmonitor', monitor.id, { pool_id: pool.id, type: monitor.type });
    }
  }
}
