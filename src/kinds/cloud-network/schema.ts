import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    network_id: uuid.optional().describe('The network id (UUID) to adopt. Omit it to have edgeform create the network and find it by its ownership tags.'),
    name: cloudResourceName.optional().describe('The network name (3–63 characters). Required to create a network; changed in place.'),
    network_type: z
      .enum(['vxlan', 'vlan'])
      .optional()
      .describe("The platform's network `type`: vxlan (the platform default) or vlan; set at create: a different one destroys the network and creates it again."),
    tags: userDeclaredTags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensureDeletable,
  });

/**
 * cloud_network: a private network, adopted by id or, without one, found by the ownership tags
 * its create wrote and created when none carries them; edgeform renames it, manages its user tags
 * and deletes it with `ensure: absent` (after its subnets).
 */
export const cloudNetworkKind = defineKind({
  type: 'cloud_network',
  kind: 'resource',
  description: 'A cloud network: adopted by id, or created and found again by its ownership tags; edgeform manages its name and user tags and can delete it.',
  identity: ['network_id'],
  terraform: { resource: 'gcore_network', fields: TERRAFORM_CLOUD_FIELDS },
  create: { idField: 'network_id', key: 'owner' },
  readable: {
    id: { type: 'string', description: 'The network id (UUID).', read: (s) => s.network_id },
    name: { type: 'string', description: 'The network name.', read: (s) => s.name },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.network_id === undefined && value.name === undefined && value.ensure === 'present')
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'must be set when network_id is not: edgeform creates the network with this name' });
    }),
});
