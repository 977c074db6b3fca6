import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { planTagsPatch, userTags, type LiveTag } from '../tags-merge-patch.js';
import { createPlan, onlyMatch } from '../create.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { listAll, listEndpointOf } from '../kind-list.js';
import type { Observation, Owner, OwnedResource, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineListReads } from '../list-read.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { floatingIpImport } from './import.js';
import { floatingIpAnswer, floatingIpList, floatingIpTaggedList, type FloatingIp } from './list.js';

/** The update's payload: the tags merge patch (null is a real patch: remove every user tag). */
const payloadSchema = z.object({ tags_patch: z.record(z.string(), z.string().nullable()).nullable() });

/** The create's payload: the create request's tags, the user's and the two ownership tags. */
const createPayloadSchema = z.object({ tags: z.record(z.string(), z.string()) });

/** A tag value is at most 255 characters on the platform, the address tag's included. */
const MAX_TAG_VALUE = 255;

const fipPath = (version: 'v1' | 'v2', p: number, r: number, id: string | number) => apiPath`/cloud/${version}/floatingips/${p}/${r}/${id}`;
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
  idField: 'floating_ip_id',
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (fip: FloatingIp) => fip.task_id },
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: fipListPath(d.project_id, d.region_id), body: { tags: payload.tags } }),
    tasks: {
      type: 'create_fip',
      reread: (ctx, { change, desired, payload: { tags } }) => findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
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
      reread: (ctx, { desired: d, id }) =>
        readOrGone(async () => (await ctx.api.get(fipPath('v1', d.project_id, d.region_id, id), { schema: floatingIpAnswer, signal: ctx.signal })).body),
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
