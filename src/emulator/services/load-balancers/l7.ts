import { CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPages, cloudPlacement, placedIn, type CloudScope } from '../../cloud-common.js';
import { defineCollection, tasksReply, type Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { fail, type Reply } from '../../reply.js';
import type { ServiceRoute } from '../../router.js';
import { assertBalancerFree, assertChildFree, deleteChild, newId, onBalancer, updateChild, type LbCtx, type LbState, type LbTask, type LbTaskState } from './common.js';
import { bad, boolean, choice, integer, name, need, objectOf, optional, same, stringList, text } from './fields.js';
import { L7_ACTIONS, L7_COMPARE_TYPES, L7_RULE_TYPES, REDIRECT_CODES, type L7Action, type L7PolicyRecord, type L7RuleRecord, type ListenerRecord } from './model.js';
import { renderPolicy, renderRule } from './render.js';

/** The redirect fields each action takes (besides name, position and tags). */
const ACTION_FIELDS: Record<L7Action, readonly string[]> = {
  REDIRECT_TO_URL: ['redirect_url', 'redirect_http_code'],
  REDIRECT_PREFIX: ['redirect_prefix', 'redirect_http_code'],
  REDIRECT_TO_POOL: ['redirect_pool_id'],
  REJECT: [],
};

/** What an action's policy redirects with: its URL, prefix, pool and code (the others null). */
type Redirect = Pick<L7PolicyRecord, 'action' | 'redirect_url' | 'redirect_prefix' | 'redirect_pool_id' | 'redirect_http_code'>;

/** An absolute http(s) URL (a redirect target). */
function url(ctx: LbCtx, value: unknown, field: string): string {
  const s = text(ctx, value, field, { min: 1, max: 255 });
  let parsed: URL | undefined;
  try {
    parsed = new URL(s);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) bad(ctx, `${field}: must be an absolute http or https URL`);
  return s;
}

/**
 * The action of a policy body and its redirect (CreateL7Policy*Serializer / UpdateL7Policy*Serializer,
 * chosen by `action`): a URL, a prefix (with a code of 301, 302, 303, 307, 308; 302 unless told
 * or kept), or a pool (its id; see resolvePool).
 */
function readRedirect(ctx: LbCtx, body: Record<string, unknown>, current?: L7PolicyRecord): Redirect {
  const action = choice(ctx, need(ctx, body, 'action', ''), 'action', L7_ACTIONS);
  const redirect: Redirect = { action, redirect_url: null, redirect_prefix: null, redirect_pool_id: null, redirect_http_code: null };
  if (action === 'REDIRECT_TO_URL') redirect.redirect_url = url(ctx, need(ctx, body, 'redirect_url', ''), 'redirect_url');
  if (action === 'REDIRECT_PREFIX') redirect.redirect_prefix = url(ctx, need(ctx, body, 'redirect_prefix', ''), 'redirect_prefix');
  if (action === 'REDIRECT_TO_URL' || action === 'REDIRECT_PREFIX') {
    const kept = current?.redirect_http_code ?? 302;
    redirect.redirect_http_code = optional(body, 'redirect_http_code', kept, (v) => choice(ctx, v, 'redirect_http_code', REDIRECT_CODES));
  }
  if (action === 'REDIRECT_TO_POOL') redirect.redirect_pool_id = text(ctx, need(ctx, body, 'redirect_pool_id', ''), 'redirect_pool_id').toLowerCase();
  return redirect;
}

/** 404 unless a redirect's pool is a pool of the place, 400 unless it is on the listener's balancer. */
function resolvePool(ctx: LbCtx, redirect: Redirect, listener: ListenerRecord, scope: CloudScope): void {
  const poolId = redirect.redirect_pool_id;
  if (poolId === null) return;
  const pool = ctx.state.lbPools.get(poolId);
  if (pool === undefined || !placedIn(pool, scope)) fail(cloudError(404, `Pool ${poolId} not found`, ctx.requestId));
  if (pool.load_balancer_id !== listener.load_balancer_id) bad(ctx, `redirect_pool_id: pool ${poolId} is not on the listener's load balancer ${listener.load_balancer_id}`);
}

/** The policies of a listener, in position order. */
function policiesOf(state: LbState, listenerId: string): L7PolicyRecord[] {
  return [...state.lbL7Policies.values()].filter((p) => p.listener_id === listenerId).sort((a, b) => a.position - b.position);
}

/** Puts `policy` at `position` among its listener's policies (the end when past it) and numbers them 1, 2, ... in order. */
function place(state: LbState, policy: L7PolicyRecord, position: number): void {
  const others = policiesOf(state, policy.listener_id).filter((p) => p !== policy);
  others.splice(Math.min(position, others.length + 1) - 1, 0, policy);
  others.forEach((p, i) => (p.position = i + 1));
}

/** Numbers a listener's policies 1, 2, ... in their order (after one left). */
function renumber(state: LbState, listenerId: string): void {
  policiesOf(state, listenerId).forEach((p, i) => (p.position = i + 1));
}

/**
 * POST /cloud/v1/l7policies/{p}/{r} (CreateL7PolicySerializer): a policy of an HTTP or
 * TERMINATED_HTTPS listener (400 for others), at `position` (default: last; later ones move down),
 * made at once, PENDING_CREATE, by task create_l7policy on the balancer (409 while it is busy).
 * Without rules a policy matches nothing; an HTTP → HTTPS redirect is a REDIRECT_PREFIX policy
 * with a rule that matches every path (PATH STARTS_WITH /).
 */
function buildPolicy(ctx: LbCtx, scope: CloudScope): Created<L7PolicyRecord> {
  const raw = cloudObjectBody(ctx);
  const action = choice(ctx, need(ctx, raw, 'action', ''), 'action', L7_ACTIONS);
  const body = objectOf(ctx, raw, '', ['action', 'listener_id', 'name', 'position', 'tags', ...ACTION_FIELDS[action]]);
  const listenerId = text(ctx, need(ctx, body, 'listener_id', ''), 'listener_id').toLowerCase();
  const redirect = readRedirect(ctx, body);
  const policyName = optional(body, 'name', '', (v) => name(ctx, v, 'name'));
  const position = optional(body, 'position', Number.MAX_SAFE_INTEGER, (v) => integer(ctx, v, 'position', { above: 0 }));
  const tags = optional(body, 'tags', [] as string[], (v) => stringList(ctx, v, 'tags'));
  const listener = ctx.state.lbListeners.get(listenerId);
  if (listener === undefined || !placedIn(listener, scope)) return fail(cloudError(404, `Listener ${listenerId} not found`, ctx.requestId));
  if (listener.protocol !== 'HTTP' && listener.protocol !== 'TERMINATED_HTTPS')
    bad(ctx, `listener_id: L7 policies are for HTTP and TERMINATED_HTTPS listeners, not ${listener.protocol}`);
  resolvePool(ctx, redirect, listener, scope);
  const lb = ctx.state.loadBalancers.get(listener.load_balancer_id)!;
  assertBalancerFree(ctx, lb);
  const id = newId(ctx, 'create_l7policy', ctx.state.lbL7Policies, scope);
  const record: L7PolicyRecord = {
    id,
    ...onBalancer(lb),
    listener_id: listener.id,
    name: policyName,
    ...redirect,
    position: 0,
    tags,
    rules: [],
    provisioning_status: 'PENDING_CREATE',
    creator_task_id: null,
    created_at: ctx.now,
  };
  place(ctx.state, record, position);
  return { record, task: { type: 'create_l7policy', effect: { type: 'create_l7policy', policy_id: id }, data: body, createdResources: { l7polices: [id] } } };
}

/** The changes a PATCH (UpdateL7PolicySerializer) makes to a policy: its action and redirect as a whole, and the name, position and tags given. */
function readPolicyPatch(ctx: LbCtx, policy: L7PolicyRecord, scope: CloudScope): Partial<L7PolicyRecord> {
  const raw = cloudObjectBody(ctx);
  const action = choice(ctx, need(ctx, raw, 'action', ''), 'action', L7_ACTIONS);
  const body = objectOf(ctx, raw, '', ['action', 'name', 'position', 'tags', ...ACTION_FIELDS[action]]);
  const next: Partial<L7PolicyRecord> = readRedirect(ctx, body, policy);
  resolvePool(ctx, next as Redirect, ctx.state.lbListeners.get(policy.listener_id)!, scope);
  if (body.name !== undefined) next.name = name(ctx, body.name, 'name');
  if (body.position !== undefined) next.position = integer(ctx, body.position, 'position', { above: 0 });
  if (body.tags !== undefined) next.tags = stringList(ctx, body.tags, 'tags');
  const changes: Partial<L7PolicyRecord> = {};
  for (const [key, value] of Object.entries(next) as [keyof L7PolicyRecord, unknown][]) if (!same(value, policy[key])) (changes as Record<string, unknown>)[key] = value;
  return changes;
}

/**
 * L7 policies: the list (`{count, results}`, limit 1..1000), GET, POST (task create_l7policy),
 * PATCH (task update_l7policy; `{"tasks": []}` when nothing would change) and DELETE (task
 * delete_l7policy, with its rules). Tasks on the listener's balancer, refused with 409 while one runs.
 */
export const policies = defineCollection<LbState, L7PolicyRecord, CloudScope>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/l7policies/{project_id}/{region_id}',
  idParam: 'l7policy_id',
  noun: 'L7 policy',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.lbL7Policies,
  inScope: placedIn,
  key: (id) => id.toLowerCase(),
  idOf: (p) => p.id,
  tasks: { kind: 'load_balancer', resourceId: (p) => p.load_balancer_id },
  list: {
    paging: cloudPages(),
    order: (a, b) => a.listener_id.localeCompare(b.listener_id) || a.position - b.position,
    render: (p, ctx) => renderPolicy(ctx.state, p),
  },
  get: (p, ctx) => renderPolicy(ctx.state, p),
  create: { build: buildPolicy },
  updates: [
    {
      method: 'PATCH',
      task: (ctx, policy, scope) => {
        const changes = readPolicyPatch(ctx, policy, scope);
        return updateChild(ctx, policy, Object.keys(changes).length > 0, 'update_l7policy', { policy_id: policy.id, changes });
      },
    },
  ],
  delete: deleteChild('delete_l7policy', (_ctx, policy) => ({ policy_id: policy.id })),
});

const RULE_FIELDS = ['compare_type', 'invert', 'key', 'tags', 'type', 'value'];

/** 400 when a rule of a COOKIE or HEADER type has no key. */
function checkRuleKey(ctx: LbCtx, rule: Pick<L7RuleRecord, 'type' | 'key'>): void {
  if ((rule.type === 'COOKIE' || rule.type === 'HEADER') && rule.key === null) bad(ctx, `key: a ${rule.type} rule needs a key`);
}

/** The fields of a rule body (CreateL7RuleSerializer / UpdateL7RuleSerializer) that it gives. */
function readRuleFields(ctx: LbCtx, body: Record<string, unknown>): Partial<L7RuleRecord> {
  const fields: Partial<L7RuleRecord> = {};
  if (body.type !== undefined) fields.type = choice(ctx, body.type, 'type', L7_RULE_TYPES);
  if (body.compare_type !== undefined) fields.compare_type = choice(ctx, body.compare_type, 'compare_type', L7_COMPARE_TYPES);
  if (body.value !== undefined) fields.value = text(ctx, body.value, 'value', { min: 1, max: 255 });
  if (body.key !== undefined) fields.key = text(ctx, body.key, 'key', { max: 255 });
  if (body.invert !== undefined) fields.invert = boolean(ctx, body.invert, 'invert');
  if (body.tags !== undefined) fields.tags = stringList(ctx, body.tags, 'tags');
  return fields;
}

/** The rule a path names in its policy; 404 otherwise. */
function ruleOf(ctx: LbCtx, policy: L7PolicyRecord): L7RuleRecord {
  const id = (ctx.params.l7rule_id ?? '').toLowerCase();
  return policy.rules.find((r) => r.id === id) ?? fail(cloudError(404, `L7 rule ${id} not found`, ctx.requestId));
}

/** The rules of a policy: the list (`{count, results}`, limit 1..1000) and GET; their writes are the routes below. */
const rules = defineCollection<LbState, L7RuleRecord, { policy: L7PolicyRecord }>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules',
  idParam: 'l7rule_id',
  noun: 'L7 rule',
  scope: (ctx) => ({ policy: policies.find(ctx) }),
  store: (_ctx, scope) => scope.policy.rules,
  idOf: (r) => r.id,
  list: { paging: cloudPages(), render: (r, ctx) => renderRule(ctx.state, policiesOfRule(ctx.state, r), r) },
  get: (r, ctx) => renderRule(ctx.state, policiesOfRule(ctx.state, r), r),
});

/** The policy holding a rule. */
function policiesOfRule(state: LbState, rule: L7RuleRecord): L7PolicyRecord {
  for (const policy of state.lbL7Policies.values()) if (policy.rules.includes(rule)) return policy;
  throw new Error(`L7 rule ${rule.id} has no policy`);
}

/** POST .../l7policies/{p}/{r}/{l7policy_id}/rules: the rule is made at once, PENDING_CREATE, by task create_l7rule on the balancer. */
function createRule(ctx: LbCtx): Reply {
  const policy = policies.find(ctx);
  const body = objectOf(ctx, cloudObjectBody(ctx), '', RULE_FIELDS);
  for (const key of ['compare_type', 'type', 'value']) need(ctx, body, key, '');
  const fields = readRuleFields(ctx, body);
  const rule: L7RuleRecord = {
    id: '',
    type: fields.type!,
    compare_type: fields.compare_type!,
    key: fields.key ?? null,
    value: fields.value!,
    invert: fields.invert ?? false,
    tags: fields.tags ?? [],
    provisioning_status: 'PENDING_CREATE',
  };
  checkRuleKey(ctx, rule);
  assertChildFree(ctx, policy);
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_l7rule').length;
  do rule.id = stableUuid(`created-l7rule/${policy.id}/${n++}`);
  while (policy.rules.some((r) => r.id === rule.id));
  policy.rules.push(rule);
  const start = { type: 'create_l7rule', effect: { type: 'create_l7rule', policy_id: policy.id, rule_id: rule.id }, data: body, createdResources: { l7rules: [rule.id] } };
  return tasksReply(policies.startTask(ctx, policy, start));
}

/** PUT .../rules/{l7rule_id} (UpdateL7RuleSerializer): the fields given replace the rule's, by task update_l7rule (`{"tasks": []}` when nothing would change). */
function updateRule(ctx: LbCtx): Reply {
  const policy = policies.find(ctx);
  const rule = ruleOf(ctx, policy);
  const fields = readRuleFields(ctx, objectOf(ctx, cloudObjectBody(ctx), '', RULE_FIELDS));
  checkRuleKey(ctx, { ...rule, ...fields });
  assertChildFree(ctx, policy);
  const changes = Object.fromEntries(Object.entries(fields).filter(([k, v]) => !same(v, rule[k as keyof L7RuleRecord])));
  if (Object.keys(changes).length === 0) return tasksReply();
  rule.provisioning_status = 'PENDING_UPDATE';
  return tasksReply(policies.startTask(ctx, policy, { type: 'update_l7rule', effect: { type: 'update_l7rule', policy_id: policy.id, rule_id: rule.id, changes }, data: ctx.body }));
}

/** DELETE .../rules/{l7rule_id}: task delete_l7rule. */
function deleteRule(ctx: LbCtx): Reply {
  const policy = policies.find(ctx);
  const rule = ruleOf(ctx, policy);
  assertChildFree(ctx, policy);
  rule.provisioning_status = 'PENDING_DELETE';
  return tasksReply(policies.startTask(ctx, policy, { type: 'delete_l7rule', effect: { type: 'delete_l7rule', policy_id: policy.id, rule_id: rule.id }, data: null }));
}

/** Every L7 route: policies, then their rules. */
export const l7Routes: ServiceRoute<LbState>[] = [
  ...policies.routes,
  ...rules.routes,
  { method: 'POST', pattern: '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules', handler: createRule },
  { method: 'PUT', pattern: '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id}', handler: updateRule },
  { method: 'DELETE', pattern: '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id}', handler: deleteRule },
];

/** Ends an L7 policy or rule task on its balancer: applies it when `ok` (and logs it), else puts things back (a failed create removes what it made). */
export function finishL7Task(state: LbTaskState, task: LbTask, ok: boolean): void {
  const effect = task.effect;
  const policy = state.lbL7Policies.get(effect.policy_id as string);
  if (policy === undefined) return;
  const log = (kind: 'lb_l7policy' | 'lb_l7rule', id: string, after: Record<string, unknown> = {}): void =>
    state.recordMutation(task.finish_at, kind, id, effect.type, after, task.id);
  if (effect.type === 'create_l7policy') {
    if (!ok) {
      state.lbL7Policies.delete(policy.id);
      return renumber(state, policy.listener_id);
    }
    policy.provisioning_status = 'ACTIVE';
    return log('lb_l7policy', policy.id, { listener_id: policy.listener_id, action: policy.action, position: policy.position });
  }
  if (effect.type === 'update_l7policy' || effect.type === 'delete_l7policy') {
    policy.provisioning_status = 'ACTIVE';
    if (!ok) return;
    if (effect.type === 'delete_l7policy') {
      state.lbL7Policies.delete(policy.id);
      renumber(state, policy.listener_id);
      return log('lb_l7policy', policy.id);
    }
    const { position, ...changes } = effect.changes as Partial<L7PolicyRecord>;
    Object.assign(policy, changes);
    if (position !== undefined) place(state, policy, position);
    return log('lb_l7policy', policy.id, { ...(effect.changes as object) });
  }
  const rule = policy.rules.find((r) => r.id === effect.rule_id);
  if (rule === undefined) return;
  if (effect.type === 'create_l7rule' && !ok) return void (policy.rules = policy.rules.filter((r) => r !== rule));
  rule.provisioning_status = 'ACTIVE';
  if (!ok) return;
  if (effect.type === 'create_l7rule') return log('lb_l7rule', rule.id, { policy_id: policy.id, type: rule.type, compare_type: rule.compare_type, value: rule.value });
  if (effect.type === 'update_l7rule') {
    Object.assign(rule, effect.changes);
    return log('lb_l7rule', rule.id, { ...(effect.changes as object) });
  }
  policy.rules = policy.rules.filter((r) => r !== rule);
  log('lb_l7rule', rule.id, { policy_id: policy.id });
}
