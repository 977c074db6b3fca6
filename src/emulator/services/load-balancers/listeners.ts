import { booleanQuery, CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPages, cloudPlacement, placedIn, type CloudScope } from '../../cloud-common.js';
import { defineCollection, type Created } from '../../collection.js';
import { fail } from '../../reply.js';
import {
  assertBalancerFree,
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
import { at, bad, boolean, choice, integer, list, name, need, network, objectOf, optional, orNull, same, text, timeout, uuid, uuidQuery } from './fields.js';
import {
  DEFAULT_CONNECTION_LIMIT,
  LISTENER_PROTOCOLS,
  LISTENER_TIMEOUT_DEFAULTS,
  type ListenerProtocol,
  type ListenerRecord,
  type ListenerUser,
  type LoadBalancerRecord,
} from './model.js';
import { removePool } from './pools.js';
import { indexState, renderListener, type LbIndex } from './render.js';

/** The fields of a listener a create sets (CreateListenerSerializer without `pools`). */
export type ListenerDraft = Pick<
  ListenerRecord,
  | 'name'
  | 'protocol'
  | 'protocol_port'
  | 'allowed_cidrs'
  | 'connection_limit'
  | 'insert_x_forwarded'
  | 'secret_id'
  | 'sni_secret_id'
  | 'timeout_client_data'
  | 'timeout_member_connect'
  | 'timeout_member_data'
  | 'user_list'
>;

/** The fields of CreateListenerSerializer (a listener inside a balancer's create) but `pools`. */
export const LISTENER_FIELDS = [
  'allowed_cidrs',
  'connection_limit',
  'insert_x_forwarded',
  'name',
  'protocol',
  'protocol_port',
  'secret_id',
  'sni_secret_id',
  'timeout_client_data',
  'timeout_member_connect',
  'timeout_member_data',
  'user_list',
] as const;

const PATCH_FIELDS = [
  'admin_state_up',
  'allowed_cidrs',
  'connection_limit',
  'name',
  'secret_id',
  'sni_secret_id',
  'timeout_client_data',
  'timeout_member_connect',
  'timeout_member_data',
  'user_list',
];

const USERNAME = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,30}[a-zA-Z0-9._]$/;

/** A listener's user list (UserListItem, at most 3). */
function readUsers(ctx: LbCtx, value: unknown, field: string): ListenerUser[] {
  return list(ctx, value, field, 3).map((v, i) => {
    const item = objectOf(ctx, v, at(field, i), ['encrypted_password', 'username']);
    return {
      username: text(ctx, need(ctx, item, 'username', at(field, i)), at(at(field, i), 'username'), { max: 32, pattern: USERNAME }),
      encrypted_password: text(ctx, need(ctx, item, 'encrypted_password', at(field, i)), at(at(field, i), 'encrypted_password'), { max: 128 }),
    };
  });
}

/** `allowed_cidrs`: at most 100 networks, or null (everyone). */
function readCidrs(ctx: LbCtx, value: unknown, field: string): string[] | null {
  return orNull(value, (v) => list(ctx, v, field, 100).map((c, i) => network(ctx, c, at(field, i))));
}

/** A connection limit (-1..1000000; -1 is the default 100000). */
function readLimit(ctx: LbCtx, value: unknown, field: string): number {
  const limit = integer(ctx, value, field, { min: -1, max: 1_000_000 });
  return limit === -1 ? DEFAULT_CONNECTION_LIMIT : limit;
}

/**
 * Refuses TLS settings the listener's protocol does not take: a TERMINATED_HTTPS listener needs
 * a default certificate (`secret_id`), only TERMINATED_HTTPS and PROMETHEUS listeners take
 * secrets, and only HTTP and TERMINATED_HTTPS listeners insert X-Forwarded headers.
 */
function checkProtocolOptions(ctx: LbCtx, l: Pick<ListenerDraft, 'protocol' | 'secret_id' | 'sni_secret_id' | 'insert_x_forwarded'>, prefix: string): void {
  const tls = l.protocol === 'TERMINATED_HTTPS' || l.protocol === 'PROMETHEUS';
  if (l.protocol === 'TERMINATED_HTTPS' && l.secret_id === null) bad(ctx, `${at(prefix, 'secret_id')}: a TERMINATED_HTTPS listener needs a secret (its default certificate)`);
  if (!tls && l.secret_id !== null) bad(ctx, `${at(prefix, 'secret_id')}: only TERMINATED_HTTPS and PROMETHEUS listeners take a secret, not ${l.protocol}`);
  if (!tls && l.sni_secret_id.length > 0) bad(ctx, `${at(prefix, 'sni_secret_id')}: only TERMINATED_HTTPS and PROMETHEUS listeners take SNI secrets, not ${l.protocol}`);
  if (l.insert_x_forwarded && l.protocol !== 'HTTP' && l.protocol !== 'TERMINATED_HTTPS')
    bad(ctx, `${at(prefix, 'insert_x_forwarded')}: only HTTP and TERMINATED_HTTPS listeners insert X-Forwarded headers, not ${l.protocol}`);
}

/** A listener of a create request (CreateListenerSerializer / CreateLbListenerSerializer), its secrets looked up in the place. */
export function readListener(ctx: LbCtx, body: Record<string, unknown>, prefix: string, scope: CloudScope): ListenerDraft {
  const protocol = choice(ctx, need(ctx, body, 'protocol', prefix), at(prefix, 'protocol'), LISTENER_PROTOCOLS);
  const secretId = optional(body, 'secret_id', null, (v) => secretNamed(ctx, v, at(prefix, 'secret_id'), scope).id);
  const draft: ListenerDraft = {
    name: name(ctx, need(ctx, body, 'name', prefix), at(prefix, 'name')),
    protocol,
    protocol_port: integer(ctx, need(ctx, body, 'protocol_port', prefix), at(prefix, 'protocol_port'), { min: 1, max: 65535 }),
    allowed_cidrs: optional(body, 'allowed_cidrs', null, (v) => readCidrs(ctx, v, at(prefix, 'allowed_cidrs'))),
    connection_limit: optional(body, 'connection_limit', DEFAULT_CONNECTION_LIMIT, (v) => readLimit(ctx, v, at(prefix, 'connection_limit'))),
    insert_x_forwarded: optional(body, 'insert_x_forwarded', false, (v) => boolean(ctx, v, at(prefix, 'insert_x_forwarded'))),
    secret_id: secretId,
    sni_secret_id: optional(body, 'sni_secret_id', [] as string[], (v) =>
      list(ctx, v, at(prefix, 'sni_secret_id')).map((s, i) => secretNamed(ctx, s, at(at(prefix, 'sni_secret_id'), i), scope).id),
    ),
    timeout_client_data: timeoutOrDefault(ctx, body, 'timeout_client_data', prefix),
    timeout_member_connect: timeoutOrDefault(ctx, body, 'timeout_member_connect', prefix),
    timeout_member_data: timeoutOrDefault(ctx, body, 'timeout_member_data', prefix),
    user_list: optional(body, 'user_list', [] as ListenerUser[], (v) => readUsers(ctx, v, at(prefix, 'user_list'))),
  };
  checkProtocolOptions(ctx, draft, prefix);
  return draft;
}

/** A listener timeout of a body; absent or null is the platform's default. */
function timeoutOrDefault(ctx: LbCtx, body: Record<string, unknown>, key: keyof typeof LISTENER_TIMEOUT_DEFAULTS, prefix: string): number {
  return (body[key] === undefined ? null : timeout(ctx, body[key], at(prefix, key))) ?? LISTENER_TIMEOUT_DEFAULTS[key];
}

/** UDP and the TCP-based protocols use separate port spaces. */
const portSpace = (protocol: ListenerProtocol): string => (protocol === 'UDP' ? 'UDP' : 'TCP');

/** 409 when another listener of the balancer (or of the same request, `also`) uses the port in the same port space. */
export function assertPortFree(ctx: LbCtx, lb: LoadBalancerRecord, draft: Pick<ListenerDraft, 'protocol' | 'protocol_port'>, also: readonly ListenerDraft[] = []): void {
  const others = [...[...ctx.state.lbListeners.values()].filter((l) => l.load_balancer_id === lb.id), ...also];
  const clash = others.find((l) => l.protocol_port === draft.protocol_port && portSpace(l.protocol) === portSpace(draft.protocol));
  if (clash) fail(cloudError(409, `Another Listener on this Load Balancer is already using protocol_port ${draft.protocol_port} (${clash.name})`, ctx.requestId));
}

/** A listener record of a draft, on its balancer, being created. */
export function newListener(draft: ListenerDraft, id: string, lb: LoadBalancerRecord, now: number): ListenerRecord {
  return {
    id,
    ...onBalancer(lb),
    ...draft,
    admin_state_up: true,
    provisioning_status: 'PENDING_CREATE',
    creator_task_id: null,
    created_at: now,
  };
}

/**
 * POST /cloud/v1/lblisteners/{p}/{r} (CreateLbListenerSerializer): the listener is made at once,
 * PENDING_CREATE, by task create_lblistener on its balancer (409 while the balancer is busy).
 * `default_pool_id` attaches a pool of the balancer that has no listener yet.
 */
function buildListener(ctx: LbCtx, scope: CloudScope): Created<ListenerRecord> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', [...LISTENER_FIELDS, 'load_balancer_id', 'default_pool_id']);
  const lbId = uuid(ctx, need(ctx, body, 'load_balancer_id', ''), 'load_balancer_id');
  const defaultPool = optional(body, 'default_pool_id', null, (v) => uuid(ctx, v, 'default_pool_id'));
  const draft = readListener(ctx, body, '', scope);
  const lb = balancerNamed(ctx, lbId, 'load_balancer_id', scope);
  let poolId: string | null = null;
  if (defaultPool !== null) {
    const pool = ctx.state.lbPools.get(defaultPool);
    if (pool === undefined || pool.load_balancer_id !== lb.id) fail(cloudError(404, `Pool ${String(body.default_pool_id)} not found on load balancer ${lb.id}`, ctx.requestId));
    if (pool.listener_id !== null) fail(cloudError(409, `Pool ${pool.id} is already the pool of listener ${pool.listener_id}`, ctx.requestId));
    assertPoolFitsListener(ctx, draft.protocol, pool.protocol, 'default_pool_id');
    poolId = pool.id;
  }
  assertBalancerFree(ctx, lb);
  assertPortFree(ctx, lb, draft);
  const id = newId(ctx, 'create_lblistener', ctx.state.lbListeners, scope);
  const record = newListener(draft, id, lb, ctx.now);
  return {
    record,
    task: { type: 'create_lblistener', effect: { type: 'create_lblistener', listener_id: id, default_pool_id: poolId }, data: body, createdResources: { listeners: [id] } },
  };
}

/** The changes a PATCH v2 body (PatchLbListenerSerializer) makes to a listener; empty when it changes nothing. */
function readListenerPatch(ctx: LbCtx, listener: ListenerRecord, scope: CloudScope): Partial<ListenerRecord> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', PATCH_FIELDS);
  const next: Partial<ListenerRecord> = {};
  if (body.name !== undefined) next.name = name(ctx, body.name, 'name');
  if (body.admin_state_up !== undefined) next.admin_state_up = boolean(ctx, body.admin_state_up, 'admin_state_up');
  if (body.allowed_cidrs !== undefined) next.allowed_cidrs = readCidrs(ctx, body.allowed_cidrs, 'allowed_cidrs');
  if (body.connection_limit !== undefined) next.connection_limit = readLimit(ctx, body.connection_limit, 'connection_limit');
  if (body.secret_id !== undefined) next.secret_id = orNull(body.secret_id, (v) => secretNamed(ctx, v, 'secret_id', scope).id);
  if (body.sni_secret_id !== undefined)
    next.sni_secret_id = orNull(body.sni_secret_id, (v) => list(ctx, v, 'sni_secret_id').map((s, i) => secretNamed(ctx, s, at('sni_secret_id', i), scope).id)) ?? [];
  for (const key of ['timeout_client_data', 'timeout_member_connect', 'timeout_member_data'] as const) {
    if (body[key] !== undefined) next[key] = timeout(ctx, body[key], key) ?? LISTENER_TIMEOUT_DEFAULTS[key];
  }
  if (body.user_list !== undefined) next.user_list = orNull(body.user_list, (v) => readUsers(ctx, v, 'user_list')) ?? [];
  checkProtocolOptions(ctx, { ...listener, ...next }, '');
  const changes: Partial<ListenerRecord> = {};
  for (const [key, value] of Object.entries(next) as [keyof ListenerRecord, unknown][]) if (!same(value, listener[key])) (changes as Record<string, unknown>)[key] = value;
  return changes;
}

interface ListenerQuery {
  lbId: string | null;
  name: string | null;
  stats: boolean;
  index: LbIndex;
}

/**
 * Listeners: the list (`{count, results}`, limit 1..1000, filters `load_balancer_id`, `name`,
 * `show_stats`), GET (`show_stats`), POST (task create_lblistener), PATCH v2 (task
 * update_lblistener; `{"tasks": []}` when nothing would change) and DELETE (task
 * delete_lblistener; `delete_default_pool=true` deletes its pool too, else the pool stays on the
 * balancer). Every write is a task on the balancer, refused with 409 while one runs. The
 * deprecated v1 PATCH is not served (405).
 */
export const listeners = defineCollection<LbState, ListenerRecord, CloudScope, ListenerQuery, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/lblisteners/{project_id}/{region_id}',
  idParam: 'listener_id',
  idSyntax: 'uuid',
  noun: 'Listener',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.lbListeners,
  inScope: placedIn,
  idOf: (l) => l.id,
  tasks: { kind: 'load_balancer', resourceId: (l) => l.load_balancer_id },
  list: {
    paging: cloudPages(),
    query: (ctx) => ({
      lbId: uuidQuery(ctx, 'load_balancer_id'),
      name: ctx.query.get('name'),
      stats: booleanQuery(ctx, 'show_stats') ?? false,
      index: indexState(ctx.state),
    }),
    where: (l, q) => (q.lbId === null || l.load_balancer_id === q.lbId) && (q.name === null || l.name === q.name),
    render: (l, ctx, q) => renderListener(ctx.state, l, { stats: q.stats, index: q.index }),
  },
  get: (l, ctx) => renderListener(ctx.state, l, { stats: booleanQuery(ctx, 'show_stats') ?? false }),
  create: { build: buildListener },
  updates: [
    {
      method: 'PATCH',
      path: '/cloud/v2/lblisteners/{project_id}/{region_id}/{listener_id}',
      task: (ctx, listener, scope) => {
        const changes = readListenerPatch(ctx, listener, scope);
        return updateChild(ctx, listener, Object.keys(changes).length > 0, 'update_lblistener', { listener_id: listener.id, changes });
      },
    },
  ],
  delete: deleteChild('delete_lblistener', (ctx, listener) => ({ listener_id: listener.id, delete_default_pool: booleanQuery(ctx, 'delete_default_pool') ?? false })),
});

/** Ends a listener task on its balancer: applies it when `ok` (and logs it), else puts the listener back (a failed create removes it). */
export function finishListenerTask(state: LbTaskState, task: LbTask, ok: boolean): void {
  const effect = task.effect;
  const listener = state.lbListeners.get(effect.listener_id as string);
  if (listener === undefined) return;
  if (effect.type === 'create_lblistener') {
    if (!ok) return void state.lbListeners.delete(listener.id);
    listener.provisioning_status = 'ACTIVE';
    const pool = effect.default_pool_id === null ? undefined : state.lbPools.get(effect.default_pool_id as string);
    if (pool) pool.listener_id = listener.id;
    state.recordMutation(task.finish_at, 'lb_listener', listener.id, 'create_lblistener', { load_balancer_id: listener.load_balancer_id, name: listener.name }, task.id);
    return;
  }
  listener.provisioning_status = 'ACTIVE';
  if (!ok) return;
  if (effect.type === 'update_lblistener') {
    Object.assign(listener, effect.changes);
    state.recordMutation(task.finish_at, 'lb_listener', listener.id, 'update_lblistener', { ...(effect.changes as object) }, task.id);
    return;
  }
  removeListener(state, listener, effect.delete_default_pool === true);
  state.recordMutation(task.finish_at, 'lb_listener', listener.id, 'delete_lblistener', {}, task.id);
}

/** Removes a listener with its L7 policies; its pool goes too when `withPool`, else it stays on the balancer without a listener. */
export function removeListener(state: LbTaskState, listener: ListenerRecord, withPool: boolean): void {
  for (const policy of state.lbL7Policies.values()) if (policy.listener_id === listener.id) state.lbL7Policies.delete(policy.id);
  for (const pool of state.lbPools.values()) {
    if (pool.listener_id !== listener.id) continue;
    if (withPool) removePool(state, pool);
    else pool.listener_id = null;
  }
  state.lbListeners.delete(listener.id);
}
