import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { PlanPayloadError } from '../../errors.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineListReads } from '../list-read.js';
import { listEndpointOf } from '../kind-list.js';
import { instanceImport } from './import.js';
import { instanceAnswer, instanceList, type Instance } from './list.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';

/** The flavors an instance may be resized to (InstanceFlavorExtendedCollectionSerializer). */
const flavorsAnswer = z.looseObject({
  results: z.array(z.looseObject({ flavor_id: z.string().optional(), flavor_name: z.string().optional() })),
});

/** The update's payload: the flavor to resize to. */
const payloadSchema = z.object({ flavor_id: z.string().min(1) });

const instancePath = (p: number, r: number, id: string) => apiPath`/cloud/v1/instances/${p}/${r}/${id}`;

/**
 * The flavors each instance offered at its flavor, as read in this run: per API client (one
 * client serves one run), by instance and the flavor it had. An instance is asked once a run
 * what it may be resized to from a flavor: the plan asks, and apply's read before the resize
 * and its re-reads while the new flavor does not show yet reuse the answer. What apply sends is
 * still only ever the approved change from the flavor the plan saw (the fresh read must show
 * that flavor); a flavor the platform withdrew since then is refused by changeflavor itself.
 */
const offered = new WeakMap<object, Map<string, string[]>>();

async function availableFlavors(ctx: ProviderContext, d: ResourceAttributes['cloud_instance'], currentFlavor: string): Promise<string[]> {
  let seen = offered.get(ctx.api);
  if (!seen) {
    seen = new Map();
    offered.set(ctx.api, seen);
  }
  const key = JSON.stringify([d.project_id, d.region_id, d.instance_id, currentFlavor]);
  const known = seen.get(key);
  if (known) return [...known];
  const path = `${instancePath(d.project_id, d.region_id, d.instance_id)}/available_flavors`;
  const flavors = (await ctx.api.get(path, { schema: flavorsAnswer, signal: ctx.signal })).body;
  const ids = flavors.results.map((f) => f.flavor_id ?? f.flavor_name).filter((f): f is string => f !== undefined);
  seen.set(key, ids);
  return [...ids];
}

/** Reads one instance (GET) or the instances of a project and region (the list), with one projection. */
const reads = defineListReads<'cloud_instance', Instance>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(instancePath(d.project_id, d.region_id, d.instance_id), { schema: instanceAnswer, signal: ctx.signal })).body),
  async project(ctx, desired, vm) {
    const state: Record<string, unknown> = { instance_id: vm.id, name: vm.name, status: vm.status, flavor_id: vm.flavor.flavor_id };
    // Only a resize needs the list of flavors the instance may move to.
    if (vm.flavor.flavor_id !== desired.flavor_id) state.available_flavors = await availableFlavors(ctx, desired, vm.flavor.flavor_id);
    return { exists: true, state, lockTaskId: vm.task_id };
  },
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.instance_id,
    itemId: (vm) => vm.id,
    ...listEndpointOf(instanceList, ([d]) => d),
  },
});

/** A resize: changeflavor starts a `resize_vm` task and is never sent twice; after an unknown outcome the instance is re-read. */
const lifecycle = defineLifecycle('cloud_instance', {
  idField: 'instance_id',
  updateVerbs: ['Resizing', 'Resized'],
  tasks: { scope: cloudTaskScope, lock: (vm: Instance) => vm.task_id },
  update: {
    payload: payloadSchema,
    request({ change, desired: d, payload: { flavor_id } }) {
      if (flavor_id !== d.flavor_id) throw new PlanPayloadError(change, `payload.flavor_id "${flavor_id}" is not the desired flavor_id "${d.flavor_id}"`);
      return { method: 'POST', path: `${instancePath(d.project_id, d.region_id, d.instance_id)}/changeflavor`, body: { flavor_id } };
    },
    tasks: {
      type: 'resize_vm',
      reread: async (ctx, { desired: d }) => (await ctx.api.get(instancePath(d.project_id, d.region_id, d.instance_id), { schema: instanceAnswer, signal: ctx.signal })).body,
      done: (vm, { payload }) => vm?.flavor.flavor_id === payload.flavor_id,
    },
  },
});

/**
 * Cloud instances: edgeform manages their flavor. The flavor lives at `flavor.flavor_id`;
 * a resize (changeflavor) is allowed only to a flavor listed by `available_flavors`, runs as
 * a `resize_vm` task (status RESIZE meanwhile), and the new flavor can read as the old one
 * for a short while after the task FINISHED, so apply re-reads until it shows. The instances
 * of one project and region are read together from the list (1,000 a page).
 */
export const cloudInstance: ResourceProvider<'cloud_instance'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_instance',

  read: reads.read,
  groupRead: reads.groupRead,
  import: instanceImport,

  summarize: (state) => ({ instance_id: state.instance_id, name: state.name, flavor_id: state.flavor_id }),

  plan(desired, state) {
    const before = { instance_id: state.instance_id, flavor_id: state.flavor_id };
    const after = { instance_id: state.instance_id, flavor_id: desired.flavor_id };
    if (state.flavor_id === desired.flavor_id) return { action: 'no-op', before, after, changes: [], errors: [], warnings: [], notes: [] };
    const available = (state.available_flavors as string[] | undefined) ?? [];
    if (!available.includes(desired.flavor_id)) {
      return {
        action: 'no-op',
        before,
        after,
        changes: [],
        errors: [
          {
            field: 'flavor_id',
            summary: `flavor "${desired.flavor_id}" is not available for instance ${String(state.name)}`,
            detail: `Flavors this instance can be resized to: ${available.length > 0 ? available.join(', ') : 'none'}.`,
          },
        ],
        warnings: [],
        notes: [],
      };
    }
    return {
      action: 'update',
      before,
      after,
      changes: [{ path: ['flavor_id'], op: 'update', before: state.flavor_id, after: desired.flavor_id }],
      payload: { flavor_id: desired.flavor_id },
      errors: [],
      warnings: [],
      notes: [],
    };
  },
};
