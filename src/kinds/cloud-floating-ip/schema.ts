import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

/**
 * cloud_floating_ip: a floating IP, adopted by id or, without one, found by the ownership tags
 * its create wrote (edgeform-stack, edgeform-address) and created when none carries them;
 * edgeform manages its user tags and deletes it with `ensure: absent`.
 */
export const cloudFloatingIpKind = defineKind({
  type: 'cloud_floating_ip',
  kind: 'resource',
  description: 'A cloud floating IP: adopted by id, or created and found again by its ownership tags; edgeform manages its user tags and can delete it.',
  identity: ['floating_ip_id'],
  create: { idField: 'floating_ip_id', key: 'owner' },
  terraform: { resource: 'gcore_floatingip', fields: TERRAFORM_CLOUD_FIELDS },
  readable: {
    id: { type: 'string', description: 'The floating IP id (UUID).', read: (s) => s.floating_ip_id },
    floating_ip_address: { type: 'string', description: 'The public IPv4 address the platform gave the floating IP.', read: (s) => s.floating_ip_address },
    status: { type: 'string', description: 'The floating IP status (e.g. DOWN, ACTIVE).', read: (s) => s.status },
  },
  shape: () =>
    z.strictObject({
      project_id: projectId,
      region_id: regionId,
      floating_ip_id: uuid.optional().describe('The floating IP id (UUID) to adopt. Omit it to have edgeform create the floating IP and find it by its ownership tags.'),
      tags: userDeclaredTags.optional(),
      tags_policy: tagsPolicy,
      ensure: ensureDeletable,
    }),
});
