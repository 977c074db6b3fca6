import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { taskIdsSchema } from '../../api/tasks.js';
import { planTagsPatch, userTags, type LiveTag } from '../../plan/merge-patch.js';
import type { ResourceProvider } from '../provider.js';
import { defineListReads } from '../list-read.js';
import { listEndpointOf } from '../kind-list.js';
import { floatingIpImport } from './import.js';
import { floatingIpAnswer, floatingIpList, type FloatingIp } from './list.js';
import { readOrGone, requireAction, requirePayload, startTasks } from '../shared.js';

/** The update's payload: the tags merge patch (null is a real patch: remove every user tag). */
const payloadSchema = z.object({ tags_patch: z.record(z.string(), z.string().nullable()).nullable() });

const fipPath = (version: 'v1' | 'v2', p: number, r: number, id: string) => apiPath`/cloud/${version}/floatingips/${p}/${r}/${id}`;

/** Reads one floating IP (GET) or the floating IPs of a project and region (the list), with one projection. */
const reads = defineListReads<'cloud_floating_ip', FloatingIp>({
  readOne: (ctx, d) =>
    readOrGone(async () => (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, d.floating_ip_id), { schema: floatingIpAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, fip) => ({
    exists: true,
    state: {
      floating_ip_id: fip.id,
      floating_ip_address: fip.floating_ip_address ?? null,
      status: fip.status ?? null,
      tags: fip.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    },
    lockTaskId: fip.task_id,
  }),
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.floating_ip_id,
    itemId: (fip) => fip.id,
    ...listEndpointOf(floatingIpList, ([d]) => d),
  },
});

/**
 * Cloud floating IPs: edgeform manages their tags. Tags are changed with the v2 PATCH, whose
 * `tags` is a JSON Merge Patch (RFC 7386) and which answers with tasks (an empty list when
 * nothing would change); the deprecated synchronous v1 PATCH is never used. Read-only tags
 * belong to the platform. While a task changes the IP, `task_id` holds that task (the lock).
 * The floating IPs of one project and region are read together from the list (1,000 a page).
 */
export const cloudFloatingIp: ResourceProvider<'cloud_floating_ip'> = {
  payloadSchema,
  kind: 'resource',
  type: 'cloud_floating_ip',
  idField: 'floating_ip_id',
  taskType: 'update_floating_ip',
  verbs: { update: ['Modifying', 'Modified'], delete: ['Destroying', 'Destroyed'] },

  read: reads.read,
  groupRead: reads.groupRead,
  import: floatingIpImport,

  summarize: (state) => ({ floating_ip_id: state.floating_ip_id, floating_ip_address: state.floating_ip_address, tags: userTags(state.tags as LiveTag[]) }),

  plan(desired, state) {
    const live = state.tags as LiveTag[];
    const before = { floating_ip_id: state.floating_ip_id, tags: userTags(live) };
    if (desired.tags === undefined) return { action: 'no-op', before, after: before, changes: [], errors: [], warnings: [], notes: [] };
    const tags = planTagsPatch(live, desired.tags, desired.tags_policy);
    const errors = tags.readOnlyKeys.map((key) => ({
      field: 'tags',
      summary: `tag "${key}" is read-only on the platform and cannot be set or removed`,
      detail: `Remove "${key}" from tags; the platform keeps read-only tags as they are.`,
    }));
    return {
      action: tags.patch === undefined ? 'no-op' : 'update',
      before,
      after: { floating_ip_id: state.floating_ip_id, tags: tags.after },
      changes: tags.changes,
      unchanged_elements: { tags: tags.unchanged },
      payload: tags.patch === undefined ? undefined : { tags_patch: tags.patch },
      errors,
      warnings: [],
      notes: tags.patch === null ? ['every user tag is removed with "tags": null; read-only tags stay'] : [],
    };
  },

  async apply(ctx, change) {
    requireAction(change, 'update');
    const d = change.desired;
    const path = fipPath('v2', d.project_id, d.region_id, d.floating_ip_id);
    // `null` is a real patch (remove every user tag), so a missing patch must never default to it.
    const body = { tags: requirePayload(change, payloadSchema).tags_patch };
    // The PATCH starts a task that locks the IP, so a blind retry after an answer that may have
    // been acted on (lost answer, 408/500/502/504) would be refused with 409. The IP is re-read
    // instead: its lock is our task (wait for it), matching tags mean it already ran, and
    // otherwise the patch, being idempotent, is sent again (a few times at most).
    return startTasks(
      ctx,
      async () => (await ctx.api.patch(path, body, { schema: taskIdsSchema, retry: 'never-reached-only', signal: ctx.signal })).body,
      async () => {
        const fip = (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, d.floating_ip_id), { schema: floatingIpAnswer, signal: ctx.signal })).body;
        if (fip.task_id) return { kind: 'running', taskId: fip.task_id };
        return d.tags === undefined || planTagsPatch(fip.tags, d.tags, d.tags_policy).patch === undefined ? { kind: 'done' } : { kind: 'not-started' };
      },
      'update_floating_ip',
      { resendIfNotStarted: true, scope: { projectId: d.project_id, regionId: d.region_id } },
    );
  },
};
