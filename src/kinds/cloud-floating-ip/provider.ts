import { z } from 'zod';
import { NotFoundError } from '../../api/errors.js';
import { apiPath } from '../../api/path.js';
import { taskIdsSchema } from '../../api/tasks.js';
import { PlanPayloadError } from '../../errors.js';
import { planTagsPatch, userTags, type LiveTag } from '../../plan/merge-patch.js';
import type { ResourceChange } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { listAll, listEndpointOf } from '../kind-list.js';
import type { FinishedTask, Observation, Owner, OwnedResource, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineListReads } from '../list-read.js';
import { readOrGone, requirePayload, startTasks, type Recovery } from '../shared.js';
import { floatingIpImport } from './import.js';
import { floatingIpAnswer, floatingIpList, floatingIpTaggedList, type FloatingIp } from './list.js';

/** The update's payload: the tags merge patch (null is a real patch: remove every user tag). */
const payloadSchema = z.object({ tags_patch: z.record(z.string(), z.string().nullable()).nullable() });

/** The create's payload: the create request's tags, the user's and the two ownership tags. */
const createPayloadSchema = z.object({ tags: z.record(z.string(), z.string()) });

/**
 * What edgeform reads of the task that created a floating IP: the ids it lists under
 * `created_resources.floatingips` (CreatedResources). Anything else there is not edgeform's.
 */
const createdResources = z.looseObject({ created_resources: z.looseObject({ floatingips: z.array(z.string()).optional() }).nullish() });

/** A tag value is at most 255 characters on the platform, the address tag's included. */
const MAX_TAG_VALUE = 255;

const fipPath = (version: 'v1' | 'v2', p: number, r: number, id: string) => apiPath`/cloud/${version}/floatingips/${p}/${r}/${id}`;
const fipListPath = (project_id: number, region_id: number) => floatingIpList.path({ project_id, region_id });

/** The identity of a block without an id, as the plan shows it: the ownership tags naming its stack. */
const ownershipIdentity = (stack: string | null) => `ownership tags of stack ${JSON.stringify(stack ?? '')}`;

/** The value of a tag on a floating IP, or undefined. */
const tagValue = (fip: FloatingIp, key: string) => fip.tags.find((t) => t.key === key)?.value;

/**
 * Every floating IP of a project and region the list's `filter` picks (`tag_key_value`, a JSON
 * object of key → value, or `tag_key`, a key), page after page (1,000 a page). The platform's
 * answer is checked again here with `keep`: an item that does not carry the tags is never taken
 * for one that does.
 */
async function listTagged(
  ctx: ProviderContext,
  projectId: number,
  regionId: number,
  filter: { tag_key_value: string } | { tag_key: string },
  keep: (fip: FloatingIp) => boolean,
): Promise<FloatingIp[]> {
  return (await listAll(ctx, floatingIpTaggedList, { project_id: projectId, region_id: regionId, filter }, (fip) => fip.id)).filter(keep);
}

/** Every floating IP of a project and region carrying each key → value of `wanted`. */
function listCarrying(ctx: ProviderContext, projectId: number, regionId: number, wanted: Readonly<Record<string, string>>): Promise<FloatingIp[]> {
  return listTagged(ctx, projectId, regionId, { tag_key_value: JSON.stringify(wanted) }, (fip) => Object.entries(wanted).every(([key, value]) => tagValue(fip, key) === value));
}

/** The ownership tags a floating IP's tags carry (user tags only), or null without `edgeform-stack`. */
function ownerOf(tags: readonly LiveTag[]): Owner | null {
  const value = (key: string) => tags.find((t) => t.key === key && !t.read_only)?.value;
  const stack = value(STACK_TAG);
  return stack === undefined ? null : { stack, address: value(ADDRESS_TAG) ?? '' };
}

/** Whether a merge patch holds on these tags: each key set to its value or absent, `null` leaving only read-only tags. */
function patchHolds(tags: readonly LiveTag[], patch: Record<string, string | null> | null): boolean {
  if (patch === null) return tags.every((t) => t.read_only);
  return Object.entries(patch).every(([key, value]) => {
    const tag = tags.find((t) => t.key === key);
    return value === null ? tag === undefined || tag.read_only : tag?.value === value;
  });
}

/** The platform id a change acts on: the block's own, or the one its identity found (in `before`). */
function targetId(change: ResourceChange<'cloud_floating_ip'>): string {
  const id = change.desired.floating_ip_id ?? change.before?.floating_ip_id;
  if (typeof id !== 'string' || id === '') throw new PlanPayloadError(change, 'the change names no floating_ip_id (neither the block nor what its identity found)');
  return id;
}

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

/**
 * Finds a block without an id by its ownership tags (edgeform-stack = the stack's name,
 * edgeform-address = its address) in its project and region; more than one is ambiguous.
 */
async function findOwned(ctx: ProviderContext, d: ResourceAttributes['cloud_floating_ip'], ref: ResourceRef): Promise<FloatingIp | null> {
  if (ref.stack === null) return null;
  const matches = await listCarrying(ctx, d.project_id, d.region_id, { [STACK_TAG]: ref.stack, [ADDRESS_TAG]: ref.address });
  return onlyMatch(matches, (fip) => fip.id, { type: 'cloud_floating_ip', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})`, idField: 'floating_ip_id' });
}

/** Reads one floating IP (GET) or the floating IPs of a project and region (the list), with one projection; a block without id by its tags. */
const reads = defineListReads<'cloud_floating_ip', FloatingIp>({
  readOne: (ctx, d) =>
    readOrGone(async () => (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, d.floating_ip_id ?? ''), { schema: floatingIpAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, fip) => observe(fip),
  async find(ctx, d, ref) {
    const fip = await findOwned(ctx, d, ref);
    return fip === null ? null : { item: fip, foundBy: ownershipIdentity(ref.stack) };
  },
  hasId: (d) => d.floating_ip_id !== undefined,
  // The blocks of a project and region found by their ownership tags: one list of the IPs tagged
  // with the stack's name (edgeform-stack), each block picked by its address (edgeform-address).
  findInList: {
    key: (_d, ref) => ref.address,
    itemKey: (fip) => tagValue(fip, ADDRESS_TAG),
    pick(_d, matches, ref) {
      const fip = onlyMatch(
        matches.filter((m) => tagValue(m, STACK_TAG) === ref.stack),
        (m) => m.id,
        { type: 'cloud_floating_ip', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})`, idField: 'floating_ip_id' },
      );
      return fip === null ? null : { item: fip, foundBy: ownershipIdentity(ref.stack) };
    },
    list: {
      paging: floatingIpTaggedList.paging,
      canMatch: ([ref]) => ref?.stack !== null && ref?.stack !== undefined,
      describe: ([d]) => `GET ${fipListPath(d.project_id, d.region_id)}`,
      fetchPage: (ctx, [d], [ref], page) =>
        floatingIpTaggedList.fetchPage(ctx, { project_id: d.project_id, region_id: d.region_id, filter: { tag_key_value: JSON.stringify({ [STACK_TAG]: ref!.stack }) } }, page),
    },
  },
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.floating_ip_id ?? '',
    itemId: (fip) => fip.id,
    ...listEndpointOf(floatingIpList, ([d]) => d),
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
 * never made twice. Those tags are
 * edgeform's: the tags diff never shows nor removes them (src/plan/merge-patch.ts). Create
 * (`create_fip`) and delete (`delete_fip`) answer tasks; the created id is the finished task's
 * `created_resources.floatingips`.
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

  create: {
    plan(desired, ref) {
      const declared = Object.fromEntries(Object.entries(desired.tags ?? {}).filter((entry): entry is [string, string] => entry[1] !== null));
      const errors =
        ref.stack === null
          ? [
              {
                summary: "a floating IP without floating_ip_id is created with ownership tags, which need the stack's name",
                detail: 'Add "name: <stack name>" at the top of the stack.',
              },
            ]
          : ref.address.length > MAX_TAG_VALUE
            ? [{ summary: `the address is longer than ${MAX_TAG_VALUE} characters, the most a tag value (${ADDRESS_TAG}) can hold` }]
            : [];
      const ownership = { [STACK_TAG]: ref.stack ?? '', [ADDRESS_TAG]: ref.address };
      return createPlan(
        { project_id: desired.project_id, region_id: desired.region_id, ...(desired.tags === undefined ? {} : { tags: declared }) },
        'floating_ip_id',
        { tags: { ...declared, ...ownership } },
        { errors, notes: [`the create request tags it ${STACK_TAG}=${ownership[STACK_TAG]}, ${ADDRESS_TAG}=${ref.address} (ownership tags, never shown as drift)`] },
      );
    },
    identity: (desired, ref) => (desired.floating_ip_id === undefined ? ownershipIdentity(ref.stack) : null),
  },

  ownership: {
    owner: (state) => ownerOf(state.tags as LiveTag[]),
    place: (d) => `${d.project_id}/${d.region_id}`,
    claim: (desired, state, ref) => claimFloatingIp(cloudFloatingIp.plan(desired, state), state.tags as LiveTag[], ref),
    async list(ctx, declared) {
      const places = new Map(declared.map((d) => [`${d.project_id}/${d.region_id}`, { projectId: d.project_id, regionId: d.region_id }]));
      const owned: OwnedResource<'cloud_floating_ip'>[] = [];
      for (const [place, { projectId, regionId }] of places) {
        for (const fip of await listTagged(ctx, projectId, regionId, { tag_key: STACK_TAG }, (f) => ownerOf(f.tags) !== null)) {
          owned.push({
            ...ownerOf(fip.tags)!,
            place,
            desired: { project_id: projectId, region_id: regionId, floating_ip_id: fip.id, tags_policy: 'authoritative', ensure: 'absent' },
            observation: observe(fip),
          });
        }
      }
      return owned;
    },
  },

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
    switch (change.action) {
      case 'create':
        return createFloatingIp(ctx, change);
      case 'update':
        return updateTags(ctx, change);
      case 'delete':
        return deleteFloatingIp(ctx, change);
      default:
        throw new PlanPayloadError(change, `a cloud_floating_ip is created, updated or deleted, never ${change.action}`);
    }
  },
};

/**
 * The diff of a floating IP turned into a move: the same user tag changes, and a tags merge patch
 * that also writes `ref`'s ownership tags when the live ones name another stack or address. A
 * patch that would remove every user tag (`null`) is sent key by key, so the new ownership tags stay.
 */
function claimFloatingIp(planned: ProviderPlan, live: readonly LiveTag[], ref: ResourceRef): ProviderPlan {
  const current = ownerOf(live);
  if (planned.errors.length > 0 || ref.stack === null || (current?.stack === ref.stack && current.address === ref.address)) return planned;
  const parsed = payloadSchema.safeParse(planned.payload);
  const patch = parsed.success ? parsed.data.tags_patch : undefined;
  const base = patch === null ? Object.fromEntries(userTagKeys(live).map((key) => [key, null])) : { ...patch };
  const from = current === null ? 'none' : `${STACK_TAG}=${current.stack}, ${ADDRESS_TAG}=${current.address}`;
  return {
    ...planned,
    action: 'update',
    payload: { tags_patch: { ...base, [STACK_TAG]: ref.stack, [ADDRESS_TAG]: ref.address } },
    notes: [
      ...planned.notes.filter(() => patch !== null),
      `the ownership tags are rewritten: ${from} -> ${STACK_TAG}=${ref.stack}, ${ADDRESS_TAG}=${ref.address}; nothing is created or destroyed`,
    ],
  };
}

/** The keys of the user tags (not read-only, not ownership tags) of a live tag list. */
function userTagKeys(live: readonly LiveTag[]): string[] {
  return Object.keys(userTags(live));
}

/**
 * POST the create with the ownership tags and wait on its task. The POST is never sent twice:
 * when its answer is lost, the floating IP is looked for by its tags (an IP being created holds
 * its create task as lock, which is waited on); none found fails the resource, and the next run
 * finds whatever the platform made by the same tags.
 */
async function createFloatingIp(ctx: ProviderContext, change: ResourceChange<'cloud_floating_ip'>) {
  const d = change.desired;
  const { tags } = requirePayload(change, createPayloadSchema);
  const ref: ResourceRef = { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null };
  const finished: FinishedTask[] = [];
  const waiting: ProviderContext = {
    ...ctx,
    async waitForTasks(ids, options) {
      const done = await ctx.waitForTasks(ids, options);
      finished.push(...done);
      return done;
    },
  };
  const result = await startTasks(
    waiting,
    async () => (await ctx.api.post(fipListPath(d.project_id, d.region_id), { tags }, { schema: taskIdsSchema, retry: 'never-reached-only', signal: ctx.signal })).body,
    async (): Promise<Recovery> => {
      const fip = await findOwned(ctx, d, ref);
      if (fip === null) return { kind: 'not-started' };
      return fip.task_id ? { kind: 'running', taskId: fip.task_id } : { kind: 'done' };
    },
    'create_fip',
    { scope: { projectId: d.project_id, regionId: d.region_id } },
  );
  const created = finished.flatMap((task) => createdResources.safeParse(task).data?.created_resources?.floatingips ?? []);
  if (created.length > 0) ctx.progress(`created floating IP ${created.join(', ')}`);
  return result;
}

/** The v2 PATCH of the tags merge patch, waiting on its task (see the recovery below). */
async function updateTags(ctx: ProviderContext, change: ResourceChange<'cloud_floating_ip'>) {
  const d = change.desired;
  const id = targetId(change);
  const path = fipPath('v2', d.project_id, d.region_id, id);
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
      const fip = (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, id), { schema: floatingIpAnswer, signal: ctx.signal })).body;
      if (fip.task_id) return { kind: 'running', taskId: fip.task_id };
      return patchHolds(fip.tags, body.tags) ? { kind: 'done' } : { kind: 'not-started' };
    },
    'update_floating_ip',
    { resendIfNotStarted: true, scope: { projectId: d.project_id, regionId: d.region_id } },
  );
}

/**
 * DELETE and wait on its task; 404 (already gone) is done. A lost answer is recovered by
 * re-reading: gone is done, a lock is waited on, an IP still there unlocked is deleted again.
 */
async function deleteFloatingIp(ctx: ProviderContext, change: ResourceChange<'cloud_floating_ip'>) {
  const d = change.desired;
  const id = targetId(change);
  const path = fipPath('v1', d.project_id, d.region_id, id);
  return startTasks(
    ctx,
    async () => {
      try {
        return (await ctx.api.delete(path, { schema: taskIdsSchema, retry: 'never-reached-only', signal: ctx.signal })).body;
      } catch (error) {
        if (error instanceof NotFoundError) return { tasks: [] };
        throw error;
      }
    },
    async () => {
      const fip = await readOrGone(async () => (await ctx.api.get(path, { schema: floatingIpAnswer, signal: ctx.signal })).body);
      if (fip === null) return { kind: 'done' };
      return fip.task_id ? { kind: 'running', taskId: fip.task_id } : { kind: 'not-started' };
    },
    'delete_fip',
    { resendIfNotStarted: true, scope: { projectId: d.project_id, regionId: d.region_id } },
  );
}
