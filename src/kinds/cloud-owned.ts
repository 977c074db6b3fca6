import { must } from '../errors.js';
import { z } from 'zod';
import { createPlan, onlyMatch } from './create.js';
import { ADDRESS_TAG, isOwnershipTag, MARK_TAG, STACK_TAG, type TagsPolicy } from './fields.js';
import { unprovenReason, type OwnerSeal } from './owner-seal.js';
import { type CloudScope, fetchListPage, type KindList, listAll, listEndpointOf } from './kind-list.js';
import { defineListReads } from './list-read.js';
import type { FieldChange } from '../plan/types.js';
import { canonicalJson } from '../model/fingerprint.js';
import type { Observation, Owner, OwnedResource, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from './provider.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from './registry.js';
import { readOrGone } from './shared.js';
import { planTagsPatch, userTags, type LiveTag } from './tags-merge-patch.js';

/**
 * What the cloud kinds found by ownership tags share (floating IPs, networks, subnets): a block
 * without its platform id is found by the tags its create wrote in the create request itself
 * (`edgeform-stack` = the stack's name, `edgeform-address` = its address), through the list's
 * `tag_key_value` filter: the blocks of one project and region all with one list of the resources
 * tagged with the stack's name. The same list (`tag_key`) serves prune; a move rewrites the tags
 * with the kind's tags merge patch. A kind declares its list, its single read and its projection;
 * `defineOwnedCloud` gives it its reads, its create plan, its tags diff and its ownership.
 */

/** A platform answer of an owned cloud kind: its id, tags and lock, whatever else it has. */
export interface OwnedCloudItem {
  id: string;
  tags: LiveTag[];
  task_id?: string | null | undefined;
}

/** The tags of a platform answer (TagSerializer list): what the ownership tags and the diff read. */
export const liveTagsAnswer = z.array(z.looseObject({ key: z.string(), value: z.string(), read_only: z.boolean() }));

/** A project and region's list filtered by tags: `tag_key_value` (a JSON object of key → value, each carried) or `tag_key` (a key carried); none lists every item. */
export interface TaggedScope extends CloudScope {
  filter?: { tag_key_value: string } | { tag_key: string };
}

/** The tags merge patch an update carries (null removes every user tag), as it is in every owned kind's payload. */
export const tagsPatchPayload = z.record(z.string(), z.string().nullable()).nullable();

/**
 * A cloud list of a project and region (`{count, results}`, `limit`/`offset`, 1,000 a page)
 * with the vendor's tag filters: grouped reads, import, the find by ownership tags and prune all
 * page through it. The platform's filter is not trusted: callers check each item's tags again.
 */
export function cloudTaggedList<Item>(path: (s: CloudScope) => string, item: z.ZodType<Item>): KindList<TaggedScope, Item> {
  const page = z.looseObject({ count: z.int().min(0), results: z.array(item) });
  return {
    paging: { kind: 'offset', maxPageSize: 1000 },
    path,
    async fetchPage(ctx, s, { limit, offset }) {
      const body = (await ctx.api.get(path(s), { schema: page, query: { ...s.filter, limit, offset }, signal: ctx.signal })).body;
      return { items: body.results, total: body.count };
    },
  };
}

/** The attributes every owned cloud kind has. */
interface OwnedAttributes {
  project_id: number;
  region_id: number;
  tags?: Record<string, string | null> | undefined;
  tags_policy: TagsPolicy;
}

/** What an owned cloud kind declares (see the module comment). */
export interface OwnedCloudSpec<T extends ResourceType, Item extends OwnedCloudItem> {
  type: T;
  /** What the kind is called in messages: "floating IP". */
  noun: string;
  list: KindList<TaggedScope, Item>;
  /** GET one by id (throws NotFoundError on 404). */
  get(ctx: ProviderContext, desired: ResourceAttributes[T], id: string): Promise<Item>;
  /** The projection of an answer into an Observation (single read, list page, identity or prune listing); its state holds `tags`. */
  observe(item: Item): Observation & { exists: true };
}

/** The value of a tag on an item, or undefined. */
const tagValue = (item: OwnedCloudItem, key: string) => item.tags.find((t) => t.key === key)?.value;

/** The identity of a block without an id, as the plan shows it: the ownership tags naming its stack. */
export const ownershipIdentity = (stack: string | null) => `ownership tags of stack ${JSON.stringify(stack ?? '')}`;

/**
 * The tag filter of the list a stack's owned blocks are found in: its own name's
 * (`tag_key_value`), or in a sweep the ownership tag key's (`tag_key`, as prune lists), one list
 * shared by every stack of the place (ProviderContext.sharedOwnerLists); items are picked by
 * their tags either way.
 */
export function ownedListFilter(ctx: ProviderContext, stack: string | null): { tag_key_value: string } | { tag_key: string } {
  return ctx.sharedOwnerLists ? { tag_key: STACK_TAG } : { tag_key_value: JSON.stringify({ [STACK_TAG]: stack }) };
}

/** A tag value is at most 255 characters on the platform, the address tag's included. */
const MAX_TAG_VALUE = 255;

/** The ownership tags a resource's tags carry (user tags only), or null without `edgeform-stack`. */
export function ownerOf(tags: readonly LiveTag[]): Owner | null {
  const stack = userTag(tags, STACK_TAG);
  return stack === undefined ? null : { stack, address: userTag(tags, ADDRESS_TAG) ?? '' };
}

/** The value of a user tag (not a read-only one), or undefined. */
const userTag = (tags: readonly LiveTag[], key: string) => tags.find((t) => t.key === key && !t.read_only)?.value;

/** Where a cloud resource is: what its owner mark binds besides the stack, the address and the kind (a mark copied to another place does not verify). */
export type CloudPlace = CloudScope;

/** The owner mark subject of a cloud resource of `type` in `place` owned by `stack`'s `address`. */
const markSubject = (type: ResourceType, place: CloudPlace, stack: string, address: string) => ({ type, stack, address, identity: `${place.project_id}/${place.region_id}` });

/** The owner a resource's tags name, its mark (`edgeform-mark`) judged with the seal (no verdict unkeyed). */
export function judgedOwner(tags: readonly LiveTag[], type: ResourceType, place: CloudPlace, seal: OwnerSeal | undefined): Owner | null {
  const owner = ownerOf(tags);
  if (owner === null || seal?.keyed !== true) return owner;
  return {
    ...owner,
    mark: must(seal.judge(markSubject(type, place, owner.stack, owner.address), userTag(tags, MARK_TAG)), 'seal.judge(markSubject(type, place, owner.stack, owner.address), us...'),
  };
}

/** Why prune must leave a resource whose tags name an owner with this mark verdict (see OwnedResource.unproven), or nothing. */
export function unprovenByTags(owner: Owner): { unproven?: string } {
  return owner.mark === 'missing' || owner.mark === 'invalid' ? { unproven: unprovenReason(owner.mark, `tag ${MARK_TAG}`) } : {};
}

/** The ownership tags a create writes for `ref`: the stack, the address and, with a keyed seal, the owner mark. */
export function ownershipTags(type: ResourceType, place: CloudPlace, ref: ResourceRef): Record<string, string> {
  const stack = ref.stack ?? '';
  const mark = ref.seal?.mark(markSubject(type, place, stack, ref.address));
  return { [STACK_TAG]: stack, [ADDRESS_TAG]: ref.address, ...(mark === undefined ? {} : { [MARK_TAG]: mark }) };
}

/** What a create's plan says of the ownership tags it writes. */
export function ownershipNote(tags: Record<string, string>): string {
  const marked = tags[MARK_TAG] === undefined ? '' : ` and an owner mark (${MARK_TAG}, made with EDGEFORM_OWNER_KEY)`;
  return `the create request tags it ${STACK_TAG}=${tags[STACK_TAG]}, ${ADDRESS_TAG}=${tags[ADDRESS_TAG]}${marked} (ownership tags, never shown as drift)`;
}

/**
 * The part of a tags merge patch that makes `live` carry `ref`'s ownership (see Ownership.claim),
 * with the plan's note, or undefined when it already does: the stack and address tags when they
 * differ, and the owner mark when they differ or, with a keyed seal, when it is not valid (made
 * with the previous key, or none). Unkeyed, a mark of the old owner is removed with them.
 */
export function ownershipPatch(
  live: readonly LiveTag[],
  type: ResourceType,
  place: CloudPlace,
  ref: ResourceRef,
): { patch: Record<string, string | null>; note: string } | undefined {
  if (ref.stack === null) return undefined;
  const current = judgedOwner(live, type, place, ref.seal);
  const moved = current?.stack !== ref.stack || current.address !== ref.address;
  const remark = !moved && (current.mark === 'previous' || current.mark === 'missing');
  if (!moved && !remark) return undefined;
  const tags = ownershipTags(type, place, ref);
  if (remark) {
    const why = current.mark === 'previous' ? 'it was made with EDGEFORM_OWNER_KEY_PREVIOUS' : 'it had none';
    return {
      patch: { [MARK_TAG]: must(tags[MARK_TAG], 'tags[MARK_TAG]') },
      note: `the owner mark (${MARK_TAG}) is re-made with EDGEFORM_OWNER_KEY (${why}); nothing is created or destroyed`,
    };
  }
  const staleMark: Record<string, null> = tags[MARK_TAG] === undefined && userTag(live, MARK_TAG) !== undefined ? { [MARK_TAG]: null } : {};
  const from = current === null ? 'none' : `${STACK_TAG}=${current.stack}, ${ADDRESS_TAG}=${current.address}`;
  return {
    patch: { ...tags, ...staleMark },
    note: `the ownership tags are rewritten: ${from} -> ${STACK_TAG}=${ref.stack}, ${ADDRESS_TAG}=${ref.address}; nothing is created or destroyed`,
  };
}

/** The user tags an import writes: the platform's read-only tags and edgeform's ownership tags are left out (a stack cannot set them). */
export function importedUserTags(tags: readonly LiveTag[]): Record<string, string> {
  return Object.fromEntries(tags.filter((t) => !t.read_only && !isOwnershipTag(t.key)).map((t) => [t.key, t.value]));
}

/** The stack and address an item's ownership tags name, when both are there (import leaves such an item to that stack). */
export function ownedByTags(tags: readonly LiveTag[]): { stack: string; address: string } | undefined {
  const stack = tags.find((t) => t.key === STACK_TAG)?.value;
  const address = tags.find((t) => t.key === ADDRESS_TAG)?.value;
  return stack && address ? { stack, address } : undefined;
}

/** Whether a merge patch holds on these tags: each key set to its value or absent, `null` leaving only read-only tags. */
export function patchHolds(tags: readonly LiveTag[], patch: Record<string, string | null> | null): boolean {
  if (patch === null) return tags.every((t) => t.read_only);
  return Object.entries(patch).every(([key, value]) => {
    const tag = tags.find((t) => t.key === key);
    return value === null ? tag === undefined || tag.read_only : tag?.value === value;
  });
}

/** The user tags a block declares (a null value, "remove", is nothing to create). */
function declaredTags(tags: Record<string, string | null> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(tags ?? {}).filter((entry): entry is [string, string] => entry[1] !== null));
}

/** An owned cloud kind's shared parts (see defineOwnedCloud). */
export interface OwnedCloud<T extends ResourceType, Item extends OwnedCloudItem> {
  read: ResourceProvider<T>['read'];
  groupRead: NonNullable<ResourceProvider<T>['groupRead']>;
  /** Finds a block without an id by its ownership tags; more than one is ambiguous. */
  findOwned(ctx: ProviderContext, desired: ResourceAttributes[T], ref: ResourceRef): Promise<Item | null>;
  /** GET one by id; null when it is gone. */
  readOrGone(ctx: ProviderContext, desired: ResourceAttributes[T], id: string | number): Promise<Item | null>;
  /**
   * The create plan: `declared` (the block's fields, shown as added) and `body` (what the create
   * request sends besides `tags`); the request's tags are the user's and the ownership tags.
   * Without the stack's `name:`, or with too long an address, it is a plan error.
   */
  createPlan(desired: ResourceAttributes[T], ref: ResourceRef, declared: Record<string, unknown>, body: Record<string, unknown>): ProviderPlan;
  create: { identity: NonNullable<ResourceProvider<T>['create']>['identity'] };
  /** The tags part of a diff: the changes, the patch (undefined: none), the plan errors of read-only keys, and `after`'s tags. */
  planTags(
    desired: ResourceAttributes[T],
    live: readonly LiveTag[],
  ): {
    changes: ProviderPlan['changes'];
    patch: Record<string, string | null> | null | undefined;
    after: Record<string, string> | undefined;
    unchanged: number;
    errors: ProviderPlan['errors'];
    notes: string[];
  };
  /**
   * The kind's diff: each of `fields` the block declares (`want` defined) that differs from the
   * live value (`have`) is a change, sent in the update's payload under its name, or (`forces`)
   * forces a replacement (`-/+`, named in the plan); then the tags merge patch (`tags_patch`).
   * A replacement of a block that pins its id is a plan error: the id could not name the new one.
   */
  planDiff(desired: ResourceAttributes[T], state: Record<string, unknown>, fields: readonly FieldDiff[]): ProviderPlan;
  /** Ownership for the planner: `plan` is the kind's own diff, which claim turns into a move. */
  ownership(plan: (desired: ResourceAttributes[T], state: Record<string, unknown>) => ProviderPlan): NonNullable<ResourceProvider<T>['ownership']>;
}

/** One declared field of a diff (see OwnedCloud.planDiff). */
export interface FieldDiff {
  field: string;
  /** The declared value; undefined: not declared, not managed. */
  want: unknown;
  have: unknown;
  /** It cannot change in place: a different value destroys the resource and creates it again. */
  forces?: boolean;
}

/** What the parts of an owned cloud kind share (see defineOwnedCloud): its declaration and its id field (KindSpec.idField). */
interface OwnedKind<T extends ResourceType, Item extends OwnedCloudItem> {
  readonly spec: OwnedCloudSpec<T, Item>;
  readonly idField: string;
}

/**
 * A block's attributes as the owned cloud skeleton reads them: every owned cloud kind's shape
 * has these fields (project_id, region_id, tags, tags_policy), which the generic attribute type
 * of a kind T does not show.
 */
const attrs = <T extends ResourceType>(d: ResourceAttributes[T]) => d as unknown as OwnedAttributes;

/** The block's platform id, when it names one. */
function idOf<T extends ResourceType>(k: OwnedKind<T, OwnedCloudItem>, d: ResourceAttributes[T]): string | undefined {
  const id = (attrs(d) as unknown as Readonly<Record<string, unknown>>)[k.idField]; // the kind's id field, by its name: not in OwnedAttributes
  return id === undefined ? undefined : String(id);
}

/** The project and region of a block, which its list and its tasks are scoped to. */
const scopeOf = <T extends ResourceType>(d: ResourceAttributes[T]) => ({ project_id: attrs(d).project_id, region_id: attrs(d).region_id });

/** How plans name what a block without an id is found by: the stack's ownership tags and its address. */
const what = <T extends ResourceType>(k: OwnedKind<T, OwnedCloudItem>, ref: ResourceRef) => ({
  type: k.spec.type,
  identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})`,
});

/** Every item of a project and region the list's `filter` picks, each checked again with `keep`. */
async function listTagged<T extends ResourceType, Item extends OwnedCloudItem>(
  k: OwnedKind<T, Item>,
  ctx: ProviderContext,
  scope: TaggedScope,
  keep: (item: Item) => boolean,
): Promise<Item[]> {
  return (await listAll(ctx, k.spec.list, scope, (item) => item.id)).filter(keep);
}

/** Finds a block without an id by its ownership tags (one list, filtered by them); more than one is ambiguous. */
async function findOwned<T extends ResourceType, Item extends OwnedCloudItem>(
  k: OwnedKind<T, Item>,
  ctx: ProviderContext,
  d: ResourceAttributes[T],
  ref: ResourceRef,
): Promise<Item | null> {
  if (ref.stack === null) return null;
  const wanted = { [STACK_TAG]: ref.stack, [ADDRESS_TAG]: ref.address };
  // In a sweep, the place's one shared list (see ownedListFilter) rather than a list of its own.
  const filter = ctx.sharedOwnerLists ? ownedListFilter(ctx, ref.stack) : { tag_key_value: JSON.stringify(wanted) };
  const scope = { ...scopeOf(d), filter };
  const matches = await listTagged(k, ctx, scope, (item) => Object.entries(wanted).every(([key, value]) => tagValue(item, key) === value));
  return onlyMatch(matches, (item) => item.id, what(k, ref));
}

/** The kind's reads, single and grouped, from its list, its single read and its projection. */
function ownedReads<T extends ResourceType, Item extends OwnedCloudItem>(k: OwnedKind<T, Item>) {
  const { spec } = k;
  return defineListReads<T, Item>({
    readOne: (ctx, d) => readOrGone(() => spec.get(ctx, d, idOf(k, d) ?? '')),
    project: (_ctx, _desired, item) => spec.observe(item),
    async find(ctx, d, ref) {
      const item = await findOwned(k, ctx, d, ref);
      return item === null ? null : { item, foundBy: ownershipIdentity(ref.stack) };
    },
    hasId: (d) => idOf(k, d) !== undefined,
    // The blocks of a project and region found by their ownership tags: one list of the items tagged
    // with the stack's name (edgeform-stack), each block picked by its address (edgeform-address).
    findInList: {
      key: (_d, ref) => ref.address,
      itemKey: (item) => tagValue(item, ADDRESS_TAG),
      pick(_d, matches, ref) {
        const item = onlyMatch(
          matches.filter((m) => tagValue(m, STACK_TAG) === ref.stack),
          (m) => m.id,
          what(k, ref),
        );
        return item === null ? null : { item, foundBy: ownershipIdentity(ref.stack) };
      },
      list: {
        paging: spec.list.paging,
        canMatch: ([ref]) => ref?.stack !== null && ref?.stack !== undefined,
        describe: ([d]) => `GET ${spec.list.path(scopeOf(d))}`,
        fetchPage: (ctx, [d], [ref], page) => fetchListPage(ctx, spec.list, { ...scopeOf(d), filter: ownedListFilter(ctx, must(ref, 'ref').stack) }, page),
      },
    },
    list: {
      group: (d) => `${attrs(d).project_id}/${attrs(d).region_id}`,
      memberId: (d) => idOf(k, d) ?? '',
      itemId: (item) => item.id,
      ...listEndpointOf(spec.list, ([d]) => scopeOf(d)),
    },
  });
}

/**
 * The diff of a resource turned into a move: the same changes, and a tags merge patch that also
 * writes `ref`'s ownership tags when the live ones name another stack or address. A patch that
 * would remove every user tag (`null`) is sent key by key, so the new ownership tags stay.
 */
function claim<T extends ResourceType>(type: T, planned: ProviderPlan, desired: ResourceAttributes[T], live: readonly LiveTag[], ref: ResourceRef): ProviderPlan {
  // A replacement is never a move: the planner refuses it (move first, then change).
  if (planned.errors.length > 0 || planned.action === 'replace') return planned;
  const ownership = ownershipPatch(live, type, attrs(desired), ref);
  if (ownership === undefined) return planned;
  const parsed = tagsPatchPayload.optional().safeParse(planned.payload?.tags_patch);
  const patch = parsed.success ? parsed.data : undefined;
  const base = patch === null ? Object.fromEntries(Object.keys(userTags(live)).map((key) => [key, null])) : { ...patch };
  return {
    ...planned,
    action: 'update',
    payload: { ...planned.payload, tags_patch: { ...base, ...ownership.patch } },
    notes: [...planned.notes.filter(() => patch !== null), ownership.note],
  };
}

/** See OwnedCloud.createPlan. */
function ownedCreatePlan<T extends ResourceType>(
  k: OwnedKind<T, OwnedCloudItem>,
  desired: ResourceAttributes[T],
  ref: ResourceRef,
  declared: Record<string, unknown>,
  body: Record<string, unknown>,
): ProviderPlan {
  const errors =
    ref.stack === null
      ? [
          {
            summary: `a ${k.spec.noun} without ${k.idField} is created with ownership tags, which need the stack's name`,
            detail: 'Add "name: <stack name>" at the top of the stack.',
          },
        ]
      : ref.address.length > MAX_TAG_VALUE
        ? [{ summary: `the address is longer than ${MAX_TAG_VALUE} characters, the most a tag value (${ADDRESS_TAG}) can hold` }]
        : [];
  const ownership = ownershipTags(k.spec.type, attrs(desired), ref);
  const tags = attrs(desired).tags;
  return createPlan(
    { ...declared, ...(tags === undefined ? {} : { tags: declaredTags(tags) }) },
    k.idField,
    { ...body, tags: { ...declaredTags(tags), ...ownership } },
    { errors, notes: [ownershipNote(ownership)] },
  );
}

/** See OwnedCloud.planTags. */
function planOwnedTags<T extends ResourceType>(desired: ResourceAttributes[T], live: readonly LiveTag[]): ReturnType<OwnedCloud<T, OwnedCloudItem>['planTags']> {
  const declared = attrs(desired).tags;
  if (declared === undefined) return { changes: [], patch: undefined, after: undefined, unchanged: 0, errors: [], notes: [] };
  const tags = planTagsPatch(live, declared, attrs(desired).tags_policy);
  return {
    changes: tags.changes,
    patch: tags.patch,
    after: tags.after,
    unchanged: tags.unchanged,
    errors: tags.readOnlyKeys.map((key) => ({
      field: 'tags',
      summary: `tag "${key}" is read-only on the platform and cannot be set or removed`,
      detail: `Remove "${key}" from tags; the platform keeps read-only tags as they are.`,
    })),
    notes: tags.patch === null ? ['every user tag is removed with "tags": null; read-only tags stay'] : [],
  };
}

/** See OwnedCloud.planDiff. */
function planOwnedDiff<T extends ResourceType>(
  k: OwnedKind<T, OwnedCloudItem>,
  desired: ResourceAttributes[T],
  state: Record<string, unknown>,
  fields: readonly FieldDiff[],
): ProviderPlan {
  const { idField, spec } = k;
  const live = state.tags as LiveTag[];
  const before: Record<string, unknown> = { [idField]: state[idField] };
  const after: Record<string, unknown> = { ...before };
  const changes: FieldChange[] = [];
  const payload: Record<string, unknown> = {};
  for (const { field, want, have, forces } of fields) {
    if (want === undefined) continue;
    before[field] = have;
    after[field] = want;
    if (canonicalJson(want) === canonicalJson(have)) continue;
    changes.push({ path: [field], op: 'update', before: have, after: want, ...(forces ? { forces_replacement: true } : {}) });
    if (!forces) payload[field] = want;
  }
  const tags = planOwnedTags(desired, live);
  if (tags.after !== undefined) {
    before.tags = userTags(live);
    after.tags = tags.after;
  }
  changes.push(...tags.changes);
  if (tags.patch !== undefined) payload.tags_patch = tags.patch;
  const forced = changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.'));
  const errors = [...tags.errors];
  const pinned = idOf(k, desired);
  const [firstForced] = forced;
  if (firstForced !== undefined && pinned !== undefined) {
    errors.push({
      field: firstForced,
      summary: `${forced.join(' and ')} of ${spec.noun} ${pinned} cannot change in place`,
      detail: `edgeform would destroy the ${spec.noun} and create a new one, which ${idField} could no longer name: remove ${idField} to have edgeform replace it (found again by its ownership tags), or declare what the ${spec.noun} has.`,
    });
  }
  const action = forced.length > 0 ? 'replace' : Object.keys(payload).length > 0 ? 'update' : 'no-op';
  return {
    action,
    before,
    after,
    changes,
    ...(tags.after === undefined ? {} : { unchanged_elements: { tags: tags.unchanged } }),
    payload: action === 'update' ? payload : undefined,
    errors,
    warnings: [],
    notes: tags.notes,
  };
}

/** Everything carrying ownership tags in the places of `declared`: one list a place (see Ownership.list). */
async function listOwnedCloud<T extends ResourceType, Item extends OwnedCloudItem>(
  k: OwnedKind<T, Item>,
  ctx: ProviderContext,
  declared: readonly ResourceAttributes[T][],
): Promise<OwnedResource<T>[]> {
  const places = new Map(declared.map((d) => [`${attrs(d).project_id}/${attrs(d).region_id}`, scopeOf(d)]));
  const owned: OwnedResource<T>[] = [];
  for (const [place, scope] of places) {
    for (const item of await listTagged(k, ctx, { ...scope, filter: { tag_key: STACK_TAG } }, (i) => ownerOf(i.tags) !== null)) {
      const owner = judgedOwner(item.tags, k.spec.type, scope, ctx.seal);
      if (owner === null) continue;
      owned.push({
        ...owner,
        ...unprovenByTags(owner),
        place,
        // The attributes that delete it by id: every owned cloud kind's shape takes these fields.
        desired: { ...scope, [k.idField]: item.id, tags_policy: 'authoritative', ensure: 'absent' } as unknown as ResourceAttributes[T],
        observation: k.spec.observe(item),
      });
    }
  }
  return owned;
}

/** Builds an owned cloud kind's reads, create plan, tags diff and ownership from its list, single read and projection. */
export function defineOwnedCloud<T extends ResourceType, Item extends OwnedCloudItem>(spec: OwnedCloudSpec<T, Item>): OwnedCloud<T, Item> {
  const k: OwnedKind<T, Item> = { spec, idField: RESOURCE_KINDS[spec.type].idField };
  const reads = ownedReads(k);
  return {
    read: reads.read,
    groupRead: reads.groupRead,
    findOwned: (ctx, d, ref) => findOwned(k, ctx, d, ref),
    readOrGone: (ctx, d, id) => readOrGone(() => spec.get(ctx, d, String(id))),
    createPlan: (desired, ref, declared, body) => ownedCreatePlan(k, desired, ref, declared, body),
    create: { identity: (desired, ref) => (idOf(k, desired) === undefined ? ownershipIdentity(ref.stack) : null) },
    planTags: (desired, live) => planOwnedTags(desired, live),
    planDiff: (desired, state, fields) => planOwnedDiff(k, desired, state, fields),
    ownership: (plan) => ({
      owner: (state, desired, seal) => judgedOwner(state.tags as LiveTag[], spec.type, attrs(desired), seal),
      place: (d) => `${attrs(d).project_id}/${attrs(d).region_id}`,
      claim: (desired, state, ref) => claim(spec.type, plan(desired, state), desired, state.tags as LiveTag[], ref),
      list: (ctx, declared) => listOwnedCloud(k, ctx, declared),
    }),
  };
}
