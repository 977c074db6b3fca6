import type { Placement, TaskMade } from '../../cloud-common.js';
import type { Tag } from '../../tags.js';

/** The volume types a volume can be created with (VolumeTypeName). */
export const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;
/** The volume types a volume can be changed to (RetypableVolumeTypeChoices). */
export const RETYPABLE_VOLUME_TYPES = ['ssd_hiiops', 'standard'] as const;

/** A volume as held in memory (API field names; datetimes as epoch ms). Its attachments are the instances listing it. */
export interface VolumeRecord extends Placement, TaskMade {
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
}

/** The volume service's slice of the state. */
export interface VolumeSlice {
  readonly volumes: Map<string, VolumeRecord>;
}

/** What a volume task does when it finishes. */
export type VolumeEffect = { type: 'create_volume' } | { type: 'delete_volume' } | { type: 'extend_volume'; size: number; previous_status: string };
