import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensurePresentOnly, projectId, regionId, tags, tagsPolicy, uuid } from '../fields.js';

/** cloud_floating_ip: adopts an existing floating IP by id and manages its user tags. */
export const cloudFloatingIpKind = defineKind({
  type: 'cloud_floating_ip',
  kind: 'resource',
  description: 'An existing cloud floating IP, adopted by id; edgeform manages its user tags.',
  identity: ['floating_ip_id'],
  shape: z.strictObject({
    project_id: projectId,
    region_id: regionId,
    floating_ip_id: uuid.describe('The floating IP id (UUID).'),
    tags: tags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensurePresentOnly('cloud_floating_ip'),
  }),
});
