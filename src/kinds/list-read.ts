import { must } from '../errors.js';
import { NotFoundError, UnexpectedResponseError } from '../api/errors.js';
import { readPages, type ListPage, type PageRequest, type Paging } from './paging.js';
import type { GroupRead, GroupReadContext, MemberRead, Observation, ProviderContext, ResourceProvider, ResourceRef } from './provider.js';
import type { ResourceAttributes, ResourceType } from './registry.js';

export { MAX_LIST_PAGES, type ListPage, type PageRequest, type Paging } from './paging.js';

/** The members of one list read: never empty, so a page can take the group's placement from the first. */
export type ListMembers<T extends ResourceType> = readonly [ResourceAttributes[T], ...ResourceAttributes[T][]];

/** A kind's list endpoint: how resources group, how items match them, how a page is fetched. */
export interface ListEndpoint<T extends ResourceType, Item> {
  /** The group of a resource: one list serves the resources of one group (a project and region). Pure. */
  group(desired: ResourceAttributes[T]): string;
  /**
   * The id matching a resource to its list item, as the platform spells it. Only blocks that
   * name their platform id are read by group (see readStack); one without is found by
   * ListReadSpec.find.
   */
  memberId(desired: ResourceAttributes[T]): string;
  /** The id of a list item. */
  itemId(item: Item): string;
  /** How the endpoint pages. */
  paging: Paging;
  /**
   * When the list is filtered by the members' ids (quota requests' `request_ids`): at most this
   * many members are named in one list, and only they are listed. Absent: the list holds the
   * whole group, members or not.
   */
  maxMembersPerList?: number;
  /** `GET /path`, for messages. */
  describe(members: ListMembers<T>): string;
  /** Fetches one page of the list for these members (each answer checked with its zod schema). */
  fetchPage(ctx: ProviderContext, members: ListMembers<T>, page: PageRequest): Promise<ListPage<Item>>;
}

/** What defineListReads builds a kind's reads from. */
export interface ListReadSpec<T extends ResourceType, Item> {
  /** The single read: the resource's answer (checked with the same item schema as list pages), or null on 404. */
  readOne(ctx: ProviderContext, desired: ResourceAttributes[T]): Promise<Item | null>;
  /**
   * The one projection of an answer into an Observation, whether the answer came alone or in a
   * list page; it may read more (the flavors a resize may choose from). Lock fields (`task_id`)
   * come through it either way.
   */
  project(ctx: ProviderContext, desired: ResourceAttributes[T], item: Item): Promise<Observation> | Observation;
  list: ListEndpoint<T, Item>;
  /**
   * Finds a block that omits its platform id (a creatable kind): by natural key or ownership
   * tags (`ref`), null when nothing matches, `foundBy` saying which identity matched; more than
   * one match throws AmbiguousIdentityError. Absent: every block names its id (adopt-only kinds).
   */
  find?(ctx: ProviderContext, desired: ResourceAttributes[T], ref: ResourceRef): Promise<{ item: Item; foundBy: string } | null>;
  /** Whether a block names its platform id (and is read by it); required with `find`. */
  hasId?(desired: ResourceAttributes[T]): boolean;
  /**
   * Finds the blocks of a group that omit their platform id in the group's list, all with one
   * read of the whole list, instead of one `find` each (for a list that holds the whole group,
   * not one filtered by the members' ids). Absent: each such block is found by `find` alone.
   */
  findInList?: ListFind<T, Item>;
}

/**
 * How blocks without a platform id are found in a list's items (see ListReadSpec.findInList):
 * by a natural key (a FastEdge app's name) or by ownership tags (a floating IP's
 * `edgeform-address` within its stack's `edgeform-stack`), one list read for every such block of
 * a group.
 */
export interface ListFind<T extends ResourceType, Item> {
  /** The key a block is found by (its name, its address). Pure. */
  key(desired: ResourceAttributes[T], ref: ResourceRef): string;
  /** The key of a list item, compared with `key` for equality; undefined when it has none. Pure. */
  itemKey(item: Item): string | undefined;
  /**
   * The block's one match among the items with its key, with the identity that matched; null
   * when there is none; more than one throws AmbiguousIdentityError (see onlyMatch).
   */
  pick(desired: ResourceAttributes[T], matches: readonly Item[], ref: ResourceRef): { item: Item; foundBy: string } | null;
  /**
   * The list the blocks are found in, when it is not the group's own: a list filtered by what
   * they share (the floating IPs tagged with the stack's name), read to its end once for all of
   * them. `scope` answers null when nothing can match (a stack without a name has no ownership
   * tags): each such block is then known absent without a request. Absent: the group's own list.
   */
  list?: FindList<T, Item>;
}

/** A filtered list that blocks without their id are found in (see ListFind.list). */
export interface FindList<T extends ResourceType, Item> {
  paging: Paging;
  /** `GET /path?filter`, for messages. */
  describe(members: ListMembers<T>, refs: readonly ResourceRef[]): string;
  /** Whether anything can match these members; false: none exists, and nothing is listed. */
  canMatch(refs: readonly ResourceRef[]): boolean;
  /** Fetches one page of the filtered list for these members. */
  fetchPage(ctx: ProviderContext, members: ListMembers<T>, refs: readonly ResourceRef[], page: PageRequest): Promise<ListPage<Item>>;
}

/**
 * A kind's single read and grouped read, built from one answer-to-Observation projection, so
 * that a resource reads the same whichever way it was read.
 *
 * A group of one is read with a single GET. A larger group fetches the list's first page; when
 * members are still missing, it compares what finishing the list would cost with one GET per
 * missing member and takes the cheaper: a list with a `count` fetches all its remaining pages
 * at once (the count says how many), a list without one follows page after page while each page
 * paid for itself (the pages read so far found at least as many members). So a group costs at
 * most one request more than single reads, and a whole project of 1,000 floating IPs one.
 *
 * Members without their platform id (a kind with `findInList`) are found in the same list, or
 * in a list of their own filtered by what they share (`findInList.list`: the floating IPs tagged
 * with the stack's name), which is then read to its end whatever it costs, so that a key found
 * nowhere is known absent: a group of blocks found by name or by ownership tags costs one list
 * read (its pages), however many blocks there are. Where the list is not complete they are found
 * one by one (`find`), as a group of one is. Every list is read through the one paging loop
 * (readPages, with its guard).
 *
 * A member missing from a complete list reads `{exists: false}`, as a 404 does. A list counts as
 * complete only when every page was read and they agree with each other (the same count on each,
 * as many distinct items as the count); otherwise the members not seen are read one by one.
 * A page the client cannot use (UnexpectedResponseError: a malformed item, too large a page) or a
 * list answered 404 also falls back to single reads, so each resource gets its own answer and its
 * own diagnostic; any other failure of a list request fails every member it was for.
 */
export function defineListReads<T extends ResourceType, Item>(spec: ListReadSpec<T, Item>): { read: ResourceProvider<T>['read']; groupRead: GroupRead<T> } {
  const readById = async (ctx: ProviderContext, desired: ResourceAttributes[T]): Promise<Observation> => {
    const item = await spec.readOne(ctx, desired);
    return item === null ? { exists: false } : spec.project(ctx, desired, item);
  };
  const read: ResourceProvider<T>['read'] = async (ctx, desired, ref) => {
    if (!spec.find || spec.hasId?.(desired) !== false) return readById(ctx, desired);
    const found = await spec.find(ctx, desired, ref);
    if (found === null) return { exists: false };
    const observed = await spec.project(ctx, desired, found.item);
    return observed.exists ? { ...observed, foundBy: found.foundBy } : observed;
  };
  const groupRead: GroupRead<T> = {
    key: (desired) => spec.list.group(desired),
    ...(spec.findInList ? { findsWithoutId: true } : {}),
    async read(ctx, members, refs) {
      const readChunks = async (chunk: readonly ResourceAttributes[T][], chunkRefs: readonly (ResourceRef | undefined)[] | undefined): Promise<MemberRead[]> => {
        const size = spec.list.maxMembersPerList ?? chunk.length;
        const chunks: Array<Promise<MemberRead[]>> = [];
        for (let start = 0; start < chunk.length; start += size)
          chunks.push(readChunk(ctx, spec, readById, read, chunk.slice(start, start + size), chunkRefs?.slice(start, start + size)));
        return (await Promise.all(chunks)).flat();
      };
      const own = spec.findInList?.list;
      const keyedAt = own && spec.hasId ? members.flatMap((member, i) => (must(spec.hasId, 'spec.hasId')(member) === false ? [i] : [])) : [];
      if (own === undefined || keyedAt.length === 0) return readChunks(members, refs);
      // Members without their id found in a list of their own (filtered by what they share), all
      // in one reading of it; the others by the group's list (in chunks, for a list filtered by ids).
      const keyed = new Set(keyedAt);
      const idAt = members.flatMap((_, i) => (keyed.has(i) ? [] : [i]));
      const refOf = (i: number): ResourceRef => {
        const ref = refs?.[i];
        if (ref === undefined) throw new Error('a grouped read of blocks without their id needs their refs');
        return ref;
      };
      const alone = async (i: number): Promise<MemberRead> =>
        must((await readChunk(ctx, spec, readById, read, [must(members[i], 'members[i]')], [refOf(i)]))[0], 'the read of one member');
      const [byId, found] = await Promise.all([
        readChunks(
          idAt.map((i) => must(members[i], 'members[i]')),
          idAt.map((i) => refs?.[i]),
        ),
        keyedAt.length === 1
          ? Promise.all([alone(must(keyedAt[0], 'keyedAt[0]'))])
          : findInOwnList(
              ctx,
              spec,
              own,
              keyedAt.map((i) => must(members[i], 'members[i]')),
              keyedAt.map(refOf),
              (k) => alone(must(keyedAt[k], 'keyedAt[k]')),
            ),
      ]);
      const merged: MemberRead[] = new Array(members.length);
      idAt.forEach((i, k) => (merged[i] = must(byId[k], 'byId[k]')));
      keyedAt.forEach((i, k) => (merged[i] = must(found[k], 'found[k]')));
      return merged;
    },
  };
  return { read, groupRead };
}

/** What the list pages said of one chunk of a group: whether the list is complete (its items went to `onFound` as each page came). */
interface Listing {
  complete: boolean;
}

/** A member's read through the pool: its observation, or the error it failed with. */
const settleIn = async (ctx: GroupReadContext, work: () => Promise<Observation> | Observation): Promise<MemberRead> => {
  try {
    return { ok: true, observation: await ctx.schedule(async () => work()) };
  } catch (error) {
    return { ok: false, error };
  }
};

/**
 * What a failed list request means for the members it was for: a page the client cannot use
 * (each member's own read tells which answer is wrong) or a list answered 404 (a project or
 * region that is not there: each read says what a 404 means) falls back to reading each alone;
 * any other failure fails each member with it. An abort propagates.
 */
function afterFailedList(ctx: GroupReadContext, error: unknown, count: number, alone: (i: number) => Promise<MemberRead>): Promise<MemberRead[]> | MemberRead[] {
  if (ctx.signal.aborted) throw ctx.signal.reason;
  if (error instanceof UnexpectedResponseError || error instanceof NotFoundError) return Promise.all(Array.from({ length: count }, (_, i) => alone(i)));
  return Array.from({ length: count }, () => ({ ok: false, error }));
}

/** A member found (or known absent) among the items listed with its key. */
async function pickListed<T extends ResourceType, Item>(
  spec: ListReadSpec<T, Item>,
  ctx: GroupReadContext,
  member: ResourceAttributes[T],
  ref: ResourceRef,
  keyed: ReadonlyMap<string, readonly Item[]>,
): Promise<MemberRead> {
  const finder = must(spec.findInList, 'spec.findInList');
  try {
    const found = finder.pick(member, keyed.get(finder.key(member, ref)) ?? [], ref);
    if (found === null) return { ok: true, observation: { exists: false } };
    const observed = await spec.project(ctx, member, found.item);
    return { ok: true, observation: observed.exists ? { ...observed, foundBy: found.foundBy } : observed };
  } catch (error) {
    return { ok: false, error };
  }
}

async function readChunk<T extends ResourceType, Item>(
  ctx: GroupReadContext,
  spec: ListReadSpec<T, Item>,
  read: (ctx: ProviderContext, desired: ResourceAttributes[T]) => Promise<Observation>,
  readOrFind: ResourceProvider<T>['read'],
  members: readonly ResourceAttributes[T][],
  refs: readonly (ResourceRef | undefined)[] | undefined,
): Promise<MemberRead[]> {
  // Members without their id, found by their key in the group's list (see ListReadSpec.findInList;
  // those with a list of their own never come here but alone).
  const finder = spec.findInList;
  const byKey = finder && spec.hasId ? members.map((member) => must(spec.hasId, 'spec.hasId')(member) === false) : members.map(() => false);
  const refOf = (i: number): ResourceRef => {
    const ref = refs?.[i];
    if (ref === undefined) throw new Error('a grouped read of blocks without their id needs their refs');
    return ref;
  };
  /** A member's read alone: by its id, or its find (with its ref: the group read of a kind with findInList is given them). */
  const readAlone = (member: ResourceAttributes[T], i: number) => settleIn(ctx, () => (byKey[i] ? readOrFind(ctx, member, refOf(i)) : read(ctx, member)));
  const [head, ...tail] = members;
  if (head === undefined) return [];
  if (tail.length === 0) return [await readAlone(head, 0)];
  const keyed = new Map<string, Item[]>();
  if (finder) members.forEach((member, i) => byKey[i] && keyed.set(finder.key(member, refOf(i)), []));

  // A member found in a page is projected as the page comes, so that the page's items (the
  // answer's every field) are let go at once rather than held until the last page: what a large
  // group keeps is its observations.
  const at = new Map<string, number[]>();
  members.forEach((member, i) => {
    if (byKey[i]) return;
    const id = spec.list.memberId(member);
    const same = at.get(id);
    if (same) same.push(i);
    else at.set(id, [i]);
  });
  const projected: Array<MemberRead | Promise<MemberRead> | undefined> = new Array(members.length);
  const onFound = (id: string, item: Item): void => {
    for (const i of at.get(id) ?? []) projected[i] = projectNow(ctx, spec, must(members[i], 'members[i]'), item);
  };
  const onItem =
    finder && keyed.size > 0
      ? (item: Item): void => {
          const key = finder.itemKey(item);
          if (key !== undefined) keyed.get(key)?.push(item);
        }
      : undefined;
  let listing: Listing;
  try {
    listing = await listMembers(ctx, spec.list, [head, ...tail], at, onFound, onItem);
  } catch (error) {
    return afterFailedList(ctx, error, members.length, (i) => readAlone(must(members[i], 'members[i]'), i));
  }
  return Promise.all(
    members.map((member, i) => {
      if (byKey[i]) return listing.complete ? pickListed(spec, ctx, member, refOf(i), keyed) : readAlone(member, i);
      const found = projected[i];
      if (found !== undefined) return found;
      if (listing.complete) return { ok: true, observation: { exists: false } } satisfies MemberRead;
      return readAlone(member, i);
    }),
  );
}

/**
 * Finds members without their id in their own filtered list (ListFind.list), read to its end
 * once for all of them: each is then picked by its key, or known absent. A list that is not
 * complete leaves each to its own find (`alone`); a failed list is handled as the group's is.
 */
async function findInOwnList<T extends ResourceType, Item>(
  ctx: GroupReadContext,
  spec: ListReadSpec<T, Item>,
  list: FindList<T, Item>,
  members: readonly ResourceAttributes[T][],
  refs: readonly ResourceRef[],
  alone: (k: number) => Promise<MemberRead>,
): Promise<MemberRead[]> {
  if (!list.canMatch(refs)) return members.map(() => ({ ok: true, observation: { exists: false } }));
  const finder = must(spec.findInList, 'spec.findInList');
  // Members of a group read are the kind's attributes, which is what ListMembers holds.
  const listed = members as unknown as ListMembers<T>;
  const keyed = new Map<string, Item[]>(members.map((member, k) => [finder.key(member, must(refs[k], 'refs[k]')), []]));
  let complete: boolean;
  try {
    ({ complete } = await readPages(
      { paging: list.paging, describe: list.describe(listed, refs), itemId: spec.list.itemId, fetchPage: (page) => ctx.schedule(() => list.fetchPage(ctx, listed, refs, page)) },
      {
        pageSize: ctx.pageSize,
        maxPages: ctx.maxPages,
        ahead: true,
        onItem(item) {
          const key = finder.itemKey(item);
          if (key !== undefined) keyed.get(key)?.push(item);
        },
      },
    ));
  } catch (error) {
    return afterFailedList(ctx, error, members.length, alone);
  }
  return Promise.all(members.map((member, k) => (complete ? pickListed(spec, ctx, member, must(refs[k], 'refs[k]'), keyed) : alone(k))));
}

/**
 * A listed member's projection, run at once rather than in the pool: most are pure (10,000 of
 * them through the pool cost about 0.1 s), and the requests some send (an instance's flavors, a
 * cluster's upgrade versions) are held to --parallelism by the API client like every request,
 * and fail at once when the reading stops (its signal is aborted).
 */
function projectNow<T extends ResourceType, Item>(ctx: ProviderContext, spec: ListReadSpec<T, Item>, member: ResourceAttributes[T], item: Item): MemberRead | Promise<MemberRead> {
  try {
    const observed = spec.project(ctx, member, item);
    if (!(observed instanceof Promise)) return { ok: true, observation: observed };
    return observed.then(
      (observation): MemberRead => ({ ok: true, observation }),
      (error: unknown): MemberRead => ({ ok: false, error }),
    );
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Reads list pages for the members named by id (`ids`) until they are all found, the list ends,
 * or single reads would cost less (a counted list: its pages left are at least the members
 * missing; one without a count: the pages read so far found fewer members than pages); with
 * `onItem` (members found by key), to the list's end. Each member's item goes to `onFound`, and
 * every item to `onItem`, as its page is taken; pages are taken in their order, whatever order
 * they come in, so an item listed twice is always the first page's.
 */
async function listMembers<T extends ResourceType, Item>(
  ctx: GroupReadContext,
  list: ListEndpoint<T, Item>,
  members: ListMembers<T>,
  ids: ReadonlyMap<string, unknown>,
  onFound: (id: string, item: Item) => void,
  onItem?: (item: Item) => void,
): Promise<Listing> {
  const wanted = new Set(ids.keys());
  const found = new Set<string>();
  const missing = () => wanted.size - found.size;
  const read = await readPages(
    { paging: list.paging, describe: list.describe(members), itemId: list.itemId, fetchPage: (page) => ctx.schedule(() => list.fetchPage(ctx, members, page)) },
    {
      pageSize: ctx.pageSize,
      maxPages: ctx.maxPages,
      ahead: true,
      onItem(item) {
        onItem?.(item);
        const id = list.itemId(item);
        if (wanted.has(id)) {
          found.add(id);
          onFound(id, item);
        }
      },
      // Members found by key need the whole list: none may stop it early.
      ...(onItem === undefined
        ? { more: (pages: number, left: number | undefined) => (left !== undefined ? missing() > 0 && left < missing() : missing() > 1 && pages <= found.size) }
        : {}),
    },
  );
  return { complete: read.complete };
}
