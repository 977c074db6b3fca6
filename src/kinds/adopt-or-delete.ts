import { z } from 'zod';
import type { KindImporter } from './kind-list.js';
import type { ProviderContext, ResourceProvider } from './provider.js';
import { defineListReads, type ListMembers, type ListPage, type PageRequest, type Paging } from './list-read.js';
import type { DeletableType, ResourceAttributes } from './registry.js';
import { deleteIfPresent, readOrGone, requireAction } from './shared.js';

/** An item of a deletable kind's list: the platform's `id` and the fields `before` shows. */
export type DeletableItem = { id: string | number } & Record<string, unknown>;

/**
 * A deletable kind's list endpoint (see ListEndpoint): which resources one list serves, how it
 * pages, and how one page is fetched; `item` is the schema of one list item (the kind's fields
 * and its `id`), for the page's own schema.
 */
export interface DeletableList<T extends DeletableType> {
  /** The group of a resource; a constant when the list holds every resource of the account. */
  group(desired: ResourceAttributes[T]): string;
  paging: Paging;
  /** Members named at most in one list filtered by their ids (quota requests' `request_ids`). */
  maxMembersPerList?: number;
  /** `GET /path`, for messages. */
  describe(members: ListMembers<T>): string;
  fetchPage(ctx: ProviderContext, members: ListMembers<T>, page: PageRequest, item: z.ZodType<DeletableItem>): Promise<ListPage<DeletableItem>>;
}

/** What differs between the adopt-or-delete kinds: where the resource lives and what `before` shows. */
export interface DeletableKind<T extends DeletableType> {
  type: T;
  idField: ResourceProvider<T>['idField'];
  /** The resource's path (GET and DELETE) from the block's attributes (its id). */
  path: (desired: ResourceAttributes[T]) => string;
  /**
   * The fields of the platform's answer that `before` shows (identifying ones), with their
   * shapes: the answer is checked against them (other fields pass through), and an optional
   * field that is absent shows as null. List items are checked against the same shapes.
   */
  fields: Readonly<Record<string, z.ZodType>>;
  /** The kind's list endpoint, which reads many resources at once; their `id` matches the idField. */
  list: DeletableList<T>;
  /** How `edgeform import` turns the kind's list items into blocks (see ResourceProvider.import). */
  import?: KindImporter<T>;
}

/** The schema of one list item of a deletable kind, as the provider checks it: the fields `before` shows and the platform's `id` (for a kind's list.ts). */
export function deletableItemSchema<F extends Readonly<Record<string, z.ZodType>>>(fields: F) {
  return z.looseObject({ ...fields, id: z.union([z.int(), z.string()]) });
}

/**
 * A provider for a kind edgeform adopts by id or deletes, with no fields to update: read
 * through GET (404 is "gone") or, for many at once, through the kind's list, with one
 * projection of the answer; delete through DELETE (404 counts as done, the request is
 * idempotent and retried).
 */
export function defineDeletableProvider<T extends DeletableType>(kind: DeletableKind<T>): ResourceProvider<T> {
  const answer = z.looseObject(kind.fields);
  const item: z.ZodType<DeletableItem> = z.looseObject({ ...kind.fields, id: z.union([z.int(), z.string()]) });
  const memberId = (desired: ResourceAttributes[T]) => String(desired[kind.idField]);
  const project = (id: unknown, body: Record<string, unknown>) => ({ [kind.idField]: id, ...Object.fromEntries(Object.keys(kind.fields).map((f) => [f, body[f] ?? null])) });
  const reads = defineListReads<T, Record<string, unknown>>({
    readOne: (ctx, desired) => readOrGone(async () => (await ctx.api.get(kind.path(desired), { schema: answer, signal: ctx.signal })).body),
    project: (_ctx, desired, body) => ({ exists: true, state: project(desired[kind.idField], body) }),
    list: {
      group: (desired) => kind.list.group(desired),
      memberId,
      itemId: (listed) => String(listed.id),
      paging: kind.list.paging,
      ...(kind.list.maxMembersPerList !== undefined ? { maxMembersPerList: kind.list.maxMembersPerList } : {}),
      describe: (members) => kind.list.describe(members),
      fetchPage: (ctx, members, page) => kind.list.fetchPage(ctx, members, page, item),
    },
  });
  return {
    kind: 'resource',
    type: kind.type,
    idField: kind.idField,
    verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },
    read: reads.read,
    groupRead: reads.groupRead,
    ...(kind.import ? { import: kind.import } : {}),
    summarize: (state) => ({ ...state }),
    plan: (_desired, state) => ({ action: 'no-op', before: { ...state }, after: { ...state }, changes: [], errors: [], warnings: [], notes: [] }),
    async apply(ctx, change) {
      requireAction(change, 'delete');
      await deleteIfPresent(() => ctx.api.request({ method: 'DELETE', path: kind.path(change.desired), retry: 'idempotent', signal: ctx.signal }));
    },
  };
}
