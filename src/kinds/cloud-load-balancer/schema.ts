import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, positiveId, projectId, regionId, tagsPolicy, TERRAFORM_CLOUD_FIELDS, userDeclaredTags, uuid } from '../fields.js';

/** The vendor's load balancer flavor names (`lb1-1-2`). */
const flavorName = z.string().min(1, { error: 'must not be empty' }).max(255, { error: 'must be at most 255 characters' });

/** A Kafka topic name, as LoadbalancerLoggingSerializer restricts it. */
const topicName = z
  .string()
  .regex(/^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])*)*$/, { error: 'must be a topic name: lower-case letters, digits, "-" and "."' })
  .max(223, { error: 'must be at most 223 characters' });

/** A balancer's logging (LoadbalancerLoggingSerializer); only the fields declared are managed. */
const logging = z
  .strictObject({
    enabled: z.boolean().optional().describe('Whether the balancer sends its logs (the platform default false).'),
    destination_region_id: positiveId.nullable().optional().describe('The region whose logging service receives them.'),
    topic_name: topicName.nullable().optional().describe('The logging topic.'),
    retention_period: z.int().min(1).max(1825).nullable().optional().describe('How many days logs are kept (1–1825); null: the platform default.'),
  })
  .describe("The balancer's logging; only the fields declared are managed, each changed in place.");

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    load_balancer_id: uuid.optional().describe('The load balancer id (UUID) to adopt. Omit it to have edgeform create the balancer and find it by its ownership tags.'),
    name: cloudResourceName.optional().describe('The balancer name (3–63 characters). Required to create a balancer; changed in place.'),
    flavor: flavorName.optional().describe("The flavor (lb1-1-2, ...; the region's smallest when omitted); a different one resizes the balancer (a task)."),
    vip_network_id: uuid
      .optional()
      .describe('The private network the VIP is on, usually ${cloud_network.NAME.id}; omitted: an external VIP. Only sent at create (the platform does not answer it).'),
    vip_subnet_id: uuid
      .optional()
      .describe("The subnet of vip_network_id the VIP is on, usually ${cloud_subnet.NAME.id} (the network's first subnet when omitted); a different one replaces the balancer."),
    vip_ip_family: z.enum(['ipv4', 'ipv6', 'dual']).optional().describe('The VIP IP family (the platform default ipv4); a different one replaces the balancer.'),
    floating_ip_id: uuid
      .optional()
      .describe(
        'A free floating IP (usually ${cloud_floating_ip.NAME.id}) associated with the VIP at create (a VIP on vip_network_id only); a different one replaces the balancer.',
      ),
    logging: logging.optional(),
    tags: userDeclaredTags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensureDeletable,
  });

/**
 * cloud_load_balancer: a load balancer (Octavia), adopted by id or, without one, found by the
 * ownership tags its create wrote and created when none carries them; name, logging and user
 * tags change in place (v2 PATCH), the flavor by a resize; its VIP is set at create.
 */
export const cloudLoadBalancerKind = defineKind({
  type: 'cloud_load_balancer',
  kind: 'resource',
  description:
    'A cloud load balancer: adopted by id, or created and found again by its ownership tags; name, logging and user tags change in place, a different flavor resizes it, the VIP is set at create.',
  identity: ['load_balancer_id'],
  terraform: { resource: 'gcore_loadbalancerv2', fields: TERRAFORM_CLOUD_FIELDS },
  idField: 'load_balancer_id',
  create: { key: 'owner' },
  readable: {
    id: { type: 'string', description: 'The load balancer id (UUID).', read: (s) => s.load_balancer_id },
    name: { type: 'string', description: 'The balancer name.', read: (s) => s.name },
    vip_address: { type: 'string', description: 'The VIP address.', read: (s) => s.vip_address },
    floating_ip_address: { type: 'string', description: "The first floating IP address on the balancer's VIP (null without one).", read: (s) => s.floating_ip_address },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.load_balancer_id === undefined && value.name === undefined && value.ensure === 'present')
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'must be set when load_balancer_id is not: edgeform creates the balancer with this name' });
      if (value.vip_subnet_id !== undefined && value.vip_network_id === undefined)
        ctx.addIssue({ code: 'custom', path: ['vip_subnet_id'], message: 'needs vip_network_id: the subnet is one of the VIP network' });
      if (value.floating_ip_id !== undefined && value.vip_network_id === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['floating_ip_id'],
          message: 'needs vip_network_id: a floating IP is for a VIP on a private network (an external VIP is public already)',
        });
    }),
});
