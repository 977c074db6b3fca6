import { EdgeformError } from '../errors.js';

/** List pages one list read follows at most (a million cloud resources at 1,000 a page). */
export const MAX_LIST_PAGES = 1000;

/**
 * How a list endpoint pages, declared once per endpoint (as gcore-python's `pagination.py`
 * declares one page class per style) and followed by one loop, {@link readPages}:
 *
 * - `offset`: `limit`/`offset`, up to `maxPageSize` items a page (cloud lists: 1,000). A page
 *   with a `total` (the platform's `count`) says how many pages there are; without one the list
 *   ends at a page shorter than the `limit` asked for.
 * - `pages`: numbered pages of the platform's own size (streaming players, AI tasks). The list
 *   ends at an empty page, or, where the answer links the next page (`next`), at one linking none.
 * - `cursor`: each answer names the page after it (`next`, an opaque cursor); the list ends at
 *   an answer naming none.
 * - `none`: one answer holds the whole list (Kubernetes clusters, a video's subtitles).
 */
export type Paging = { kind: 'offset'; maxPageSize: number } | { kind: 'pages' } | { kind: 'cursor' } | { kind: 'none' };

/**
 * Which page of a list to fetch: `index` from 0 (a page number is index + 1); for `offset`
 * paging, `offset` = index × limit and `limit` the items asked for; `next`, what the page before
 * named as the next one (its `next`: a page number from a link, or a cursor), when it named one.
 */
export interface PageRequest {
  index: number;
  offset: number;
  limit: number;
  next?: string;
}

/**
 * One page of a list: its items; the number of items the whole list holds when the endpoint says
 * (`total`, the platform's `count`); and, for a list whose answers name the page after them, that
 * page (`next`: a page number or a cursor; null on the last page).
 */
export interface ListPage<Item> {
  items: readonly Item[];
  total?: number;
  next?: string | null;
}

/** A list to page through: how it pages, its request for messages, its page fetcher, and its items' ids. */
export interface PagedList<Item> {
  paging: Paging;
  /** `GET /path`, for messages. */
  describe: string;
  /** Fetches one page (its answer checked with the endpoint's zod schema). */
  fetchPage(page: PageRequest): Promise<ListPage<Item>>;
  /** The id of an item: an item seen on an earlier page is not taken again. */
  itemId(item: Item): string;
}

/** Settings of {@link readPages}. */
export interface ReadPagesOptions<Item> {
  /** Items asked for per page of an `offset` list; default the endpoint's largest page. */
  pageSize?: number | undefined;
  /** Pages followed at most before failing (EDGEFORM_PAGING); default MAX_LIST_PAGES. */
  maxPages?: number | undefined;
  /** Takes each item not seen before, in the list's order. */
  onItem(item: Item): void;
  /**
   * Asked before each page after the first: whether to go on (a group read stops where single
   * reads would cost less). `read`: pages read so far; `left`: the pages a counted list has left
   * (undefined when the list has no count). False ends the reading as `stopped`. Absent: always.
   */
  more?(read: number, left: number | undefined): boolean;
  /** Fetch the remaining pages of a counted list all at once (group reads) rather than one after the other. */
  ahead?: boolean;
  /** Called before each page after the first, with the number of distinct items taken so far (progress of long lists). */
  onPage?(found: number): void;
}

/**
 * How a reading ended: `end`, at the list's end with the pages agreeing (each count the same, that
 * many distinct items): the list is complete; `stopped`, where `more` said so; `repeated`, at a
 * page of nothing new or one named twice (a platform repeating itself instead of paging);
 * `disagree`, at the end but with pages that disagree (the list changed while it was read, or its
 * count is wrong).
 */
export type PagesEnd = 'end' | 'stopped' | 'repeated' | 'disagree';

/** What {@link readPages} read: how it ended, and whether the list is therefore complete. */
export interface PagesRead {
  end: PagesEnd;
  complete: boolean;
}

/** The EDGEFORM_PAGING error of a list that did not end within `maxPages` pages. */
export function endlessListError(describe: string, maxPages: number): EdgeformError {
  return new EdgeformError('EDGEFORM_PAGING', `the list ${describe} did not end after ${maxPages} pages; edgeform stopped following it`);
}

/**
 * Reads a list page after page as its paging declares, handing each item once (by `itemId`) to
 * `onItem` in the list's order, whatever order concurrent pages arrive in: the one paging loop of
 * group reads, finds, import and checks. Its guard against endless or repeating pages: more pages
 * than `maxPages` (or a count that needs more) throws EDGEFORM_PAGING; a page of nothing new, or a
 * `next` named twice, ends the reading (`repeated`); a counted list is never read past its count,
 * and pages that disagree on it make the reading incomplete (`disagree`). A platform serving fewer
 * items a page than asked for is paged by what it serves.
 */
export async function readPages<Item>(list: PagedList<Item>, options: ReadPagesOptions<Item>): Promise<PagesRead> {
  const paging = list.paging;
  const limit = paging.kind === 'offset' ? Math.max(1, Math.min(paging.maxPageSize, options.pageSize ?? paging.maxPageSize)) : 0;
  const maxPages = options.maxPages ?? MAX_LIST_PAGES;
  const seen = new Set<string>();
  /** Takes a page's items; the number it had not seen before. */
  const take = (page: ListPage<Item>): number => {
    let fresh = 0;
    for (const item of page.items) {
      const id = list.itemId(item);
      if (seen.has(id)) continue;
      seen.add(id);
      fresh += 1;
      options.onItem(item);
    }
    return fresh;
  };
  const fetch = (index: number, size: number, next?: string) => list.fetchPage({ index, offset: index * size, limit, ...(next === undefined ? {} : { next }) });
  const ended = (end: PagesEnd): PagesRead => ({ end, complete: end === 'end' });

  const first = await fetch(0, limit);
  take(first);
  if (paging.kind === 'none') return ended(first.total === undefined || (first.total === first.items.length && seen.size === first.total) ? 'end' : 'disagree');
  if (paging.kind === 'offset' && first.total !== undefined) return readCounted(first.total);
  return readFollowing();

  /** A counted offset list: the count says how many pages there are. */
  async function readCounted(total: number): Promise<PagesRead> {
    const size = first.items.length > 0 && first.items.length < Math.min(limit, total) ? first.items.length : limit;
    const pages = Math.max(1, Math.ceil(total / size));
    const whole = () => ended(seen.size === total ? 'end' : 'disagree');
    if (pages === 1) return whole();
    if (options.more && !options.more(1, pages - 1)) return ended('stopped');
    if (pages > maxPages) throw endlessListError(list.describe, maxPages);
    if (options.ahead) {
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
      const totals = await Promise.all(Array.from({ length: pages - 1 }, (_, i) => fetch(i + 1, size).then((page) => arrived(i + 1, page))));
      return totals.every((count) => count === total) ? whole() : ended('disagree');
    }
    let agree = true;
    for (let index = 1; ; index++) {
      options.onPage?.(seen.size);
      const page = await fetch(index, size);
      const fresh = take(page);
      if (page.total !== total) agree = false;
      if (page.items.length === 0) return agree ? whole() : ended('disagree');
      if (fresh === 0) return ended('repeated');
      // The last page by this page's count (or, should it give none, a short page); never one past it.
      const last = page.total !== undefined ? (index + 1) * size >= page.total : page.items.length < limit;
      if (last) return agree ? whole() : ended('disagree');
      if (index + 1 >= maxPages) throw endlessListError(list.describe, maxPages);
    }
  }

  /** A list without a count: page after page to its end (an empty page, a short one, or none named next). */
  async function readFollowing(): Promise<PagesRead> {
    const named = new Set<string>();
    let page = first;
    for (let read = 1; ; read++) {
      const last =
        page.items.length === 0 || (paging.kind === 'offset' && page.items.length < limit) || page.next === null || (paging.kind === 'cursor' && page.next === undefined);
      if (last) return ended('end');
      if (options.more && !options.more(read, undefined)) return ended('stopped');
      if (read >= maxPages) throw endlessListError(list.describe, maxPages);
      const next = page.next ?? undefined;
      if (next !== undefined) {
        if (named.has(next)) return ended('repeated');
        named.add(next);
      }
      options.onPage?.(seen.size);
      page = await fetch(read, limit, next);
      if (take(page) === 0 && page.items.length > 0) return ended('repeated');
    }
  }
}

/** Every item of a list, in its order, each once (see readPages); the reading ends as readPages says (a repeating list ends where it repeats). */
export async function readAllPages<Item>(list: PagedList<Item>, options: Omit<ReadPagesOptions<Item>, 'onItem'> = {}): Promise<{ items: Item[]; read: PagesRead }> {
  const items: Item[] = [];
  const read = await readPages(list, { ...options, onItem: (item) => items.push(item) });
  return { items, read };
}
