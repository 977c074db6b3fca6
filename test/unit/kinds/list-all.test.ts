import { describe, expect, it } from 'vitest';
import { EdgeformError } from '../../../src/errors.js';
import { listAll, type KindList } from '../../../src/kinds/kind-list.js';
import type { PageRequest, Paging } from '../../../src/kinds/list-read.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { RESOURCE_TYPES } from '../../../src/kinds/registry.js';
import { providers } from '../../../src/kinds/providers.js';

/** listAll never touches the context itself: the list's fetchPage is the only I/O. */
const ctx = {} as ProviderContext;

interface Item {
  id: number;
}

/**
 * A list of `total` items served by a function of the page asked for: `offset` lists serve
 * `limit` items from `offset` (at most `serve` a page), `pages` lists `size` items a page.
 */
function fakeList(paging: Paging, total: number, options: { count?: boolean; serve?: number; size?: number } = {}) {
  const requests: PageRequest[] = [];
  const all = Array.from({ length: total }, (_, i) => ({ id: i + 1 }));
  const list: KindList<Record<never, never>, Item> = {
    paging,
    path: () => '/things',
    async fetchPage(_ctx, _scope, page) {
      requests.push(page);
      if (paging.kind === 'none') return { items: all, total };
      const items =
        paging.kind === 'offset'
          ? all.slice(page.offset, page.offset + Math.min(page.limit, options.serve ?? page.limit))
          : all.slice(page.index * (options.size ?? 25), (page.index + 1) * (options.size ?? 25));
      return options.count === false ? { items } : { items, total };
    },
  };
  return { list, requests };
}

const ids = (items: Item[]) => items.map((i) => i.id);

describe('listAll', () => {
  it('follows a counted offset list to its count, each page once', async () => {
    const { list, requests } = fakeList({ kind: 'offset', maxPageSize: 1000 }, 7);
    expect(ids(await listAll(ctx, list, {}, (i) => String(i.id), { pageSize: 3 }))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests.map((r) => [r.offset, r.limit])).toEqual([
      [0, 3],
      [3, 3],
      [6, 3],
    ]);
  });

  it('asks for the largest page by default and reads a list that fits in one page with one request', async () => {
    const { list, requests } = fakeList({ kind: 'offset', maxPageSize: 1000 }, 1000);
    expect(await listAll(ctx, list, {}, (i) => String(i.id))).toHaveLength(1000);
    expect(requests).toEqual([{ index: 0, offset: 0, limit: 1000 }]);
  });

  it('pages by what a platform serves when it serves fewer items a page than asked for', async () => {
    const { list, requests } = fakeList({ kind: 'offset', maxPageSize: 1000 }, 5, { serve: 2 });
    expect(ids(await listAll(ctx, list, {}, (i) => String(i.id), { pageSize: 10 }))).toEqual([1, 2, 3, 4, 5]);
    expect(requests.map((r) => r.offset)).toEqual([0, 2, 4]);
  });

  it('ends an offset list without a count at a short page', async () => {
    const { list, requests } = fakeList({ kind: 'offset', maxPageSize: 1000 }, 6, { count: false });
    expect(ids(await listAll(ctx, list, {}, (i) => String(i.id), { pageSize: 3 }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(requests.map((r) => r.offset)).toEqual([0, 3, 6]);
  });

  it('follows numbered pages to an empty page', async () => {
    const { list, requests } = fakeList({ kind: 'pages' }, 30);
    expect(await listAll(ctx, list, {}, (i) => String(i.id))).toHaveLength(30);
    expect(requests.map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it('reads a list that does not page with one request', async () => {
    const { list, requests } = fakeList({ kind: 'none' }, 4);
    expect(await listAll(ctx, list, {}, (i) => String(i.id))).toHaveLength(4);
    expect(requests).toHaveLength(1);
  });

  it('stops when a page brings nothing new (a platform that repeats itself), keeping each item once', async () => {
    const requests: number[] = [];
    const list: KindList<Record<never, never>, Item> = {
      paging: { kind: 'pages' },
      path: () => '/things',
      fetchPage: async (_c, _s, page) => (requests.push(page.index), { items: [{ id: 1 }, { id: 2 }] }),
    };
    expect(ids(await listAll(ctx, list, {}, (i) => String(i.id)))).toEqual([1, 2]);
    expect(requests).toEqual([0, 1]);
  });

  it('fails with EDGEFORM_PAGING when the list does not end within maxPages', async () => {
    let n = 0;
    const list: KindList<Record<never, never>, Item> = { paging: { kind: 'pages' }, path: () => '/things', fetchPage: async () => ({ items: [{ id: ++n }] }) };
    const error = await listAll(ctx, list, {}, (i) => String(i.id), { maxPages: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EdgeformError);
    expect((error as EdgeformError).code).toBe('EDGEFORM_PAGING');
    expect((error as EdgeformError).message).toBe('the list GET /things did not end after 5 pages; edgeform stopped following it');
  });

  it('reports progress after each page that more pages follow, with the items found so far', async () => {
    const { list } = fakeList({ kind: 'offset', maxPageSize: 1000 }, 7);
    const seen: number[] = [];
    await listAll(ctx, list, {}, (i) => String(i.id), { pageSize: 3, onPage: (n) => seen.push(n) });
    expect(seen).toEqual([3, 6]);
  });
});

describe('every resource kind can be imported', () => {
  it.each(RESOURCE_TYPES)('%s has an importer of its own type', (type) => {
    expect(providers.resources[type].import?.type).toBe(type);
  });
});
