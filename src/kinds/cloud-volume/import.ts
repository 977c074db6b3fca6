import { isOwnershipTag } from '../fields.js';
import { defineImport } from '../kind-list.js';
import { ownerOf } from '../cloud-owned.js';
import { volumeList } from './list.js';
import { VOLUME_TYPES } from './schema.js';

/**
 * Importing volumes: those of a project and region, each pinned by its id, with its name, size,
 * type, source (image with its image_id when the platform shows one, else new: a volume made from
 * a snapshot shows no snapshot) and user tags.
 */
export const volumeImport = defineImport('cloud_volume', {
  scope: 'cloud',
  quotaUsage: ['volume_count_usage'],
  list: volumeList,
  itemId: (v) => v.id,
  attributes: (v, s) => {
    const image = v.volume_image_metadata?.image_id;
    return {
      project_id: s.project_id,
      region_id: s.region_id,
      volume_id: v.id,
      name: v.name,
      size: v.size,
      volume_type: v.volume_type as (typeof VOLUME_TYPES)[number],
      source: image === undefined ? ('new' as const) : ('image' as const),
      ...(image === undefined ? {} : { image_id: image }),
      tags: Object.fromEntries(v.tags.filter((t) => !t.read_only && !isOwnershipTag(t.key)).map((t) => [t.key, t.value])),
    };
  },
  blockName: (v) => v.name,
  facts: (v) => [
    ['name', v.name],
    ['size', v.size],
  ],
  ownedBy: (v) => {
    const owner = ownerOf(v.tags);
    return owner && owner.address !== '' ? owner : undefined;
  },
});
