import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, positiveInt, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { userTagMap } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { volumes } from './routes.js';
import { VOLUME_TYPES, type VolumeEffect, type VolumeRecord, type VolumeSlice } from './model.js';

export * from './model.js';

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
