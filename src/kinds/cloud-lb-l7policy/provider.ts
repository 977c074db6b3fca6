import { z } from 'zod';
import { NotFoundError } from '../../api/errors.js';
import { apiPath } from '../../api/path.js';
import { canonicalJson } from '../../model/fingerprint.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../../plan/types.js';
import { cloudTaggedList } from '../cloud-owned.js';
import { createPlan, withCreateFacts } from '../create.js';
import { listAll } from '../kind-list.js';
import { adoptedReplaceErrors, balancerKnown, balancerOfListener, defineChildReads, onBalancer } from '../lb-family.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { ApplyResult, PlanProblem, ProviderContext, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { policyImport } from './import.js';
import { policyAnswer, policyFields, policyList, policyPath, readRules, rulePath, rulesPath, type Policy } from './list.js';
import { ACTION_TARGET, ruleKey } from './schema.js';

type Desired = ResourceAttributes['cloud_lb_l7policy'];
type Rule = NonNullable<Desired['rules']>[number];

/** Fields changed in place by the PATCH (UpdateL7PolicySerializer); the action's redirect fields go with `action`. */
const IN_PLACE = ['action', 'redirect_url', 'redirect_prefix', 'redirect_pool_id', 'redirect_http_code', 'position', 'tags'] as const;

/** A rule as the platform answers it (its defaults filled in). */
const answeredRule = (r: Rule) => ({ type: r.type, compare_type: r.compare_type, ...(r.key === undefined ? {} : { key: r.key }), value: r.value, invert: r.invert ?? false });

const ruleBody = z.object({ type: z.string(), compare_type: z.string(), value: z.string(), key: z.string().optional(), invert: z.boolean() });
/** The update's payload: the PATCH body (null: the policy's own fields are unchanged), the rules to delete (ids) and to add. */
const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()).nullable(), remove_rules: z.array(z.string()), add_rules: z.array(ruleBody) });
const createPayloadSchema = z.object({ body: z.record(z.string(), z.unknown()), rules: z.array(ruleBody) });

/** The PATCH body: the action and its redirect (the vendor's update takes them together), and the other fields that differ. */
function patchBody(d: Desired, changed: ReadonlySet<string>): Record<string, unknown> {
  const body: Record<string, unknown> = { action: d.action };
  const target = ACTION_TARGET[d.action];
  if (target !== null) body[target] = d[target];
  if (d.redirect_http_code !== undefined) body.redirect_http_code = d.redirect_http_code;
  for (const field of ['name', 'position', 'tags'] as const) if (changed.has(field) && d[field] !== undefined) body[field] = d[field];
  return body;
}

/** The create body (CreateL7PolicySerializer, the variant of its action); rules are added after, one task each. */
function createBody(d: Desired): Record<string, unknown> {
  const body: Record<string, unknown> = { listener_id: d.listener_id, name: d.name, action: d.action };
  for (const field of IN_PLACE) if (field !== 'action' && d[field] !== undefined) body[field] = d[field];
  return body;
}

const reads = defineChildReads({
  type: 'cloud_lb_l7policy',
  noun: 'L7 policy',
  list: policyList,
  get: async (ctx, d, id) => (await ctx.api.get(policyPath(d.project_id, d.region_id, id), { schema: policyAnswer, signal: ctx.signal })).body,
  itemId: (p) => p.id,
  parentField: 'listener_id',
  parentOf: (p) => p.listener_id,
  balancerOf: (p, listeners) => listeners.get(p.listener_id) ?? null,
  itemName: (p) => p.name,
  observe: (p) => ({ exists: true, state: policyFields(p, null), lockTaskId: p.task_id ?? null }),
  // The policy list names rules by id only: a block that declares rules reads its policy's (one list a policy that has any).
  detail: async (ctx, d, p) => ({
    exists: true,
    state: policyFields(p, d.rules === undefined ? null : await readRules(ctx, d, p)),
    lockTaskId: p.task_id ?? null,
  }),
});

/** The fields of the lists the balancer check reads: a listener's balancer, a pool's. */
const brief = z.looseObject({ id: z.string(), load_balancer_id: z.string().nullish(), loadbalancers: z.array(z.looseObject({ id: z.string() })).nullish() });
const listenerBrief = cloudTaggedList((s) => apiPath`/cloud/v1/lblisteners/${s.project_id}/${s.region_id}`, brief);
const poolBrief = cloudTaggedList((s) => apiPath`/cloud/v1/lbpools/${s.project_id}/${s.region_id}`, brief);

/**
 * What a REDIRECT_TO_POOL policy's create is checked against: the balancer of its listener and
 * of its pool (null: no such pool in the place), when both already exist; undefined otherwise.
 */
async function poolFacts(ctx: ProviderContext, d: Desired): Promise<Record<string, unknown> | undefined> {
  if (d.action !== 'REDIRECT_TO_POOL' || !balancerKnown(d.redirect_pool_id) || !balancerKnown(d.listener_id)) return undefined;
  const [listeners, pools] = await Promise.all([listAll(ctx, listenerBrief, d, (i) => i.id), listAll(ctx, poolBrief, d, (i) => i.id)]);
  const listener = listeners.find((l) => l.id === d.listener_id);
  if (listener === undefined) return undefined;
  const pool = pools.find((p) => p.id === d.redirect_pool_id);
  return { listener_balancer: listener.load_balancer_id ?? null, pool_balancer: pool === undefined ? null : (pool.loadbalancers?.[0]?.id ?? null) };
}

/** The plan error of a REDIRECT_TO_POOL policy whose pool is not a pool of its listener's balancer (the platform answers 400, or 404). */
function poolProblems(d: Desired, facts: Readonly<Record<string, unknown>> | undefined): PlanProblem[] {
  if (facts === undefined || !('pool_balancer' in facts)) return [];
  const { listener_balancer, pool_balancer } = facts as { listener_balancer: string | null; pool_balancer: string | null };
  if (pool_balancer === null)
    return [
      {
        field: 'redirect_pool_id',
        summary: `no pool ${d.redirect_pool_id} in project ${d.project_id}, region ${d.region_id}`,
        detail: "a REDIRECT_TO_POOL policy sends requests to a pool of its listener's balancer, usually ${cloud_lb_pool.NAME.id}.",
      },
    ];
  if (pool_balancer !== listener_balancer)
    return [
      {
        field: 'redirect_pool_id',
        summary: `pool ${d.redirect_pool_id} is on load balancer ${pool_balancer}, not on the listener's (${listener_balancer ?? 'none'})`,
        detail: "the platform refuses a redirect to a pool of another balancer: name a pool of the listener's balancer.",
      },
    ];
  return [];
}

const withFacts = withCreateFacts(reads, poolFacts, (d, state) => d.listener_id !== KNOWN_AFTER_APPLY && balancerKnown(d.listener_id) && d.listener_id !== state.listener_id);

/** Sends one task-starting rule request of a policy and waits on its tasks (a rule has no lock of its own: the balancer's). */
async function sendRuleTask(ctx: ProviderContext, d: Desired, request: { method: 'POST' | 'DELETE'; path: string; body?: unknown }): Promise<void> {
  const answer = (await ctx.api.request({ ...request, schema: z.looseObject({ tasks: z.array(z.string()) }), retry: 'never-reached-only', signal: ctx.signal })).body;
  await ctx.waitForTasks(answer.tasks, { scope: cloudTaskScope(d) });
}

/** Deletes the rules no longer declared, then adds the new ones: one task each on the balancer. */
async function writeRules(ctx: ProviderContext, d: Desired, id: string, remove: readonly string[], add: ReadonlyArray<z.infer<typeof ruleBody>>): Promise<void> {
  for (const ruleId of remove) {
    try {
      await sendRuleTask(ctx, d, { method: 'DELETE', path: rulePath(d.project_id, d.region_id, id, ruleId) });
    } catch (error) {
      // Already gone: what the delete asked for.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  for (const rule of add) await sendRuleTask(ctx, d, { method: 'POST', path: rulesPath(d.project_id, d.region_id, id), body: rule });
}

/**
 * Create (`create_l7policy`, then `create_l7rule` for each rule), the PATCH (`update_l7policy`:
 * the action with its redirect, and the other fields that differ; then the rules no longer
 * declared deleted and the new ones added) and delete (`delete_l7policy`, its rules with it).
 * Each waits its turn on the balancer of the policy's listener.
 */
const lifecycle = defineLifecycle('cloud_lb_l7policy', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (p: Policy) => p.task_id ?? null },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: policyList.path(d), body: payload.body }),
    tasks: { type: 'create_l7policy', reread: (ctx, { desired }) => reads.findByName(ctx, desired), done: (p) => p !== null },
    created: { key: 'l7polices', noun: 'L7 policy' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'update_l7policy',
    async run(ctx, { desired: d, payload, id }, sendTasks) {
      let result: ApplyResult = undefined;
      if (payload.body !== null)
        result = await sendTasks(
          { method: 'PATCH', path: policyPath(d.project_id, d.region_id, id), body: payload.body },
          { resend: true, reread: () => reads.readOrGone(ctx, d, String(id)), done: () => false },
        );
      await writeRules(ctx, d, String(id), payload.remove_rules, payload.add_rules);
      return result;
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: policyPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_l7policy', resend: true, reread: (ctx, { desired, id }) => reads.readOrGone(ctx, desired, String(id)), done: (p) => p === null },
  },
});

/** A create, then its rules (the create request takes none): each a task on the balancer. */
async function applyChange(ctx: ProviderContext, change: Parameters<ResourceProvider<'cloud_lb_l7policy'>['apply']>[1]): Promise<ApplyResult> {
  const result = await lifecycle.apply(ctx, change);
  if (change.action !== 'create' || result === 'unacknowledged') return result;
  const rules = (change.payload as { rules?: Array<z.infer<typeof ruleBody>> } | undefined)?.rules ?? [];
  if (rules.length === 0) return result;
  const created = await reads.findByName(ctx, change.desired);
  // Not found again: the executor's confirming read says so; a next plan adds the rules.
  if (created !== null) await writeRules(ctx, change.desired, created.id, [], rules);
  return undefined;
}

/**
 * L7 policies of load balancer listeners, rules inline: a block names its `l7policy_id` or is
 * found by its listener and name; every policy of a project and region is read from one list
 * (and the rules of those whose block declares rules, one list a policy: the policy list names
 * rules by id only). The listener is set at create (`-/+`); the action, redirect, position and
 * tags change with one PATCH; rules are compared as a set: those no longer declared are deleted,
 * new ones added. With `prune: true`, policies of a listener the stack declares, on a balancer it
 * declares, that no block declares are destroyed.
 */
export const cloudLbL7policy: ResourceProvider<'cloud_lb_l7policy'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_lb_l7policy',
  read: withFacts.read,
  groupRead: withFacts.groupRead,
  pruneListing: reads.pruneListing,
  import: policyImport,
  async apply(ctx, change) {
    // Pruned: its balancer is known from the listing; otherwise the listener's, read once.
    const named = (change.desired as { load_balancer_id?: string }).load_balancer_id;
    const lb = balancerKnown(named) ? named : await balancerOfListener(ctx, change.desired, change.desired.listener_id);
    return onBalancer(ctx, change.desired, lb, () => applyChange(ctx, change));
  },
  summarize: (state) => ({ l7policy_id: state.l7policy_id, listener_id: state.listener_id, name: state.name, action: state.action, position: state.position }),
  create: {
    plan(d, _ref, facts): ProviderPlan {
      const declared: Record<string, unknown> = { project_id: d.project_id, region_id: d.region_id, listener_id: d.listener_id, name: d.name };
      for (const field of IN_PLACE) if (d[field] !== undefined) declared[field] = d[field];
      if (d.rules !== undefined) declared.rules = d.rules.map(answeredRule);
      return createPlan(declared, 'l7policy_id', { body: createBody(d), rules: (d.rules ?? []).map(answeredRule) }, { errors: poolProblems(d, facts) });
    },
    identity: (d) => (d.l7policy_id === undefined ? `name ${JSON.stringify(d.name)} in its listener` : null),
  },
  plan(d, state) {
    const before: Record<string, unknown> = { l7policy_id: state.l7policy_id, listener_id: state.listener_id, name: state.name };
    const after: Record<string, unknown> = { ...before, name: d.name };
    const changes: FieldChange[] = [];
    const changed = new Set<string>();
    if (d.name !== state.name) {
      changes.push({ path: ['name'], op: 'update', before: state.name, after: d.name });
      changed.add('name');
    }
    const forces = d.listener_id !== state.listener_id;
    before.listener_id = state.listener_id;
    after.listener_id = d.listener_id;
    if (forces) changes.push({ path: ['listener_id'], op: 'update', before: state.listener_id, after: d.listener_id, forces_replacement: true });
    for (const field of IN_PLACE) {
      // A field the action does not take is the platform's (null); one the block leaves out is not managed.
      const want = d[field] === undefined ? (field.startsWith('redirect_') && field !== 'redirect_http_code' ? null : undefined) : d[field];
      if (want === undefined) continue;
      before[field] = state[field];
      after[field] = want;
      if (canonicalJson(want) === canonicalJson(state[field])) continue;
      changes.push({ path: [field], op: 'update', before: state[field], after: want });
      changed.add(field);
    }
    let removeRules: string[] = [];
    let addRules: Array<ReturnType<typeof answeredRule>> = [];
    if (d.rules !== undefined) {
      const live = (state.rules as Array<ReturnType<typeof answeredRule> & { id: string }> | undefined) ?? [];
      const wanted = new Set(d.rules.map(ruleKey));
      const have = new Set(live.map(ruleKey));
      removeRules = live.filter((r) => !wanted.has(ruleKey(r))).map((r) => r.id);
      addRules = d.rules.filter((r) => !have.has(ruleKey(r))).map(answeredRule);
      before.rules = live.map(({ id: _id, ...r }) => r);
      after.rules = d.rules.map(answeredRule);
      if (removeRules.length > 0 || addRules.length > 0) changes.push({ path: ['rules'], op: 'update', before: before.rules, after: after.rules });
    }
    const errors = adoptedReplaceErrors(changes, { idField: 'l7policy_id', id: d.l7policy_id, noun: 'L7 policy', parent: 'listener' });
    const action = forces ? 'replace' : changes.length > 0 ? 'update' : 'no-op';
    const ownChanged = changed.size > 0;
    const payload = action === 'update' ? { payload: { body: ownChanged ? patchBody(d, changed) : null, remove_rules: removeRules, add_rules: addRules } } : {};
    return { action, before, after, changes, ...payload, errors, warnings: [], notes: [] };
  },
};
