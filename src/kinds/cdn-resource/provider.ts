import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { deactivateBeforeDelete } from '../cdn-deactivate.js';
import { destroyedOriginGroups, groupDependency, usesCdn } from '../cdn-prune.js';
import { planDeclaredOptions } from '../cdn-options-plan.js';
import { createPlan, onlyMatch } from '../create.js';
import { diffDeclared } from '../declared-fields.js';
import { listAll } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import type { OwnedResource, PruneListing, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import type { FieldChange } from '../../plan/types.js';
import { resourceImport } from './import.js';
import { resourceAnswer, resourceList, type CdnResource } from './list.js';
import { stackMark, withMark } from './mark.js';
import { resourceState } from './state.js';

const RESOURCES = resourceList.path({});
const resourcePath = (id: number | string) => apiPath`/cdn/resources/${id}`;

type Desired = ResourceAttributes['cdn_resource'];

/** Block fields compared as values, and the platform's name of each. */
const SCALARS = {
  origin_group: 'originGroup',
  origin_protocol: 'originProtocol',
  secondary_hostnames: 'secondaryHostnames',
  active: 'active',
  description: 'description',
  ssl_enabled: 'sslEnabled',
  ssl_data: 'sslData',
} as const;
const SCALAR_FIELDS = Object.keys(SCALARS) as Array<keyof typeof SCALARS>;

/** The block's declared scalar fields, normalized as the state is (secondary hostnames sorted: a set). */
function declaredScalars(desired: Desired): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of SCALAR_FIELDS) if (desired[field] !== undefined) out[field] = desired[field];
  if (desired.secondary_hostnames !== undefined) out.secondary_hostnames = [...desired.secondary_hostnames].sort();
  return out;
}

/** A request body in the platform's names from block fields (the description carrying `mark`'s stack when given). */
function bodyOf(fields: Record<string, unknown>, stack: string | null): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'description') body.description = withMark(value as string, stack);
    else if (field in SCALARS) body[SCALARS[field as keyof typeof SCALARS]] = value;
    else body[field] = value;
  }
  return body;
}

const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()) });

/** The one resource with the block's cname (unique on the platform, but its answer is not trusted). */
function pickByCname(desired: Desired, resources: readonly CdnResource[]): { item: CdnResource; foundBy: string } | null {
  const identity = `cname ${JSON.stringify(desired.cname)}`;
  const item = onlyMatch(
    resources.filter((r) => r.cname === desired.cname),
    (r) => r.id,
    { type: 'cdn_resource', identity, idField: 'resource_id' },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cdn_resource', CdnResource>({
  readOne: (ctx, desired) => readOrGone(async () => (await ctx.api.get(resourcePath(desired.resource_id!), { schema: resourceAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, resource) => ({ exists: true, state: resourceState(resource) }),
  hasId: (desired) => desired.resource_id !== undefined,
  async find(ctx, desired) {
    const named = await listAll(ctx, resourceList, { cname: desired.cname }, (r) => String(r.id));
    return pickByCname(desired, named);
  },
  findInList: { key: (desired) => desired.cname, itemKey: (resource) => resource.cname, pick: pickByCname },
  list: {
    group: () => 'resources',
    memberId: (desired) => String(desired.resource_id),
    itemId: (resource) => String(resource.id),
    paging: resourceList.paging,
    describe: () => `GET ${RESOURCES}`,
    fetchPage: (ctx, _members, page) => resourceList.fetchPage(ctx, {}, page),
  },
});

/**
 * The CDN resources a stack owns without declaring them, for prune: those whose description ends
 * with the stack's mark (mark.ts; written by edgeform's create, never by hand), found in one list
 * of the account's resources (its pages), but none a block declares: by its `resource_id` or
 * `cname`, or found by a block's read (so a block whose cname is a reference keeps its resource).
 * A resource with no mark, another stack's, or one edited by hand is not the stack's. Run after
 * the reads for those ids; the list page the reads fetched is not fetched again (readOnce). As
 * the cloud kinds list only the places their blocks name, a stack without CDN blocks lists
 * nothing (and sends no CDN request).
 * Each is addressed `cdn_resource.CNAME`, which no block name can be (it has dots).
 */
const pruneListing: PruneListing<'cdn_resource'> = {
  afterReads: true,
  async list(ctx, declared, stack) {
    const stackName = stack?.name ?? null;
    if (stack === undefined || stackName === null || !usesCdn(stack)) return [];
    const ids = new Set<number>();
    const cnames = new Set<string>();
    for (const d of declared) {
      if (typeof d.resource_id === 'number') ids.add(d.resource_id);
      cnames.add(d.cname);
    }
    for (const block of stack.read?.('cdn_resource') ?? []) if (block.observation?.exists === true) ids.add(block.observation.state.resource_id as number);
    const groups = destroyedOriginGroups(stack);
    const resources = await listAll(ctx, resourceList, {}, (r) => String(r.id));
    return resources.flatMap((resource): OwnedResource<'cdn_resource'>[] => {
      const state = resourceState(resource);
      if (state.stack_mark !== stackName || ids.has(resource.id) || cnames.has(resource.cname)) return [];
      return [
        {
          stack: stackName,
          address: `cdn_resource.${resource.cname}`,
          place: 'account',
          desired: { resource_id: resource.id, cname: resource.cname, ensure: 'absent' } as Desired,
          observation: { exists: true, state },
          pruneReason: `no block declares it, and its description carries this stack's mark ${stackMark(stackName)} (prune: true); its rules go with it`,
          ...groupDependency(groups, resource.originGroup),
        },
      ];
    });
  },
};

/** Create (POST), update (PATCH of the fields that differ) and delete; no tasks. */
const lifecycle = defineLifecycle('cdn_resource', {
  idField: 'resource_id',
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: RESOURCES, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: resourcePath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: resourcePath(id) }) },
});

/**
 * CDN resources (synchronous API). A block names its `resource_id` (adopt) or only its `cname`
 * (unique on the platform); blocks found by cname are found in one read of the account's
 * resource list (its pages), one alone through the list's `cname` filter. Only declared fields
 * are compared and sent (`PATCH /cdn/resources/{id}`), and of `options` only the declared
 * options and, within each, the declared fields (src/kinds/cdn-options.ts). A create appends
 * the stack mark to the description (mark.ts); the plan compares the user's text without it.
 * A delete deactivates the resource first (the platform refuses to delete an active one).
 * With `prune: true`, a resource carrying the stack's mark that no block declares is destroyed
 * (see pruneListing).
 */
export const cdnResource: ResourceProvider<'cdn_resource'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cdn_resource',
  read: reads.read,
  groupRead: reads.groupRead,
  import: resourceImport,
  pruneListing,

  async apply(ctx, change) {
    if (change.action === 'delete' || change.action === 'replace') {
      const id = change.desired.resource_id ?? change.before?.resource_id;
      await deactivateBeforeDelete(ctx, typeof id === 'number' ? resourcePath(id) : null, change.before?.active);
    }
    return lifecycle.apply(ctx, change);
  },

  destroyNote: (state) => (state.active === false ? undefined : 'deactivates first'),

  summarize: (state) => ({ resource_id: state.resource_id, cname: state.cname, active: state.active, status: state.status }),

  plan(desired, state) {
    const want = declaredScalars(desired);
    const diff = diffDeclared(want, state, SCALAR_FIELDS);
    const changes: FieldChange[] = [...diff.changes];
    const before: Record<string, unknown> = { resource_id: state.resource_id, cname: state.cname };
    for (const field of SCALAR_FIELDS) if (want[field] !== undefined) before[field] = state[field] ?? null;
    const options = planDeclaredOptions(desired.options, state.options as Record<string, unknown>);
    changes.push(...options.changes);
    if (options.before !== undefined) before.options = options.before;
    const after: Record<string, unknown> = { ...before, ...want, ...(desired.options === undefined ? {} : { options: desired.options }) };
    const changed = Object.fromEntries(diff.changed.map((field) => [field, want[field]]));
    return {
      action: changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes,
      ...(changes.length > 0 ? { payload: { body: { ...bodyOf(changed, (state.stack_mark as string | null) ?? null), ...options.body } } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired, ref) {
      const fields: Record<string, unknown> = { cname: desired.cname, ...declaredScalars(desired) };
      if (desired.origin !== undefined) fields.origin = desired.origin;
      if (desired.options !== undefined) fields.options = desired.options;
      const errors =
        desired.origin_group === undefined && desired.origin === undefined
          ? [
              {
                field: 'cname',
                summary: 'creating a cdn_resource needs origin_group or origin',
                detail: 'Add origin_group: ${cdn_origin_group.NAME.id} (or origin: host) to the block, or set resource_id to adopt a resource.',
              },
            ]
          : [];
      const body = bodyOf({ ...fields, description: desired.description ?? '' }, ref.stack);
      const notes = ref.stack === null ? [] : [`the description carries the stack mark [edgeform:${ref.stack}] (not shown as drift)`];
      return createPlan(fields, 'resource_id', { body }, { errors, notes });
    },
    identity: (desired) => (desired.resource_id === undefined ? `cname ${JSON.stringify(desired.cname)}` : null),
  },
};
