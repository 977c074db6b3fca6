import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

/** The volume types a volume can be created with (VolumeTypeName). */
export const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'] as const;
/** The volume types a volume can be changed to (RetypableVolumeTypeChoices). */
export const RETYPABLE_VOLUME_TYPES: readonly string[] = ['ssd_hiiops', 'standard'];

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    volume_id: uuid.optional().describe('The volume id (UUID) to adopt. Omit it to have edgeform create the volume and find it by its ownership tags (the stack needs name:).'),
    name: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/, { error: 'must be 3–63 characters: letters, digits, spaces, ".", "_" and "-", starting with a letter or digit' })
      .optional()
      .describe('The volume name; required when edgeform creates the volume; changed in place.'),
    size: positiveId.optional().describe('The size in GiB; only grows (extend, a task): a smaller size than the live one is a plan error.'),
    volume_type: z.enum(VOLUME_TYPES).optional().describe('The volume type (default standard); a change is a retype (to ssd_hiiops or standard only).'),
    source: z
      .enum(['new', 'image', 'snapshot'])
      .default('new')
      .describe('What the volume is made from: new (empty), image (image_id) or snapshot (snapshot_id). Set at create; a change replaces the volume.'),
    image_id: uuid.optional().describe('The image of a volume made from an image (source: image).'),
    snapshot_id: uuid.optional().describe('The snapshot of a volume made from a snapshot (source: snapshot).'),
    tags: userDeclaredTags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensureDeletable,
  });

/**
 * cloud_volume: a block storage volume, adopted by id or, without one, created (new, from an
 * image or from a snapshot) and found again by its ownership tags; edgeform renames it, retags
 * it, extends it, retypes it, replaces it when its source changes, and deletes it.
 */
export const cloudVolumeKind = defineKind({
  type: 'cloud_volume',
  kind: 'resource',
  description:
    'A cloud volume: adopted by id, or created (new, from an image or a snapshot) and found again by its ownership tags; edgeform renames, retags, extends, retypes and deletes it.',
  identity: ['volume_id'],
  terraform: { resource: 'gcore_volume', fields: { ...TERRAFORM_CLOUD_FIELDS, type_name: 'volume_type' } },
  create: { idField: 'volume_id', key: 'owner' },
  readable: {
    id: { type: 'string', description: 'The volume id (UUID).', read: (s) => s.volume_id },
    size: { type: 'number', description: 'The size in GiB.', read: (s) => s.size },
    status: { type: 'string', description: 'The volume status (e.g. available, in-use).', read: (s) => s.status },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((b, ctx) => {
      if (b.source === 'image' && b.image_id === undefined) ctx.addIssue({ code: 'custom', path: ['image_id'], message: 'must be set: source is image' });
      if (b.source === 'snapshot' && b.snapshot_id === undefined) ctx.addIssue({ code: 'custom', path: ['snapshot_id'], message: 'must be set: source is snapshot' });
      if (b.source !== 'image' && b.image_id !== undefined) ctx.addIssue({ code: 'custom', path: ['image_id'], message: 'is only for source: image' });
      if (b.source !== 'snapshot' && b.snapshot_id !== undefined) ctx.addIssue({ code: 'custom', path: ['snapshot_id'], message: 'is only for source: snapshot' });
      if (b.volume_id !== undefined || b.ensure === 'absent') return;
      if (b.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: 'must be set: a volume edgeform creates needs a name' });
      if (b.size === undefined && b.source !== 'snapshot')
        ctx.addIssue({ code: 'custom', path: ['size'], message: `must be set: a volume made ${b.source === 'new' ? 'new' : 'from an image'} needs a size` });
    }),
});
