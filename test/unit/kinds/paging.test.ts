import { describe, expect, it } from 'vitest';
import { EdgeformError } from '../../../src/errors.js';
import { readAllPages, readPages, type ListPage, type PageRequest, type PagedList, type Paging } from '../../../src/kinds/paging.js';

interface Item {
  id: number;
}

/** A list served by `serve` (what the platform answers for a page request), recording each request. */
function list(paging: Paging, serve: (page: PageRequest) => ListPage<Item>): { list: PagedList<Item>; requests: PageRequest[] } {
  const requests: PageRequest[] = [];
  return {
    requests,
    list: {
      paging,
      describe: 'GET /things',
      itemId: (item) => String(item.id),
      fetchPage: async (page) => (requests.push(page), serve(page)),
    },
  };
}

const items = (from: number, to: number): Item[] => Array.from({ length: Math.max(0, to - from) }, (_, i) => ({ id: from + i + 1 }));
const offsetPaging: Paging = { kind: 'offset', maxPageSize: 1000 };
const pagingError = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EdgeformError);
  expect((error as EdgeformError).code).toBe('EDGEFORM_PAGING');
  return (error as EdgeformError).message;
};

describe('the paging guard', () => {
  it('ends a list that serves the same page twice (numbered pages), each item once, with no further request', async () => {
    const { list: l, requests } = list({ kind: 'pages' }, () => ({ items: items(0, 3) }));
    const { items: got, read } = await readAllPages(l);
    expect(got.map((i) => i.id)).toEqual([1, 2, 3]);
    expect(read).toEqual({ end: 'repeated', complete: false });
    expect(requests).toHaveLength(2);
  });

  it('ends a counted offset list whose next page repeats the first, as not complete', async () => {
    const { list: l, requests } = list(offsetPaging, () => ({ items: items(0, 2), total: 6 }));
    const { read } = await readAllPages(l, { pageSize: 2 });
    expect(read.end).toBe('repeated');
    expect(requests.map((r) => r.offset)).toEqual([0, 2]);
  });

  it('ends where a next link names a page already followed (the link loops back) without requesting it again', async () => {
    const { list: l, requests } = list({ kind: 'pages' }, (page) => ({ items: items(page.index * 2, page.index * 2 + 2), next: page.index === 2 ? '2' : String(page.index + 2) }));
    const { read } = await readAllPages(l);
    expect(read.end).toBe('repeated');
    expect(requests.map((r) => r.next)).toEqual([undefined, '2', '3']);
  });

  it('fails a list that never ends after maxPages pages (EDGEFORM_PAGING, naming the request)', async () => {
    const { list: l, requests } = list({ kind: 'pages' }, (page) => ({ items: items(page.index, page.index + 1) }));
    expect(await pagingError(readAllPages(l, { maxPages: 4 }))).toBe('the list GET /things did not end after 4 pages; edgeform stopped following it');
    expect(requests).toHaveLength(4);
  });

  it('fails a cursor list whose cursors never end, and a counted list whose count needs more pages than allowed, before paging it', async () => {
    const cursor = list({ kind: 'cursor' }, (page) => ({ items: items(page.index, page.index + 1), next: `c${page.index + 1}` }));
    expect(await pagingError(readAllPages(cursor.list, { maxPages: 3 }))).toBe('the list GET /things did not end after 3 pages; edgeform stopped following it');
    expect(cursor.requests.map((r) => r.next)).toEqual([undefined, 'c1', 'c2']);
    const counted = list(offsetPaging, (page) => ({ items: items(page.offset, page.offset + page.limit), total: 100 }));
    await pagingError(readAllPages(counted.list, { pageSize: 10, maxPages: 5 }));
    expect(counted.requests).toHaveLength(1);
  });

  it('never asks for a page past the count, even when the platform would serve one', async () => {
    const { list: l, requests } = list(offsetPaging, (page) => ({ items: items(page.offset, page.offset + page.limit), total: 5 }));
    const { items: got, read } = await readAllPages(l, { pageSize: 2 });
    expect(got.map((i) => i.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(requests.map((r) => r.offset)).toEqual([0, 2, 4]);
    // Six items where the count says five: the pages disagree with it, so the list is not complete.
    expect(read).toEqual({ end: 'disagree', complete: false });
  });

  it('reads the remaining pages of a counted list at once when asked, taking them in order', async () => {
    const { list: l, requests } = list(offsetPaging, (page) => ({ items: items(page.offset, Math.min(7, page.offset + page.limit)), total: 7 }));
    const order: number[] = [];
    const read = await readPages(l, { pageSize: 3, ahead: true, onItem: (item) => order.push(item.id) });
    expect(read).toEqual({ end: 'end', complete: true });
    expect(order).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests.map((r) => r.offset)).toEqual([0, 3, 6]);
  });

  it('follows cursors to an answer naming none, and stops where `more` says so', async () => {
    const { list: l, requests } = list({ kind: 'cursor' }, (page) => ({ items: items(page.index, page.index + 1), next: page.index < 2 ? `c${page.index + 1}` : null }));
    expect((await readAllPages(l)).read).toEqual({ end: 'end', complete: true });
    expect(requests).toHaveLength(3);
    const stopped = await readPages(l, { onItem: () => {}, more: (read) => read < 2 });
    expect(stopped).toEqual({ end: 'stopped', complete: false });
  });
});
