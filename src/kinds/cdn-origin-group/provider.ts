import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { createPlan, onlyMatch } from '../create.js';
import { diffDeclared } from '../declared-fields.js';
import { listAll } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import type { ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import { originGroupImport } from './import.js';
import { originGroupAnswer, originGroupList, type OriginGroup } from './list.js';
import { groupState } from './state.js';

const GROUPS = originGroupList.path({});
const groupPath = (id: number | string) => apiPath`/cdn/origin_groups/${id}`;

type Desired = ResourceAttributes['cdn_origin_group'];

/** The declared fields, as compared and sent (`proxy_next_upstream` sorted: a set). */
const FIELDS = ['name', 'origins', 'use_next', 'proxy_next_upstream'] as const;

/** The block's declared fields, normalized as the state is (origins with their defaults, the set sorted). */
function declared(desired: Desired): Record<string, unknown> {
  const out: Record<string, unknown> = { name: desired.name };
  if (desired.origins !== undefined) out.origins = desired.origins.map((o) => ({ source: o.source, backup: o.backup, enabled: o.enabled }));
  if (desired.use_next !== undefined) out.use_next = desired.use_next;
  if (desired.proxy_next_upstream !== undefined) out.proxy_next_upstream = [...desired.proxy_next_upstream].sort();
  return out;
}

/** The request body of a create or an update (ChangeOriginGroup, no auth): `sources` for origins. */
function bodyOf(fields: Record<string, unknown>): Record<string, unknown> {
  const { origins, ...rest } = fields;
  return { ...rest, ...(origins === undefined ? {} : { sources: origins }) };
}

const payloadSchema = z.object({
  body: z.strictObject({
    name: z.string(),
    sources: z.array(z.strictObject({ source: z.string(), backup: z.boolean(), enabled: z.boolean() })).optional(),
    use_next: z.boolean().optional(),
    proxy_next_upstream: z.array(z.string()).optional(),
  }),
});

/** The one group with the block's name; two are the ambiguous-identity error naming both. */
function pickByName(desired: Desired, groups: readonly OriginGroup[]): { item: OriginGroup; foundBy: string } | null {
  const identity = `name ${JSON.stringify(desired.name)}`;
  const item = onlyMatch(
    groups.filter((g) => g.name === desired.name),
    (g) => g.id,
    { type: 'cdn_origin_group', identity, idField: 'origin_group_id' },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cdn_origin_group', OriginGroup>({
  readOne: (ctx, desired) => readOrGone(async () => (await ctx.api.get(groupPath(desired.origin_group_id!), { schema: originGroupAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, group) => ({ exists: true, state: groupState(group) }),
  hasId: (desired) => desired.origin_group_id !== undefined,
  async find(ctx, desired) {
    const named = await listAll(ctx, originGroupList, { name: desired.name }, (g) => String(g.id));
    return pickByName(desired, named);
  },
  findInList: { key: (desired) => desired.name, itemKey: (group) => group.name, pick: pickByName },
  list: {
    group: () => 'origin_groups',
    memberId: (desired) => String(desired.origin_group_id),
    itemId: (group) => String(group.id),
    paging: originGroupList.paging,
    describe: () => `GET ${GROUPS}`,
    fetchPage: (ctx, _members, page) => originGroupList.fetchPage(ctx, {}, page),
  },
});

/** Create (POST), update (PATCH with the name and the fields that differ: harmless to repeat) and delete; no tasks. */
const lifecycle = defineLifecycle('cdn_origin_group', {
  idField: 'origin_group_id',
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: GROUPS, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: groupPath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: groupPath(id) }) },
});

/**
 * CDN origin groups (synchronous API). A block names its `origin_group_id` (adopt) or only its
 * `name`; the blocks found by name are found in one read of the account's group list (its
 * pages), one alone through the list's `name` filter (only the exact name counts). Every field
 * changes in place (`PATCH /cdn/origin_groups/{id}`, which always carries the name: the
 * vendor's None-auth body requires it). The platform refuses to delete a group a resource or a
 * rule uses; references order deletes so that those go first.
 */
export const cdnOriginGroup: ResourceProvider<'cdn_origin_group'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cdn_origin_group',
  read: reads.read,
  groupRead: reads.groupRead,
  import: originGroupImport,

  summarize: (state) => ({ origin_group_id: state.origin_group_id, name: state.name }),

  plan(desired, state) {
    const want = declared(desired);
    const diff = diffDeclared(want, state, FIELDS);
    const before: Record<string, unknown> = { origin_group_id: state.origin_group_id };
    for (const field of FIELDS) if (want[field] !== undefined) before[field] = state[field] ?? null;
    const changed = Object.fromEntries(diff.changed.map((field) => [field, want[field]]));
    return {
      action: diff.changes.length > 0 ? 'update' : 'no-op',
      before,
      after: { ...before, ...want },
      changes: diff.changes,
      ...(diff.changes.length > 0 ? { payload: { body: bodyOf({ name: desired.name, ...changed }) } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired) {
      const want = declared(desired);
      const errors =
        desired.origins === undefined
          ? [
              {
                field: 'name',
                summary: 'creating a cdn_origin_group needs origins (at least one source)',
                detail: 'Add origins: [{ source: example.com }] to the block, or set origin_group_id to adopt a group.',
              },
            ]
          : [];
      return createPlan(want, 'origin_group_id', { body: bodyOf(want) }, { errors });
    },
    identity: (desired) => (desired.origin_group_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
  },
};
