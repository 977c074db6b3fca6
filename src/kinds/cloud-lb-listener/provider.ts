import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { createPlan } from '../create.js';
import { adoptedReplaceErrors, defineChildReads, diffChildFields, onBalancer } from '../lb-family.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { listenerImport } from './import.js';
import { listenerAnswer, listenerFields, listenerList, listenerPath, type Listener } from './list.js';

type Desired = ResourceAttributes['cloud_lb_listener'];

/** Fields changed in place by the v2 PATCH (PatchLbListenerSerializer), in the vendor's names. */
const IN_PLACE = ['allowed_cidrs', 'connection_limit', 'timeout_client_data', 'timeout_member_connect', 'timeout_member_data', 'secret_id', 'sni_secret_id', 'user_list'] as const;
/** Fields set at create only: a different value replaces the listener. */
const CREATE_ONLY = ['load_balancer_id', 'protocol', 'protocol_port', 'insert_x_forwarded'] as const;

/** The connection limit as the platform answers it: -1 (no limit) is 100000. */
const answeredLimit = (limit: number | undefined) => (limit === -1 ? 100_000 : limit);

/** The platform's timeouts, answered for a null (or absent) one. */
export const DEFAULT_TIMEOUTS = { timeout_client_data: 50_000, timeout_member_connect: 5_000, timeout_member_data: 50_000 } as const;

/** A declared value as the platform answers it (-1 connections, null timeouts: the defaults). */
function answered(d: Desired, field: (typeof IN_PLACE)[number] | (typeof CREATE_ONLY)[number]): unknown {
  if (field === 'connection_limit') return answeredLimit(d.connection_limit);
  if (field in DEFAULT_TIMEOUTS && d[field] === null) return DEFAULT_TIMEOUTS[field as keyof typeof DEFAULT_TIMEOUTS];
  return d[field];
}

const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()) });

const reads = defineChildReads({
  type: 'cloud_lb_listener',
  noun: 'listener',
  list: listenerList,
  get: async (ctx, d, id) => (await ctx.api.get(listenerPath(d.project_id, d.region_id, id), { schema: listenerAnswer, signal: ctx.signal })).body,
  itemId: (l) => l.id,
  balancerOf: (l) => l.load_balancer_id ?? null,
  itemName: (l) => l.name,
  observe: (l) => ({ exists: true, state: listenerFields(l), lockTaskId: l.task_id ?? null }),
});

/** Whether a listener shows a change's result: found at all (create). */
const found = (l: Listener | null) => l !== null;

/**
 * Create (`create_lblistener`, listed under `created_resources.listeners`), the v2 PATCH
 * (`update_lblistener`) and delete (`delete_lblistener`; its pool stays on the balancer, deleted by
 * its own block first). Each waits its turn on the balancer (lb-family.ts).
 */
const lifecycle = defineLifecycle('cloud_lb_listener', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (l: Listener) => l.task_id ?? null },
  replace: true,
  create: {
    payload: payloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: listenerList.path(d), body: payload.body }),
    tasks: { type: 'create_lblistener', reread: (ctx, { desired }) => reads.findByName(ctx, desired), done: found },
    created: { key: 'listeners', noun: 'listener' },
  },
  update: {
    payload: payloadSchema,
    request: ({ desired: d, payload, id }) => ({ method: 'PATCH', path: apiPath`/cloud/v2/lblisteners/${d.project_id}/${d.region_id}/${String(id)}`, body: payload.body }),
    tasks: { type: 'update_lblistener', resend: true, reread: (ctx, { desired, id }) => reads.readOrGone(ctx, desired, String(id)), done: () => false },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: listenerPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_lblistener', resend: true, reread: (ctx, { desired, id }) => reads.readOrGone(ctx, desired, String(id)), done: (l) => l === null },
  },
});

/**
 * Listeners of cloud load balancers: a block names its `listener_id` or is found by its balancer
 * and name; every listener of a project and region is read from one list. Balancer, protocol,
 * port and X-Forwarded headers are set at create (`-/+`), the rest changes with one v2 PATCH
 * sending the declared fields that differ. With `prune: true`, listeners of a balancer the stack
 * declares that no block declares are destroyed.
 */
export const cloudLbListener: ResourceProvider<'cloud_lb_listener'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_lb_listener',
  read: reads.read,
  groupRead: reads.groupRead,
  pruneListing: reads.pruneListing,
  // The platform refuses to delete a secret a listener uses (409): a plan that destroys one this listener keeps is refused.
  usedIds: (state) => [state.secret_id, ...(state.sni_secret_id as unknown[])].filter((id): id is string => typeof id === 'string'),
  import: listenerImport,
  apply: (ctx, change) => onBalancer(ctx, change.desired, change.desired.load_balancer_id, () => lifecycle.apply(ctx, change)),
  summarize: (state) => ({
    listener_id: state.listener_id,
    load_balancer_id: state.load_balancer_id,
    name: state.name,
    protocol: state.protocol,
    protocol_port: state.protocol_port,
  }),
  create: {
    plan(d): ProviderPlan {
      const fields: Record<string, unknown> = { load_balancer_id: d.load_balancer_id, name: d.name };
      for (const field of [...CREATE_ONLY, ...IN_PLACE]) if (d[field] !== undefined) fields[field] = d[field];
      return createPlan({ project_id: d.project_id, region_id: d.region_id, ...fields }, 'listener_id', { body: fields });
    },
    identity: (d) => (d.listener_id === undefined ? `name ${JSON.stringify(d.name)} in its load balancer` : null),
  },
  plan(d, state) {
    const { before, after, changes, body } = diffChildFields(state, { idField: 'listener_id', name: d.name }, { createOnly: CREATE_ONLY, inPlace: IN_PLACE }, (field) =>
      answered(d, field),
    );
    const forced = changes.some((c) => c.forces_replacement);
    const errors = adoptedReplaceErrors(changes, { idField: 'listener_id', id: d.listener_id, noun: 'listener', parent: 'balancer' });
    const action = forced ? 'replace' : changes.length > 0 ? 'update' : 'no-op';
    return { action, before, after, changes, ...(action === 'update' ? { payload: { body } } : {}), errors, warnings: [], notes: [] };
  },
};
