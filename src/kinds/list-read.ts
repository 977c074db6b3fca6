import { NotFoundError, UnexpectedResponseError } from '../api/errors.js';
import { EdgeformError } from '../errors.js';
import type { GroupRead, GroupReadContext, MemberRead, Observation, ProviderContext, ResourceProvider, ResourceRef } from './provider.js';
import type { ResourceAttributes, ResourceType } from './registry.js';

/** List pages one list read follows at most (a million cloud resources at 1,000 a page). */
export const MAX_LIST_PAGES = 1000;

/**
 * How a list endpoint pages: `offset`, by `limit`/`offset` up to `maxPageSize` items a page
 * (cloud lists: 1,000); `pages`, by a page number, in pages of the platform's own size
 * (streaming players); `none`, not at all: one answer holds the whole list (Kubernetes clusters).
 */
export type Paging = { kind: 'offset'; maxPageSize: number } | { kind: 'pages' } | { kind: 'none' };

/**
 * Which page of a list to fetch: `index` from 0 (a page number is index + 1); for `offset`
 * paging, `offset` = index × limit and `limit` the items asked for.
 */
export interface PageRequest {
  index: number;
  offset: number;
  limit: number;
}

/**
 * One page of a list as a grouped read uses it: the items, and the number of items the whole
 * list holds when the endpoint says (`count`). A list without a count ends at an empty page, or
 * at a page shorter than the `limit` asked for.
 */
export interface ListPage<Item> {
  items: readonly Item[];
  total?: number;
}

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

/** How blocks without a platform id are found in a list page's items (see ListReadSpec.findInList). */
export interface ListFind<T extends ResourceType, Item> {
  /** The natural key a block is found by (its name). Pure. */
  key(desired: ResourceAttributes[T]): string;
  /** The natural key of a list item, compared with `key` for equality. Pure. */
  itemKey(item: Item): string;
  /**
   * The block's one match among the items with its key, with the identity that matched; null
   * when there is none; more than one throws AmbiguousIdentityError (see onlyMatch).
   */
  pick(desired: ResourceAttributes[T], matches: readonly Item[]): { item: Item; foundBy: string } | null;
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
 * Members without their platform id (a kind with `findInList`) are found in the same list,
 * which is then read to its end whatever it costs, so that a name found nowhere is known absent:
 * a group of blocks found by name costs one list read (its pages), however many blocks there are.
 * Where the list is not complete they are found one by one (`find`), as a group of one is.
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
      const size = spec.list.maxMembersPerList ?? members.length;
      const chunks: Array<Promise<MemberRead[]>> = [];
      for (let start = 0; start < members.length; start += size)
        chunks.push(readChunk(ctx, spec, readById, read, members.slice(start, start + size), refs?.slice(start, start + size)));
      return (await Promise.all(chunks)).flat();
    },
  };
  return { read, groupRead };
}

/** What the list pages said of one chunk of a group: whether the list is complete (its items went to `onFound` as each page came). */
interface Listing {
  complete: boolean;
}

async function readChunk<T extends ResourceType, Item>(
  ctx: GroupReadContext,
  spec: ListReadSpec<T, Item>,
  read: (ctx: ProviderContext, desired: ResourceAttributes[T]) => Promise<Observation>,
  readOrFind: ResourceProvider<T>['read'],
  members: readonly ResourceAttributes[T][],
  refs: readonly ResourceRef[] | undefined,
): Promise<MemberRead[]> {
  const settle = async (work: () => Promise<Observation> | Observation): Promise<MemberRead> => {
    try {
      return { ok: true, observation: await ctx.schedule(async () => work()) };
    } catch (error) {
      return { ok: false, error };
    }
  };
  // Members without their id, found by their natural key in the list (see ListReadSpec.findInList).
  const finder = spec.findInList;
  const byKey = finder && spec.hasId ? members.map((member) => spec.hasId!(member) === false) : members.map(() => false);
  /** A member's read alone: by its id, or its find (with its ref: the group read of a kind with findInList is given them). */
  const readAlone = (member: ResourceAttributes[T], i: number) =>
    settle(() => {
      if (!byKey[i]) return read(ctx, member);
      const ref = refs?.[i];
      if (ref === undefined) throw new Error('a grouped read of blocks without their id needs their refs');
      return readOrFind(ctx, member, ref);
    });
  const [head, ...tail] = members;
  if (head === undefined) return [];
  if (tail.length === 0) return [await readAlone(head, 0)];
  const keyed = new Map<string, Item[]>();
  if (finder) members.forEach((member, i) => byKey[i] && keyed.set(finder.key(member), []));

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
    for (const i of at.get(id) ?? []) projected[i] = projectNow(ctx, spec, members[i]!, item);
  };
  const onItem =
    finder && keyed.size > 0
      ? (item: Item): void => {
          keyed.get(finder.itemKey(item))?.push(item);
        }
      : undefined;
  let listing: Listing;
  try {
    listing = await listMembers(ctx, spec.list, [head, ...tail], at, onFound, onItem);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // A page the client cannot use: each member's own GET tells which answer is wrong. A list
    // answered 404 (a project or region that is not there): each GET says what a 404 means.
    if (error instanceof UnexpectedResponseError || error instanceof NotFoundError) return Promise.all(members.map((member, i) => readAlone(member, i)));
    return members.map(() => ({ ok: false, error }));
  }
  /** A member without its id, found (or known absent) in the complete list. */
  const findListed = async (member: ResourceAttributes[T]): Promise<MemberRead> => {
    try {
      const found = finder!.pick(member, keyed.get(finder!.key(member)) ?? []);
      if (found === null) return { ok: true, observation: { exists: false } };
      const observed = await spec.project(ctx, member, found.item);
      return { ok: true, observation: observed.exists ? { ...observed, foundBy: found.foundBy } : observed };
    } catch (error) {
      return { ok: false, error };
    }
  };
  return Promise.all(
    members.map((member, i) => {
      if (byKey[i]) return listing.complete ? findListed(member) : readAlone(member, i);
      const found = projected[i];
      if (found !== undefined) return found;
      if (listing.complete) return { ok: true, observation: { exists: false } } satisfies MemberRead;
      return readAlone(member, i);
    }),
  );
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
 * or single reads would cost less; with `onItem` (members found by natural key), to the list's
 * end. Each member's item goes to `onFound`, and every item to `onItem`, as its page is taken;
 * pages are taken in their order, whatever order they come in, so an item listed twice is always
 * the first page's.
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
  // Members found by natural key need the whole list: none may stop it early.
  const exhaustive = onItem !== undefined;
  const found = new Set<string>();
  const seen = new Set<string>();
  const paging = list.paging;
  const limit = paging.kind === 'offset' ? Math.max(1, Math.min(paging.maxPageSize, ctx.pageSize ?? paging.maxPageSize)) : 0;
  const maxPages = ctx.maxPages ?? MAX_LIST_PAGES;
  const fetch = (index: number, size = limit) => ctx.schedule(() => list.fetchPage(ctx, members, { index, offset: index * size, limit }));
  /** Takes a page's items; the number of items it had not seen before. */
  const take = (page: ListPage<Item>): number => {
    let fresh = 0;
    for (const item of page.items) {
      const id = list.itemId(item);
      if (seen.has(id)) continue;
      seen.add(id);
      fresh += 1;
      onItem?.(item);
      if (wanted.has(id)) {
        found.add(id);
        onFound(id, item);
      }
    }
    return fresh;
  };
  const missing = () => wanted.size - found.size;
  const endless = () => new EdgeformError('EDGEFORM_PAGING', `the list ${list.describe(members)} did not end after ${maxPages} pages; edgeform stopped following it`);

  const first = await fetch(0);
  take(first);
  if (paging.kind === 'none') return { complete: first.total === undefined || (first.total === first.items.length && seen.size === first.total) };
  if (paging.kind === 'offset' && first.total !== undefined) {
    // A counted list: the count says how many pages there are, and they can be fetched at once.
    // A platform serving fewer items a page than asked for pages by what it serves.
    const total = first.total;
    const size = first.items.length > 0 && first.items.length < Math.min(limit, total) ? first.items.length : limit;
    const pages = Math.max(1, Math.ceil(total / size));
    const rest = pages - 1;
    if (rest > 0 && !exhaustive && (missing() === 0 || rest >= missing())) return { complete: false };
    if (pages > maxPages) throw endless();
    // Each page is taken once those before it are (a later one that comes first waits).
    const waiting = new Map<number, ListPage<Item>>();
    let next = 1;
    const arrived = (index: number, page: ListPage<Item>): number | undefined => {
      waiting.set(index, page);
      for (let ready = waiting.get(next); ready !== undefined; ready = waiting.get(next)) {
        waiting.delete(next);
        take(ready);
        next += 1;
      }
      return page.total;
    };
    const totals = await Promise.all(Array.from({ length: rest }, (_, i) => fetch(i + 1, size).then((page) => arrived(i + 1, page))));
    const agree = totals.every((count) => count === total) && seen.size === total;
    return { complete: agree };
  }
  // No count: follow the pages one by one while they pay for themselves, to an empty page (or,
  // where edgeform chose the page size, one shorter than asked for).
  let page = first;
  for (let read = 1; ; read++) {
    if (page.items.length === 0 || (paging.kind === 'offset' && page.items.length < limit)) return { complete: true };
    if (!exhaustive && (missing() <= 1 || read > found.size)) return { complete: false };
    if (read >= maxPages) throw endless();
    page = await fetch(read);
    // A page of nothing new: the platform repeats itself instead of paging; stop here.
    if (take(page) === 0 && page.items.length > 0) return { complete: false };
  }
}
