import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensurePresentOnly, nonEmptyString, projectId, regionId, uuid } from '../fields.js';

/** cloud_instance: adopts an existing instance by id and resizes it to `flavor_id`. */
export const cloudInstanceKind = defineKind({
  type: 'cloud_instance',
  kind: 'resource',
  description: 'An existing cloud instance, adopted by id; edgeform resizes it to flavor_id.',
  identity: ['instance_id'],
  readable: {
    id: { type: 'string', description: 'The instance id (UUID).', read: (s) => s.instance_id },
    name: { type: 'string', description: 'The instance name.', read: (s) => s.name },
    flavor_id: { type: 'string', description: 'The flavor the instance runs on.', read: (s) => s.flavor_id },
    status: { type: 'string', description: 'The instance status (e.g. ACTIVE).', read: (s) => s.status },
  },
  shape: z.strictObject({
    project_id: projectId,
    region_id: regionId,
    instance_id: uuid.describe('The instance id (UUID).'),
    flavor_id: nonEmptyString.describe('Desired flavor, e.g. g2-standard-4-8; a difference triggers a resize task.'),
    ensure: ensurePresentOnly('cloud_instance'),
  }),
});
