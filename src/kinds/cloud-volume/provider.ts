import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange } from '../../plan/types.js';
import { defineOwnedCloud, tagsPatchPayload } from '../cloud-owned.js';
import { imageList } from '../cloud-lists.js';
import { withCreateFacts } from '../create.js';
import { listAll } from '../kind-list.js';
import { isWrittenOut, knownIn, notAmong } from '../refusals.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { Observation, ProviderContext, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { volumeImport } from './import.js';
import { volumeAnswer, volumeList, type Volume } from './list.js';
import { RETYPABLE_VOLUME_TYPES } from './schema.js';

type Desired = ResourceAttributes['cloud_volume'];

const volumePath = (p: number, r: number, id: string) => apiPath`/cloud/v1/volumes/${p}/${r}/${id}`;
const listPath = (p: number, r: number) => apiPath`/cloud/v1/volumes/${p}/${r}`;

/** An update: the PATCH of name and tags, the retype, the extend; each only when it changes something. */
const payloadSchema = z.object({
  patch: z.object({ name: z.string().optional(), tags: tagsPatchPayload.optional() }).optional(),
  volume_type: z.string().optional(),
  size: z.int().optional(),
});

/** The create body (CreateVolumeSerializer by source), the ownership tags in it. */
const createPayloadSchema = z.object({
  source: z.enum(['new-volume', 'image', 'snapshot']),
  name: z.string(),
  size: z.int().optional(),
  type_name: z.string().optional(),
  image_id: z.string().optional(),
  snapshot_id: z.string().optional(),
  tags: z.record(z.string(), z.string()),
});

const get = async (ctx: ProviderContext, d: Desired, id: string) =>
  (await ctx.api.get(volumePath(d.project_id, d.region_id, id), { schema: volumeAnswer, signal: ctx.signal })).body;

/** The projection of a volume answer into an Observation; `task_id` is its lock. */
function observe(v: Volume): Observation & { exists: true } {
  return {
    exists: true,
    state: {
      volume_id: v.id,
      name: v.name,
      size: v.size,
      volume_type: v.volume_type,
      status: v.status,
      image_id: v.volume_image_metadata?.image_id ?? null,
      attached_to: (v.attachments ?? []).map((a) => `${a.instance_name ?? ''} (${a.server_id ?? ''})`),
      attached_servers: (v.attachments ?? []).flatMap((a) => (a.server_id ? [{ id: a.server_id, name: a.instance_name ?? null }] : [])),
      tags: v.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    },
    lockTaskId: v.task_id ?? null,
  };
}

const owned = defineOwnedCloud<'cloud_volume', Volume>({ type: 'cloud_volume', noun: 'volume', list: volumeList, get, observe });

const lifecycle = defineLifecycle('cloud_volume', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (v: Volume) => v.task_id },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: listPath(d.project_id, d.region_id), body: payload }),
    tasks: {
      type: 'create_volume',
      reread: (ctx, { change, desired, payload: { tags } }) =>
        owned.findOwned(ctx, desired, { address: tags['edgeform-address'] ?? change.address, stack: tags['edgeform-stack'] ?? null }),
      done: (v) => v !== null,
    },
    created: { key: 'volumes', noun: 'volume' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'extend_volume',
    async run(ctx, { desired: d, payload, id }, send) {
      const path = volumePath(d.project_id, d.region_id, String(id));
      // Name and tags, and the type, are set synchronously: sending them again is harmless.
      if (payload.patch !== undefined) await ctx.api.request({ method: 'PATCH', path, body: payload.patch, retry: 'idempotent', signal: ctx.signal });
      if (payload.volume_type !== undefined)
        await ctx.api.request({ method: 'POST', path: `${path}/retype`, body: { volume_type: payload.volume_type }, retry: 'idempotent', signal: ctx.signal });
      if (payload.size !== undefined) {
        const size = payload.size;
        await send({ method: 'POST', path: `${path}/extend`, body: { size } }, { reread: () => owned.readOrGone(ctx, d, String(id)), done: (v) => v !== null && v.size >= size });
      }
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: volumePath(d.project_id, d.region_id, String(id)) }),
    tasks: {
      type: 'delete_volume',
      resend: true,
      reread: (ctx, { desired: d, id }) => owned.readOrGone(ctx, d, String(id)),
      done: (v) => v === null,
    },
  },
});

/** The image a block declares its volume made from (null: none, a new volume); undefined when it cannot be seen (a snapshot). */
function declaredImage(d: Desired): string | null | undefined {
  if (d.source === 'snapshot') return undefined;
  return d.source === 'image' ? (d.image_id ?? null) : null;
}

/** The diff of a block against a live volume (see the provider's comment). */
function planVolume(d: Desired, state: Record<string, unknown>): ProviderPlan {
  const liveTags = state.tags as LiveTag[];
  const before: Record<string, unknown> = {
    volume_id: state.volume_id,
    name: state.name,
    size: state.size,
    volume_type: state.volume_type,
    image_id: state.image_id,
    tags: userTags(liveTags),
  };
  const after = { ...before };
  const changes: FieldChange[] = [];
  const errors: ProviderPlan['errors'] = [];
  const payload: z.infer<typeof payloadSchema> = {};
  const patch: NonNullable<z.infer<typeof payloadSchema>['patch']> = {};
  if (d.name !== undefined && d.name !== state.name) {
    changes.push({ path: ['name'], op: 'update', before: state.name, after: d.name });
    patch.name = after.name = d.name;
  }
  const tags = owned.planTags(d, liveTags);
  changes.push(...tags.changes);
  errors.push(...tags.errors);
  if (tags.patch !== undefined) patch.tags = tags.patch;
  if (tags.after !== undefined) after.tags = tags.after;
  if (Object.keys(patch).length > 0) payload.patch = patch;
  const size = state.size as number;
  if (d.size !== undefined && d.size < size) {
    errors.push({
      field: 'size',
      summary: `a volume only grows: it has ${size} GiB, size ${d.size} would shrink it`,
      detail: `Set size to ${size} or more; edgeform never shrinks or replaces a volume to make it smaller.`,
    });
  } else if (d.size !== undefined && d.size > size) {
    changes.push({ path: ['size'], op: 'update', before: size, after: d.size });
    payload.size = after.size = d.size;
  }
  if (d.volume_type !== undefined && d.volume_type !== state.volume_type) {
    if (!RETYPABLE_VOLUME_TYPES.includes(d.volume_type)) {
      errors.push({
        field: 'volume_type',
        summary: `a volume's type can only be changed to ${RETYPABLE_VOLUME_TYPES.join(' or ')}: it is ${String(state.volume_type)}, the stack says ${d.volume_type}`,
      });
    } else {
      changes.push({ path: ['volume_type'], op: 'update', before: state.volume_type, after: d.volume_type });
      payload.volume_type = after.volume_type = d.volume_type;
    }
  }
  const image = declaredImage(d);
  if (image !== undefined && image !== state.image_id) {
    changes.push({
      path: ['source'],
      op: 'update',
      before: state.image_id === null ? 'new' : `image ${String(state.image_id)}`,
      after: image === null ? 'new' : `image ${image}`,
      forces_replacement: true,
    });
  }
  const replace = changes.some((c) => c.forces_replacement);
  return {
    action: replace ? 'replace' : changes.length > 0 ? 'update' : 'no-op',
    before,
    after,
    changes,
    unchanged_elements: { tags: tags.unchanged },
    payload: changes.length > 0 && !replace ? payload : undefined,
    errors,
    warnings: [],
    notes: tags.notes,
  };
}

/**
 * Cloud volumes: edgeform creates them (POST by source: new, from an image, from a snapshot; a
 * task), renames and retags them (PATCH, synchronous; tags as a JSON Merge Patch), retypes them
 * (synchronous), extends them (a task; a smaller declared size is a plan error at `size`, never a
 * replace), replaces them when their source differs (new against an image, or another image: the
 * platform shows a volume's image; a snapshot's is not shown, so a `snapshot` source is never
 * compared), and deletes them (a task; the platform refuses an attached volume, naming the
 * instances). While a task changes the volume, `task_id` holds it (the lock). A block without
 * `volume_id` is found by its ownership tags (cloud-owned.ts).
 */
/** What a volume's create plan checks: the images the project sees in the region, for an image_id written out (one list a place, shared with the instances'). */
const readsWithFacts = withCreateFacts(
  owned,
  async (ctx, d) =>
    d.volume_id === undefined && d.ensure !== 'absent' && d.source === 'image' && isWrittenOut(d.image_id)
      ? { images: (await listAll(ctx, imageList, { project_id: d.project_id, region_id: d.region_id }, (i) => i.id)).map((i) => ({ key: i.id, label: i.name })) }
      : undefined,
  (d, state) => planVolume(d, state).action === 'replace',
);

export const cloudVolume: ResourceProvider<'cloud_volume'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_volume',

  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: volumeImport,

  create: {
    plan(d, ref, facts) {
      const body = {
        source: d.source === 'new' ? 'new-volume' : d.source,
        name: d.name ?? '',
        ...(d.size === undefined ? {} : { size: d.size }),
        ...(d.volume_type === undefined ? {} : { type_name: d.volume_type }),
        ...(d.image_id === undefined ? {} : { image_id: d.image_id }),
        ...(d.snapshot_id === undefined ? {} : { snapshot_id: d.snapshot_id }),
      };
      const planned = owned.createPlan(
        d,
        ref,
        { name: d.name, size: d.size, volume_type: d.volume_type, source: d.source, image_id: d.image_id, snapshot_id: d.snapshot_id },
        body,
      );
      const images = knownIn(facts, 'images');
      const image = images && notAmong(d.image_id, images, { field: 'image_id', noun: 'image', where: `in region ${d.region_id}` });
      return image ? { ...planned, errors: [...planned.errors, image] } : planned;
    },
    identity: owned.create.identity,
  },

  ownership: owned.ownership((d, state) => planVolume(d, state)),

  // The platform deletes only an available (detached) volume: the instances it is attached to go first.
  destroyBlockers: (state) =>
    (state.attached_servers as Array<{ id: string; name: string | null }>).map((s) => ({ id: s.id, label: `instance ${s.id}${s.name ? ` (${s.name})` : ''}` })),

  summarize: (state) => ({
    volume_id: state.volume_id,
    name: state.name,
    size: state.size,
    volume_type: state.volume_type,
    status: state.status,
    tags: userTags(state.tags as LiveTag[]),
  }),

  plan: planVolume,
};
