import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { defineOwnedCloud, patchHolds, tagsPatchPayload } from '../cloud-owned.js';
import type { Observation, ResourceProvider } from '../provider.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { floatingIpImport } from './import.js';
import { floatingIpAnswer, floatingIpList, type FloatingIp } from './list.js';

/** The update's payload: the tags merge patch (null is a real patch: remove every user tag). */
const payloadSchema = z.object({ tags_patch: tagsPatchPayload });

/** The create's payload: the create request's tags, the user's and the two ownership tags. */
const createPayloadSchema = z.object({ tags: z.record(z.string(), z.string()) });

const fipPath = (version: 'v1' | 'v2', p: number, r: number, id: string | number) => apiPath`/cloud/${version}/floatingips/${p}/${r}/${id}`;
const fipListPath = (project_id: number, region_id: number) => floatingIpList.path({ project_id, region_id });

/** The projection of a floating IP answer into an Observation (single read, list page, identity or prune listing). */
function observe(fip: FloatingIp): Observation & { exists: true } {
  return {
    exists: true,
    state: {
      floating_ip_id: fip.id,
      floating_ip_address: fip.floating_ip_address ?? null,
      status: fip.status ?? null,
      tags: fip.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    },
    lockTaskId: fip.task_id,
  };
}

/** Reads, the find by ownership tags, the create plan, the tags diff and ownership, shared with the other owned cloud kinds. */
const owned = defineOwnedCloud({
  type: 'cloud_floating_ip',
  noun: 'floating IP',
  list: floatingIpList,
  get: async (ctx, d, id) => (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, id), { schema: floatingIpAnswer, signal: ctx.signal })).body,
  observe,
});

/**
 * Create (`create_fip`), the tags merge patch (`update_floating_ip`, v2 PATCH) and delete
 * (`delete_fip`), each answered with tasks. The create POST is never sent twice: when its answer
 * is lost, the IP is looked for by its ownership tags (an IP being created holds its create task
 * as lock, which is waited on); none found fails the resource, and the next run finds whatever the
 * platform made by the same tags. The PATCH starts a task that locks the IP, so a blind retry
 * after an answer that may have been acted on would be refused with 409: the IP is re-read
 * instead (its lock is our task, matching tags mean it already ran, otherwise the idempotent
 * patch is sent again, a few times at most). A lost delete answer is recovered the same way:
 * gone is done, an IP still there unlocked is deleted again; 404 is done.
 */
const lifecycle = defineLifecycle('cloud_floating_ip', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (fip: FloatingIp) => fip.task_id },
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: fipListPath(d.project_id, d.region_id), body: { tags: payload.tags } }),
    tasks: {
      type: 'create_fip',
      reread: (ctx, { change, desired, payload: { tags } }) => owned.findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
      done: (fip) => fip !== null,
    },
    created: { key: 'floatingips', noun: 'floating IP' },
  },
  update: {
    payload: payloadSchema,
    // `null` is a real patch (remove every user tag), so a missing patch must never default to it.
    request: ({ desired: d, payload, id }) => ({ method: 'PATCH', path: fipPath('v2', d.project_id, d.region_id, id), body: { tags: payload.tags_patch } }),
    tasks: {
      type: 'update_floating_ip',
      resend: true,
      reread: async (ctx, { desired: d, id }) => (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, id), { schema: floatingIpAnswer, signal: ctx.signal })).body,
      done: (fip, { payload }) => fip !== null && patchHolds(fip.tags, payload.tags_patch),
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: fipPath('v1', d.project_id, d.region_id, id) }),
    tasks: {
      type: 'delete_fip',
      resend: true,
      reread: (ctx, { desired, id }) => owned.readOrGone(ctx, desired, id),
      done: (fip) => fip === null,
    },
  },
});

/**
 * Cloud floating IPs: edgeform creates them, manages their tags and deletes them. Tags are
 * changed with the v2 PATCH, whose `tags` is a JSON Merge Patch (RFC 7386) and which answers with
 * tasks (an empty list when nothing would change); the deprecated synchronous v1 PATCH is never
 * used. Read-only tags belong to the platform. While a task changes the IP, `task_id` holds that
 * task (the lock). The floating IPs of one project and region are read together from the list
 * (1,000 a page).
 *
 * A block without `floating_ip_id` is found by the ownership tags its create wrote in the create
 * request itself (`edgeform-stack`, `edgeform-address`, through the list's `tag_key_value`
 * filter: the blocks of a project and region all with one list of the IPs tagged with the stack's
 * name, a block alone with both tags), so an interrupted create is found by the next run and
 * never made twice. Those tags are edgeform's: the tags diff never shows nor removes them
 * (src/kinds/tags-merge-patch.ts). Create
 * (`create_fip`) and delete (`delete_fip`) answer tasks; the created id is the finished task's
 * `created_resources.floatingips`.
 */
export const cloudFloatingIp: ResourceProvider<'cloud_floating_ip'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_floating_ip',

  read: owned.read,
  groupRead: owned.groupRead,
  import: floatingIpImport,

  create: {
    plan: (desired, ref) => owned.createPlan(desired, ref, { project_id: desired.project_id, region_id: desired.region_id }, {}),
    identity: owned.create.identity,
  },

  ownership: owned.ownership((desired, state) => cloudFloatingIp.plan(desired, state)),

  summarize: (state) => ({ floating_ip_id: state.floating_ip_id, floating_ip_address: state.floating_ip_address, tags: userTags(state.tags as LiveTag[]) }),

  plan(desired, state) {
    const live = state.tags as LiveTag[];
    const before = { floating_ip_id: state.floating_ip_id, tags: userTags(live) };
    const tags = owned.planTags(desired, live);
    return {
      action: tags.patch === undefined ? 'no-op' : 'update',
      before,
      after: tags.after === undefined ? before : { floating_ip_id: state.floating_ip_id, tags: tags.after },
      changes: tags.changes,
      ...(tags.after === undefined ? {} : { unchanged_elements: { tags: tags.unchanged } }),
      payload: tags.patch === undefined ? undefined : { tags_patch: tags.patch },
      errors: tags.errors,
      warnings: [],
      notes: tags.notes,
    };
  },
};
