import { z } from 'zod';
import { defineOwnedCloud, tagsPatchPayload } from '../cloud-owned.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { Observation, ResourceProvider } from '../provider.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { networkImport } from './import.js';
import { networkAnswer, networkList, networkPath, type Network } from './list.js';

/** The update's payload: a new name and the tags merge patch, each only when it changes (a null patch removes every user tag). */
const payloadSchema = z.object({ name: z.string().optional(), tags_patch: tagsPatchPayload.optional() });

/** The create's payload: the POST body (CreateNetworkSerializer), its tags the user's and the two ownership tags. */
const createPayloadSchema = z.object({ name: z.string(), type: z.enum(['vxlan', 'vlan']).optional(), tags: z.record(z.string(), z.string()) });

/** The projection of a network answer into an Observation. */
function observe(net: Network): Observation & { exists: true } {
  return {
    exists: true,
    state: {
      network_id: net.id,
      name: net.name,
      network_type: net.type,
      subnets: [...net.subnets],
      tags: net.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    },
    lockTaskId: net.task_id,
  };
}

const owned = defineOwnedCloud({
  type: 'cloud_network',
  noun: 'network',
  list: networkList,
  get: async (ctx, d, id) => (await ctx.api.get(networkPath(d.project_id, d.region_id, id), { schema: networkAnswer, signal: ctx.signal })).body,
  observe,
});

/**
 * Create (`create_network`, a task whose finished answer lists the network under
 * `created_resources.networks`), the synchronous PATCH of name and tags merge patch (idempotent,
 * so repeated after a lost answer) and delete (`delete_network`, a task). A lost create answer is
 * recovered by finding the network by its ownership tags (never a second POST); a lost delete
 * answer by re-reading (gone is done). The platform refuses to delete a network that still has
 * subnets (409 naming them), which the executor reports as the resource's failure.
 */
const lifecycle = defineLifecycle('cloud_network', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (net: Network) => net.task_id },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: networkList.path(d), body: payload }),
    tasks: {
      type: 'create_network',
      reread: (ctx, { change, desired, payload: { tags } }) => owned.findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
      done: (net) => net !== null,
    },
    created: { key: 'networks', noun: 'network' },
  },
  update: {
    payload: payloadSchema,
    request: ({ desired: d, payload, id }) => ({
      method: 'PATCH',
      path: networkPath(d.project_id, d.region_id, id),
      body: { ...(payload.name === undefined ? {} : { name: payload.name }), ...(payload.tags_patch === undefined ? {} : { tags: payload.tags_patch }) },
    }),
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: networkPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_network', resend: true, reread: (ctx, { desired, id }) => owned.readOrGone(ctx, desired, id), done: (net) => net === null },
  },
});

/**
 * Cloud networks: edgeform creates them (found again by their ownership tags, as floating IPs
 * are: see cloud-owned.ts), renames them, manages their user tags and deletes them. `network_type` (the platform's `type`) is set
 * at create; a different one destroys the network and creates it again (`-/+`). The networks of
 * one project and region are read together from the list (1,000 a page).
 */
export const cloudNetwork: ResourceProvider<'cloud_network'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_network',
  read: owned.read,
  groupRead: owned.groupRead,
  import: networkImport,
  create: {
    plan: (d, ref) =>
      owned.createPlan(
        d,
        ref,
        { project_id: d.project_id, region_id: d.region_id, name: d.name, network_type: d.network_type },
        { name: d.name ?? '', ...(d.network_type === undefined ? {} : { type: d.network_type }) },
      ),
    identity: owned.create.identity,
  },
  ownership: owned.ownership((desired, state) => cloudNetwork.plan(desired, state)),
  // The platform refuses to delete a network that still has subnets (409 naming them).
  destroyBlockers: (state) => (state.subnets as string[]).map((id) => ({ id, label: `subnet ${id}` })),
  summarize: (state) => ({ network_id: state.network_id, name: state.name, network_type: state.network_type, tags: userTags(state.tags as LiveTag[]) }),
  plan: (desired, state) =>
    owned.planDiff(desired, state, [
      { field: 'name', want: desired.name, have: state.name },
      { field: 'network_type', want: desired.network_type, have: state.network_type, forces: true },
    ]),
};
