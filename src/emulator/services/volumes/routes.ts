import {
  booleanQuery,
  cloudCreatedTags,
  cloudError,
  cloudName,
  cloudObjectBody,
  cloudPages,
  type CloudScope,
  cloudTagsPatch,
  matchesTagFilter,
  placedIn,
  tagFilter,
  type TagFilter,
  defineCloudCollection,
  patchTags,
  madeNow,
} from '../../cloud-common.js';
import type { Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN, formatOffsetDate } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { checkImage, type ImageSlice } from '../images/index.js';
import type { InstanceRecord, InstanceSlice } from '../instances/index.js';
import { RETYPABLE_VOLUME_TYPES, VOLUME_TYPES, type VolumeRecord, type VolumeSlice } from './model.js';

/** Volumes show their attachments: the instances listing them. */
type State = VolumeSlice & InstanceSlice & ImageSlice;
type Ctx = RouteContext<State>;

const SOURCES = ['image', 'snapshot', 'new-volume'];

const bad = (ctx: Ctx, message: string): never => fail(cloudError(400, message, ctx.requestId));

/** The instances a volume is attached to (those listing it among their volumes). */
function attachedTo(state: State, volume: VolumeRecord): InstanceRecord[] {
  const found: InstanceRecord[] = [];
  for (const vm of state.instances.values()) if (vm.volumes.some((v) => v.id === volume.id)) found.push(vm);
  return found;
}

/** A volume in the VolumeSerializer shape: `in-use` with its attachments while an instance lists it. */
function renderVolume(volume: VolumeRecord, ctx: Ctx): Record<string, unknown> {
  const vms = attachedTo(ctx.state, volume);
  return {
    attachments: vms.map((vm) => ({
      attached_at: formatOffsetDate(vm.created_at),
      attachment_id: stableUuid(`attachment/${vm.id}/${volume.id}`),
      device: null,
      flavor_id: vm.flavor_id,
      instance_name: vm.name,
      server_id: vm.id,
      volume_id: volume.id,
    })),
    bootable: volume.bootable,
    created_at: formatOffsetDate(volume.created_at),
    creator_task_id: volume.creator_task_id,
    id: volume.id,
    is_root_volume: false,
    limiter_stats: null,
    name: volume.name,
    project_id: volume.project_id,
    region: volume.region,
    region_id: volume.region_id,
    size: volume.size,
    snapshot_ids: [...volume.snapshot_ids],
    status: vms.length > 0 && volume.status === 'available' ? 'in-use' : volume.status,
    tags: volume.tags.map((t) => ({ ...t })),
    task_id: volume.task_id,
    updated_at: formatOffsetDate(volume.updated_at),
    volume_image_metadata: volume.volume_image_metadata === null ? null : { ...volume.volume_image_metadata },
    volume_type: volume.volume_type,
  };
}

function readSize(ctx: Ctx, value: unknown, field = 'size'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) bad(ctx, `${field}: Input should be an integer greater than or equal to 1`);
  return value as number;
}

function readUuid(ctx: Ctx, value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) bad(ctx, `${field}: Input should be a valid UUID`);
  return value as string;
}

/**
 * POST /cloud/v1/volumes/{p}/{r} (CreateVolumeSerializer, by `source`): `new-volume` (name, size),
 * `image` (image_id of an image the project sees in the region, 404 otherwise; size; bootable), `snapshot` (snapshot_id of a volume of the place; size, when
 * given, must equal the snapshot's). `type_name` defaults to `standard` (a snapshot's volume type
 * for `snapshot`). The volume is made at once (`creating`), locked by its create_volume task.
 */
function buildVolume(ctx: Ctx, scope: CloudScope): Created<VolumeRecord> {
  const body = cloudObjectBody(ctx);
  const source = body.source;
  if (typeof source !== 'string' || !SOURCES.includes(source))
    bad(ctx, `source: Input tag '${String(source)}' found using 'source' does not match any of the expected tags: 'image', 'snapshot', 'new-volume'`);
  const known = ['name', 'source', 'size', 'type_name', 'tags', 'image_id', 'snapshot_id', 'attachment_tag', 'instance_id_to_attach_to', 'lifecycle_policy_ids'];
  const extra = Object.keys(body).find((k) => !known.includes(k) || (k === 'image_id' && source !== 'image') || (k === 'snapshot_id' && source !== 'snapshot'));
  if (extra !== undefined) bad(ctx, `${source}.${extra}: Extra inputs are not permitted`);
  if (body.instance_id_to_attach_to !== undefined) bad(ctx, 'instance_id_to_attach_to: the emulator does not attach volumes at create; attach them with the instance');
  const name = cloudName(ctx, body);
  let size = body.size === undefined ? undefined : readSize(ctx, body.size);
  let type = body.type_name;
  if (type !== undefined && !(VOLUME_TYPES as readonly unknown[]).includes(type)) bad(ctx, `type_name: Input should be ${VOLUME_TYPES.map((t) => `'${t}'`).join(', ')}`);
  let imageId: string | null = null;
  if (source === 'new-volume' && size === undefined) bad(ctx, 'new-volume.size: Field required');
  if (source === 'image') {
    imageId = readUuid(ctx, body.image_id, 'image.image_id');
    if (size === undefined) bad(ctx, 'image.size: Field required');
    checkImage(ctx, scope, imageId, 'image.image_id');
  }
  if (source === 'snapshot') {
    const snapshotId = readUuid(ctx, body.snapshot_id, 'snapshot.snapshot_id');
    const origin = [...ctx.state.volumes.values()].find((v) => placedIn(v, scope) && v.snapshot_ids.includes(snapshotId));
    if (origin === undefined) fail(cloudError(404, `Snapshot ${snapshotId} not found`, ctx.requestId));
    if (size !== undefined && size !== origin.size) bad(ctx, `size: must be equal to the snapshot's size (${origin.size} GiB)`);
    size = origin.size;
    type ??= origin.volume_type;
    imageId = origin.volume_image_metadata?.image_id ?? null;
  }
  const tags = cloudCreatedTags(ctx, body.tags);
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_volume').length;
  let id = stableUuid(`created-volume/${scope.projectId}/${scope.regionId}/${n}`);
  while (ctx.state.volumes.has(id)) id = stableUuid(`created-volume/${scope.projectId}/${scope.regionId}/${++n}`);
  const region = [...ctx.state.volumes.values()].find((v) => v.region_id === scope.regionId)?.region ?? ctx.state.defaults.region;
  const record: VolumeRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region,
    name,
    size: size as number,
    volume_type: (type as string | undefined) ?? 'standard',
    status: 'creating',
    bootable: imageId !== null,
    volume_image_metadata: imageId === null ? null : { image_id: imageId },
    snapshot_ids: [],
    tags,
    ...madeNow(ctx.now),
  };
  return { record, task: { type: 'create_volume', data: body, createdResources: { volumes: [id] } } };
}

interface ListQuery extends TagFilter {
  bootable: boolean | undefined;
  hasAttachments: boolean | undefined;
  instanceId: string | null;
  namePart: string | null;
  idPart: string | null;
}

/**
 * Volumes (v1): list (`{count, results}`, limit 1..1000 default 1000, offset; filters `tag_key`,
 * `tag_key_value`, `bootable`, `has_attachments`, `instance_id`, `name_part`, `id_part`), GET,
 * POST create (task create_volume), PATCH (name, tags merge patch; synchronous, the volume
 * answered), POST extend (task extend_volume; 400 unless larger; 409 while locked), POST retype
 * (synchronous; the volume answered; 400 while it has snapshots), DELETE (task delete_volume; 409
 * while locked or attached, naming the instances).
 */
export const volumes = defineCloudCollection<State, VolumeRecord, ListQuery>({
  path: '/cloud/v1/volumes/{project_id}/{region_id}',
  idParam: 'volume_id',
  noun: 'Volume',
  store: (ctx) => ctx.state.volumes,
  kind: 'volume',
  list: {
    paging: cloudPages(),
    query: (ctx) => ({
      ...tagFilter(ctx),
      bootable: booleanQuery(ctx, 'bootable'),
      hasAttachments: booleanQuery(ctx, 'has_attachments'),
      instanceId: ctx.query.get('instance_id'),
      namePart: ctx.query.get('name_part'),
      idPart: ctx.query.get('id_part'),
    }),
    where(v, q, ctx) {
      const vms = q.hasAttachments === undefined && q.instanceId === null ? [] : attachedTo(ctx.state, v);
      return (
        matchesTagFilter(v.tags, q) &&
        (q.bootable === undefined || v.bootable === q.bootable) &&
        (q.hasAttachments === undefined || vms.length > 0 === q.hasAttachments) &&
        (q.instanceId === null || vms.some((vm) => vm.id === q.instanceId)) &&
        (q.namePart === null || v.name.includes(q.namePart)) &&
        (q.idPart === null || v.id.includes(q.idPart))
      );
    },
    render: (v, ctx) => renderVolume(v, ctx),
  },
  get: renderVolume,
  create: { build: buildVolume },
  updates: [
    {
      method: 'PATCH',
      change(ctx, volume) {
        const body = cloudObjectBody(ctx);
        const extra = Object.keys(body).find((k) => k !== 'name' && k !== 'tags');
        if (extra !== undefined) bad(ctx, `${extra}: Extra inputs are not permitted`);
        const name = body.name === undefined ? undefined : cloudName(ctx, body);
        const tags = 'tags' in body ? cloudTagsPatch(ctx, volume.tags, body.tags) : undefined;
        const changed: Record<string, unknown> = {};
        if (name !== undefined && name !== volume.name) volume.name = changed.name = name;
        patchTags(volume, tags, changed);
        if (Object.keys(changed).length > 0) volume.updated_at = ctx.now;
        return changed;
      },
      answer: (volume, ctx) => jsonReply(200, renderVolume(volume, ctx as Ctx)),
    },
    {
      method: 'POST',
      path: '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/extend',
      task(ctx, volume, _scope, checkLock) {
        const size = readSize(ctx, cloudObjectBody(ctx).size);
        checkLock();
        if (size <= volume.size) bad(ctx, `size: the new size (${size} GiB) must be greater than the current size (${volume.size} GiB)`);
        return { type: 'extend_volume', effect: { type: 'extend_volume', size, previous_status: volume.status }, data: { size } };
      },
    },
    {
      method: 'POST',
      path: '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/retype',
      change(ctx, volume, _scope, checkLock) {
        const type = cloudObjectBody(ctx).volume_type;
        if (!(RETYPABLE_VOLUME_TYPES as readonly unknown[]).includes(type)) bad(ctx, `volume_type: Input should be ${RETYPABLE_VOLUME_TYPES.map((t) => `'${t}'`).join(' or ')}`);
        checkLock();
        if (volume.snapshot_ids.length > 0) bad(ctx, `Volume ${volume.id} has snapshots; a volume with snapshots cannot change its type`);
        if (type === volume.volume_type) return {};
        volume.volume_type = type as string;
        volume.updated_at = ctx.now;
        return { volume_type: volume.volume_type };
      },
      answer: (volume, ctx) => jsonReply(200, renderVolume(volume, ctx as Ctx)),
    },
  ],
  delete: {
    task: 'delete_volume',
    // The platform deletes only an `available` volume: one an instance holds is refused, naming the instances.
    check(ctx, volume) {
      const vms = attachedTo(ctx.state, volume);
      if (vms.length === 0) return;
      const names = vms.map((vm) => `${vm.name} (${vm.id})`).join(', ');
      fail(
        cloudError(409, `Volume ${volume.id} is attached to instance${vms.length === 1 ? '' : 's'} ${names}; a volume must be available (detached) to be deleted`, ctx.requestId),
      );
    },
  },
});
