import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { canonicalJson } from '../../model/fingerprint.js';
import { createPlan } from '../create.js';
import { adoptedReplaceErrors, defineChildReads, diffChildFields, onBalancer } from '../lb-family.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { poolImport } from './import.js';
import { memberKey, poolAnswer, poolFields, poolList, poolPath, type Pool } from './list.js';

type Desired = ResourceAttributes['cloud_lb_pool'];
type Member = NonNullable<Desired['members']>[number];

/** Fields changed in place by the v2 PATCH (PatchLbPoolSerializer). */
const IN_PLACE = [
  'lb_algorithm',
  'protocol',
  'session_persistence',
  'timeout_client_data',
  'timeout_member_connect',
  'timeout_member_data',
  'secret_id',
  'ca_secret_id',
  'crl_secret_id',
] as const;
/** Fields set at create only: a different value replaces the pool. */
const CREATE_ONLY = ['load_balancer_id', 'listener_id'] as const;

/** The update's payload: the PATCH body, and whether the monitor is removed first (its type cannot change in place). */
const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()), monitor_removed_first: z.boolean().optional() });
const createPayloadSchema = z.object({ body: z.record(z.string(), z.unknown()) });

/** A declared member as the platform answers it: its defaults filled in, `instance_id` left out (not answered). */
function answeredMember(m: Member): Record<string, unknown> {
  return {
    address: m.address,
    protocol_port: m.protocol_port,
    weight: m.weight ?? 1,
    ...(m.subnet_id === undefined ? {} : { subnet_id: m.subnet_id }),
    backup: m.backup ?? false,
    admin_state_up: m.admin_state_up ?? true,
    monitor_address: m.monitor_address ?? null,
    monitor_port: m.monitor_port ?? null,
  };
}

/** A live member as it compares with a declared one: its subnet only when the block names one (otherwise the platform's choice). */
function comparable(live: Record<string, unknown>, declared: Member): Record<string, unknown> {
  const { subnet_id, ...rest } = live;
  return declared.subnet_id === undefined ? rest : { ...rest, subnet_id };
}

/**
 * Whether the declared members differ from the live ones, compared as a set by address and port
 * (order does not matter): a member added or removed, or a declared setting that differs. Pure.
 */
export function membersDiffer(declared: readonly Member[], live: ReadonlyArray<Record<string, unknown>>): boolean {
  if (declared.length !== live.length) return true;
  const liveByKey = new Map(live.map((m) => [memberKey(m as { address: string; protocol_port: number }), m]));
  return declared.some((m) => {
    const have = liveByKey.get(memberKey(m));
    return have === undefined || canonicalJson(comparable(have, m)) !== canonicalJson(answeredMember(m));
  });
}

/** The live members in the declared order (those the block keeps first, by address and port), for a plan's before and after to line up. */
function liveInDeclaredOrder(declared: readonly Member[], live: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const keys = declared.map(memberKey);
  const rank = (m: Record<string, unknown>) => {
    const at = keys.indexOf(memberKey(m as { address: string; protocol_port: number }));
    return at === -1 ? keys.length : at;
  };
  return [...live].sort((a, b) => rank(a) - rank(b)).map((m, i) => (i < declared.length ? comparable(m, declared[i]!) : m));
}

/** The declared monitor fields, compared with the live monitor's: only what the block declares is managed. */
function monitorDiffers(declared: NonNullable<Desired['healthmonitor']>, live: Record<string, unknown> | null): boolean {
  if (live === null) return true;
  return Object.entries(declared).some(([k, v]) => v !== undefined && canonicalJson(v) !== canonicalJson(live[k]));
}

const reads = defineChildReads({
  type: 'cloud_lb_pool',
  noun: 'pool',
  list: poolList,
  get: async (ctx, d, id) => (await ctx.api.get(poolPath(d.project_id, d.region_id, id), { schema: poolAnswer, signal: ctx.signal })).body,
  itemId: (p) => p.id,
  balancerOf: (p) => p.loadbalancers?.[0]?.id ?? null,
  itemName: (p) => p.name,
  observe: (p) => ({ exists: true, state: poolFields(p), lockTaskId: p.task_id ?? null }),
});

/** The create body (CreateLbPoolSerializer): on the listener when the block names one, else on the balancer alone. */
function createBody(d: Desired): Record<string, unknown> {
  const body: Record<string, unknown> = { name: d.name };
  if (d.listener_id !== undefined) body.listener_id = d.listener_id;
  else body.load_balancer_id = d.load_balancer_id;
  for (const field of IN_PLACE) if (d[field] !== undefined) body[field] = d[field];
  if (d.members !== undefined) body.members = d.members;
  if (d.healthmonitor !== undefined && d.healthmonitor !== null) body.healthmonitor = d.healthmonitor;
  return body;
}

const patchPath = (d: Desired, id: string | number) => apiPath`/cloud/v2/lbpools/${d.project_id}/${d.region_id}/${String(id)}`;

/**
 * Create (`create_lbpool`, its members and monitor with it), the v2 PATCH (`update_lbpool`: the
 * fields that differ; `members` the whole new list, which keeps the members equal by address and
 * port, as the vendor documents; `healthmonitor` the whole monitor, removed first by its own PATCH
 * when its type changes) and delete (`delete_lbpool`). Each waits its turn on the balancer.
 */
const lifecycle = defineLifecycle('cloud_lb_pool', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (p: Pool) => p.task_id ?? null },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: poolList.path(d), body: payload.body }),
    tasks: { type: 'create_lbpool', reread: (ctx, { desired }) => reads.findByName(ctx, desired), done: (p) => p !== null },
    created: { key: 'pools', noun: 'pool' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'update_lbpool',
    async run(ctx, { desired: d, payload, id }, sendTasks) {
      const reread = () => reads.readOrGone(ctx, d, String(id));
      if (payload.monitor_removed_first)
        await sendTasks({ method: 'PATCH', path: patchPath(d, id), body: { healthmonitor: null } }, { resend: true, reread, done: (p) => p?.healthmonitor == null });
      return sendTasks({ method: 'PATCH', path: patchPath(d, id), body: payload.body }, { resend: true, reread, done: () => false });
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: poolPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_lbpool', resend: true, reread: (ctx, { desired, id }) => reads.readOrGone(ctx, desired, String(id)), done: (p) => p === null },
  },
});

/**
 * Pools of cloud load balancers with their members and health monitor inline: a block names its
 * `pool_id` or is found by its balancer and name; every pool of a project and region is read from
 * one list (members detailed). Members are compared as a set by address and port: a changed
 * member list is one PATCH that keeps the unchanged members, never a replace of the pool. With
 * `prune: true`, pools of a balancer the stack declares that no block declares are destroyed.
 */
export const cloudLbPool: ResourceProvider<'cloud_lb_pool'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_lb_pool',
  read: reads.read,
  groupRead: reads.groupRead,
  pruneListing: reads.pruneListing,
  // The platform refuses to delete a secret a pool uses (409): a plan that destroys one this pool keeps is refused.
  usedIds: (state) => [state.secret_id, state.ca_secret_id, state.crl_secret_id].filter((id): id is string => typeof id === 'string'),
  import: poolImport,
  apply: (ctx, change) => onBalancer(ctx, change.desired, change.desired.load_balancer_id, () => lifecycle.apply(ctx, change)),
  summarize: (state) => ({
    pool_id: state.pool_id,
    load_balancer_id: state.load_balancer_id,
    name: state.name,
    members: (state.members as Array<{ address: string; protocol_port: number }>).map(memberKey),
  }),
  create: {
    plan(d): ProviderPlan {
      const declared: Record<string, unknown> = { project_id: d.project_id, region_id: d.region_id, load_balancer_id: d.load_balancer_id, name: d.name };
      for (const field of [...CREATE_ONLY, ...IN_PLACE, 'members', 'healthmonitor'] as const) if (d[field] !== undefined) declared[field] = d[field];
      return createPlan(declared, 'pool_id', { body: createBody(d) });
    },
    identity: (d) => (d.pool_id === undefined ? `name ${JSON.stringify(d.name)} in its load balancer` : null),
  },
  plan(d, state) {
    const { before, after, changes, body } = diffChildFields(state, { idField: 'pool_id', name: d.name }, { createOnly: CREATE_ONLY, inPlace: IN_PLACE }, (field) => d[field]);
    if (d.members !== undefined) {
      const live = state.members as Array<Record<string, unknown>>;
      // Whole values, so that an address known only after apply is a value of its own (a wildcard when apply checks its plan).
      before.members = liveInDeclaredOrder(d.members, live);
      after.members = d.members.map(answeredMember);
      // One change of the whole list (a member's address may be known only after apply, so no per-member path could name it).
      if (membersDiffer(d.members, live)) {
        changes.push({ path: ['members'], op: 'update', before: before.members, after: after.members });
        body.members = d.members;
      }
    }
    let monitorRemovedFirst = false;
    if (d.healthmonitor !== undefined) {
      const live = state.healthmonitor as Record<string, unknown> | null;
      before.healthmonitor = live;
      after.healthmonitor = d.healthmonitor;
      if (d.healthmonitor === null ? live !== null : monitorDiffers(d.healthmonitor, live)) {
        changes.push({ path: ['healthmonitor'], op: live === null ? 'add' : d.healthmonitor === null ? 'remove' : 'update', before: live, after: d.healthmonitor });
        body.healthmonitor = d.healthmonitor;
        monitorRemovedFirst = live !== null && d.healthmonitor !== null && live.type !== d.healthmonitor.type;
      }
    }
    const forced = changes.filter((c) => c.forces_replacement);
    const errors = adoptedReplaceErrors(changes, { idField: 'pool_id', id: d.pool_id, noun: 'pool', parent: 'balancer' });
    const action = forced.length > 0 ? 'replace' : changes.length > 0 ? 'update' : 'no-op';
    const notes = monitorRemovedFirst ? ['the health monitor type changes: the monitor is removed, then the new one added (two PATCHes)'] : [];
    const payload = action === 'update' ? { body, ...(monitorRemovedFirst ? { monitor_removed_first: true } : {}) } : undefined;
    return { action, before, after, changes, ...(payload ? { payload } : {}), errors, warnings: [], notes };
  },
};
