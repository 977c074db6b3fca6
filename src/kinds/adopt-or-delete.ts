import { z } from 'zod';
import type { DeletableType, ResourceAttributes } from './registry.js';
import type { ResourceProvider } from './provider.js';
import { deleteIfPresent, readOrGone, requireAction } from './shared.js';

/** What differs between the adopt-or-delete kinds: where the resource lives and what `before` shows. */
export interface DeletableKind<T extends DeletableType> {
  type: T;
  idField: ResourceProvider<T>['idField'];
  /** The resource's path (GET and DELETE) from the block's attributes (its id). */
  path: (desired: ResourceAttributes[T]) => string;
  /**
   * The fields of the platform's answer that `before` shows (identifying ones), with their
   * shapes: the answer is checked against them (other fields pass through), and an optional
   * field that is absent shows as null.
   */
  fields: Readonly<Record<string, z.ZodType>>;
}

/**
 * A provider for a kind edgeform adopts by id or deletes, with no fields to update: read
 * through GET (404 is "gone"), delete through DELETE (404 counts as done, the request is
 * idempotent and retried).
 */
export function defineDeletableProvider<T extends DeletableType>(kind: DeletableKind<T>): ResourceProvider<T> {
  const answer = z.looseObject(kind.fields);
  const project = (id: unknown, body: Record<string, unknown>) => ({ [kind.idField]: id, ...Object.fromEntries(Object.keys(kind.fields).map((f) => [f, body[f] ?? null])) });
  return {
    kind: 'resource',
    type: kind.type,
    idField: kind.idField,
    verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },
    async read(ctx, desired) {
      const body = await readOrGone(async () => (await ctx.api.get(kind.path(desired), { schema: answer, signal: ctx.signal })).body);
      return body ? { exists: true, state: project(desired[kind.idField], body) } : { exists: false };
    },
    summarize: (state) => ({ ...state }),
    plan: (_desired, state) => ({ action: 'no-op', before: { ...state }, after: { ...state }, changes: [], errors: [], warnings: [], notes: [] }),
    async apply(ctx, change) {
      requireAction(change, 'delete');
      await deleteIfPresent(() => ctx.api.request({ method: 'DELETE', path: kind.path(change.desired), retry: 'idempotent', signal: ctx.signal }));
    },
  };
}
