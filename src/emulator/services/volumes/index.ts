import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture, type Placement } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, positiveInt, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { userTagMap, type Tag } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { volumes } from './routes.js';

/** The volume types a volume can be created with (VolumeTypeName). */
export const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;
/** The volume types a volume can be changed to (RetypableVolumeTypeChoices). */
export const RETYPABLE_VOLUME_TYPES = ['ssd_hiiops', 'standard'] as const;

/** A volume as held in memory (API field names; datetimes as epoch ms). Its attachments are the instances listing it. */
export interface VolumeRecord extends Placement {
  id: string;
  name: string;
  size: number;
  volume_type: string;
  status: string;
  bootable: boolean;
  /** Image metadata of a volume made from an image (`image_id`), else null. */
  volume_image_metadata: Record<string, string> | null;
  /** The snapshots of this volume (a volume can be made from one). */
  snapshot_ids: string[];
  tags: Tag[];
  task_id: string | null;
  creator_task_id: string | null;
  created_at: number;
  updated_at: number;
  next_task_error: string | null;
}

/** The volume service's slice of the state. */
export interface VolumeSlice {
  readonly volumes: Map<string, VolumeRecord>;
}

/** What a volume task does when it finishes. */
export type VolumeEffect = { type: 'create_volume' } | { type: 'delete_volume' } | { type: 'extend_volume'; size: number; previous_status: string };

const volumeFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  size: positiveInt,
  volume_type: z.enum(VOLUME_TYPES).default('standard'),
  status: z.string().default('available'),
  bootable: z.boolean().default(false),
  image_id: uuid.nullable().default(null),
  snapshot_ids: z.array(uuid).default([]),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  created_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const volumeTasks: TaskTarget<'volume', VolumeRecord, VolumeEffect, VolumeSlice> = {
  kind: 'volume',
  find: (state, id) => state.volumes.get(id),
  begin(volume, effect) {
    if (effect.type === 'extend_volume') volume.status = 'extending';
    if (effect.type === 'delete_volume') volume.status = 'deleting';
  },
  finish(state, volume, task, ok) {
    const { effect } = task;
    if (effect.type === 'create_volume') {
      if (!ok) {
        state.volumes.delete(volume.id);
        return;
      }
      volume.status = 'available';
      state.recordMutation(
        task.finish_at,
        'volume',
        volume.id,
        'create_volume',
        { name: volume.name, size: volume.size, volume_type: volume.volume_type, tags: userTagMap(volume.tags) },
        task.id,
      );
      return;
    }
    if (effect.type === 'delete_volume') {
      if (!ok) {
        volume.status = 'error_deleting';
        return;
      }
      state.volumes.delete(volume.id);
      state.recordMutation(task.finish_at, 'volume', volume.id, 'delete_volume', {}, task.id);
      return;
    }
    volume.status = ok ? effect.previous_status : 'error_extending';
    if (!ok) return;
    volume.size = effect.size;
    volume.updated_at = task.finish_at;
    state.recordMutation(task.finish_at, 'volume', volume.id, 'extend_volume', { size: volume.size }, task.id);
  },
};

/**
 * Cloud volumes (v1): list (tag filters, paged), GET, POST create (task create_volume: a new
 * volume, from an image or from a snapshot), PATCH (name, tags merge patch; synchronous),
 * POST extend (task extend_volume; not smaller or equal), POST retype (synchronous), DELETE (task
 * delete_volume; 409 naming the instances while attached). Fixtures: `volumes`.
 */
export const volumesService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { volumes: listSection(volumeFixture) },
  fixtureIds: { volumes: (x) => x.id },
  createState: (): VolumeSlice => ({ volumes: new Map() }),
  load(slice, { volumes }, world) {
    slice.volumes.clear();
    for (const x of volumes) {
      slice.volumes.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        size: x.size,
        volume_type: x.volume_type,
        status: x.status,
        bootable: x.bootable || x.image_id !== null,
        volume_image_metadata: x.image_id === null ? null : { image_id: x.image_id },
        snapshot_ids: [...x.snapshot_ids],
        tags: fixtureTags(x.tags, x.read_only_tags),
        task_id: null,
        creator_task_id: stableUuid(`creator-task/${x.id}`),
        created_at: fixtureDate(x.created_at),
        updated_at: fixtureDate(x.created_at),
        next_task_error: x.next_task_error,
      });
    }
  },
  dump: (state) => ({ volumes: [...state.volumes.values()] }),
  routes: volumes.routes,
  mutationKinds: ['volume'],
  taskTargets: [volumeTasks],
});
