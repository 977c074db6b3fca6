import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineOwnedCloud, tagsPatchPayload } from '../cloud-owned.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { balancerPath, onBalancer } from '../lb-family.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { Observation, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { balancerImport } from './import.js';
import { balancerAnswer, balancerFields, balancerList, type Balancer } from './list.js';

type Desired = ResourceAttributes['cloud_load_balancer'];

/** A balancer's logging as a request sends it (LoadbalancerLoggingSerializer). */
const loggingBody = z.object({
  enabled: z.boolean().optional(),
  destination_region_id: z.int().nullable().optional(),
  topic_name: z.string().nullable().optional(),
  retention_policy: z.object({ period: z.int().nullable() }).nullable().optional(),
});

/** The update's payload: what the v2 PATCH changes (name, logging, tags merge patch) and a new flavor (a resize), each only when it differs. */
const payloadSchema = z.object({
  name: z.string().optional(),
  logging: loggingBody.optional(),
  flavor: z.string().optional(),
  tags_patch: tagsPatchPayload.optional(),
});

/** The create's payload: the POST body (CreateLoadbalancerSerializer), its tags the user's and the ownership tags. */
const createPayloadSchema = z.object({
  name: z.string(),
  flavor: z.string().optional(),
  vip_network_id: z.string().optional(),
  vip_subnet_id: z.string().optional(),
  vip_ip_family: z.enum(['ipv4', 'ipv6', 'dual']).optional(),
  floating_ip: z.object({ source: z.literal('existing'), existing_floating_id: z.string() }).optional(),
  logging: loggingBody.optional(),
  tags: z.record(z.string(), z.string()),
});

/** The projection of a balancer answer into an Observation. */
function observe(lb: Balancer): Observation & { exists: true } {
  return {
    exists: true,
    state: { ...balancerFields(lb), tags: lb.tags.map(({ key, value, read_only }) => ({ key, value, read_only })) },
    lockTaskId: lb.task_id ?? null,
  };
}

const owned = defineOwnedCloud({
  type: 'cloud_load_balancer',
  noun: 'load balancer',
  list: balancerList,
  get: async (ctx, d, id) => (await ctx.api.get(balancerPath(d.project_id, d.region_id, id), { schema: balancerAnswer, signal: ctx.signal })).body,
  observe,
});

/** The logging a block declares, as a request sends it (its retention period as the vendor's `retention_policy`). */
function loggingRequest(logging: NonNullable<Desired['logging']>): z.infer<typeof loggingBody> {
  const { retention_period, ...rest } = logging;
  return { ...rest, ...(retention_period === undefined ? {} : { retention_policy: retention_period === null ? null : { period: retention_period } }) };
}

/** The logging fields a block declares, with the live values of those it does not (a PATCH sends the whole setting). */
function loggingWanted(declared: Desired['logging'], live: Record<string, unknown>): Record<string, unknown> | undefined {
  return declared === undefined ? undefined : { ...live, ...Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== undefined)) };
}

/** The fields a create sends besides its tags (the platform's defaults for the others). */
function createBody(d: Desired): Record<string, unknown> {
  const fields = {
    name: d.name ?? '',
    flavor: d.flavor,
    vip_network_id: d.vip_network_id,
    vip_subnet_id: d.vip_subnet_id,
    vip_ip_family: d.vip_ip_family,
    floating_ip: d.floating_ip_id === undefined ? undefined : { source: 'existing', existing_floating_id: d.floating_ip_id },
    logging: d.logging === undefined ? undefined : loggingRequest(d.logging),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The path of a balancer's v2 PATCH (the v1 PATCH is deprecated). */
const patchPath = (d: Desired, id: string | number) => apiPath`/cloud/v2/loadbalancers/${d.project_id}/${d.region_id}/${String(id)}`;

/**
 * Create (`create_loadbalancer`, a task listing the balancer under
 * `created_resources.loadbalancers`), update (the v2 PATCH of name, logging and tags merge patch,
 * task `update_loadbalancer`, then a resize, task `resize_loadbalancer`, when the flavor differs)
 * and delete (`delete_loadbalancer`, which takes its listeners and pools with it). Every write
 * waits its turn on the balancer (lb-family.ts).
 */
const lifecycle = defineLifecycle('cloud_load_balancer', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (lb: Balancer) => lb.task_id ?? null },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: balancerList.path(d), body: payload }),
    tasks: {
      type: 'create_loadbalancer',
      reread: (ctx, { change, desired, payload: { tags } }) => owned.findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
      done: (lb) => lb !== null,
    },
    created: { key: 'loadbalancers', noun: 'load balancer' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'update_loadbalancer',
    async run(ctx, { desired: d, payload: { flavor, tags_patch, ...fields }, id }, sendTasks) {
      const reread = () => owned.readOrGone(ctx, d, id);
      let result;
      if (Object.keys(fields).length > 0 || tags_patch !== undefined) {
        const body = { ...fields, ...(tags_patch === undefined ? {} : { tags: tags_patch }) };
        result = await sendTasks({ method: 'PATCH', path: patchPath(d, id), body }, { resend: true, reread, done: () => false });
      }
      if (flavor !== undefined) {
        result = await sendTasks(
          { method: 'POST', path: `${balancerPath(d.project_id, d.region_id, String(id))}/resize`, body: { flavor } },
          { reread, done: (lb) => lb?.flavor?.flavor_name === flavor || lb?.flavor?.flavor_id === flavor },
        );
      }
      return result;
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: balancerPath(d.project_id, d.region_id, String(id)) }),
    tasks: { type: 'delete_loadbalancer', resend: true, reread: (ctx, { desired, id }) => owned.readOrGone(ctx, desired, id), done: (lb) => lb === null },
  },
});

/**
 * Cloud load balancers: edgeform creates them (VIP on a network and subnet, or external; a
 * floating IP on the VIP), found again by their ownership tags (the create's `tags`, answered as
 * `tags_v2`); name, logging and user tags change in place, a different flavor resizes, a different
 * VIP subnet, family or floating IP replaces. The balancers of one project and region are read
 * together from the list (1,000 a page).
 */
export const cloudLoadBalancer: ResourceProvider<'cloud_load_balancer'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_load_balancer',
  read: owned.read,
  groupRead: owned.groupRead,
  import: balancerImport,
  apply: (ctx, change) =>
    onBalancer(ctx, change.desired, change.desired.load_balancer_id ?? (change.before?.load_balancer_id as string | undefined), () => lifecycle.apply(ctx, change)),
  create: {
    plan: (d, ref): ProviderPlan => {
      const { floating_ip: _floating, logging: _logging, ...body } = createBody(d);
      const declared = { project_id: d.project_id, region_id: d.region_id, ...body, floating_ip_id: d.floating_ip_id, logging: d.logging };
      return owned.createPlan(d, ref, Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== undefined)), createBody(d));
    },
    identity: owned.create.identity,
  },
  ownership: owned.ownership((desired, state) => cloudLoadBalancer.plan(desired, state)),
  summarize: (state) => ({
    load_balancer_id: state.load_balancer_id,
    name: state.name,
    flavor: state.flavor,
    vip_address: state.vip_address,
    tags: userTags(state.tags as LiveTag[]),
  }),
  plan(d, state) {
    const liveLogging = state.logging as Record<string, unknown>;
    const wantLogging = loggingWanted(d.logging, liveLogging);
    const floatingIds = state.floating_ip_ids as string[];
    const plan = owned.planDiff(d, state, [
      { field: 'name', want: d.name, have: state.name },
      { field: 'flavor', want: d.flavor, have: state.flavor },
      { field: 'vip_subnet_id', want: d.vip_subnet_id, have: state.vip_subnet_id, forces: true },
      { field: 'vip_ip_family', want: d.vip_ip_family, have: state.vip_ip_family, forces: true },
      // The answer lists every floating IP on the VIP port: the declared one must be among them.
      {
        field: 'floating_ip_id',
        want: d.floating_ip_id,
        have: d.floating_ip_id !== undefined && floatingIds.includes(d.floating_ip_id) ? d.floating_ip_id : (floatingIds[0] ?? null),
        forces: true,
      },
      { field: 'logging', want: wantLogging, have: liveLogging },
    ]);
    if (plan.payload && 'logging' in plan.payload) plan.payload.logging = loggingRequest(d.logging!);
    return plan;
  },
};
