import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/**
 * The account-wide limits a request may ask for: exactly the fields of the vendor's
 * CreateGlobalQuotasLimitsSerializer (cloud OpenAPI), which refuses any other.
 */
export const GLOBAL_LIMIT_FIELDS = [
  'inference_cpu_millicore_count_limit',
  'inference_gpu_a100_count_limit',
  'inference_gpu_h100_count_limit',
  'inference_gpu_l40s_count_limit',
  'inference_instance_count_limit',
  'keypair_count_limit',
  'project_count_limit',
] as const;

/**
 * The per-region limits a request may ask for, besides `region_id`: exactly the fields of the
 * vendor's RegionalQuotasLimitsSerializer (cloud OpenAPI), which refuses any other.
 */
export const REGIONAL_LIMIT_FIELDS = [
  'baremetal_basic_count_limit',
  'baremetal_gpu_a100_count_limit',
  'baremetal_gpu_count_limit',
  'baremetal_gpu_h100_count_limit',
  'baremetal_gpu_h200_count_limit',
  'baremetal_gpu_l40s_count_limit',
  'baremetal_hf_count_limit',
  'baremetal_infrastructure_count_limit',
  'baremetal_network_count_limit',
  'baremetal_storage_count_limit',
  'caas_container_count_limit',
  'caas_cpu_count_limit',
  'caas_gpu_count_limit',
  'caas_ram_size_limit',
  'cluster_count_limit',
  'cpu_count_limit',
  'dbaas_postgres_cluster_count_limit',
  'external_ip_count_limit',
  'faas_cpu_count_limit',
  'faas_function_count_limit',
  'faas_namespace_count_limit',
  'faas_ram_size_limit',
  'firewall_count_limit',
  'floating_count_limit',
  'gpu_count_limit',
  'gpu_virtual_a100_count_limit',
  'gpu_virtual_h100_count_limit',
  'gpu_virtual_h200_count_limit',
  'gpu_virtual_l40s_count_limit',
  'image_count_limit',
  'image_size_limit',
  'ipu_count_limit',
  'laas_topic_count_limit',
  'loadbalancer_count_limit',
  'network_count_limit',
  'ram_limit',
  'registry_count_limit',
  'registry_storage_limit',
  'router_count_limit',
  'secret_count_limit',
  'servergroup_count_limit',
  'sfs_count_limit',
  'sfs_size_limit',
  'shared_vm_count_limit',
  'snapshot_schedule_count_limit',
  'subnet_count_limit',
  'vm_count_limit',
  'volume_count_limit',
  'volume_size_limit',
  'volume_snapshots_count_limit',
  'volume_snapshots_size_limit',
] as const;

const limitValue = z.int().min(0, { error: 'must be a whole number of 0 or more' });

const limitsOf = <const F extends readonly string[]>(fields: F) =>
  Object.fromEntries(fields.map((f) => [f, limitValue.optional()])) as { [K in F[number]]: z.ZodOptional<typeof limitValue> };

/** `requested_limits`: the vendor's ClientMixedQuotasLimitsSerializer, strict, so an unknown limit name is refused offline. */
export const requestedLimits = z
  .strictObject({
    global_limits: z.strictObject(limitsOf(GLOBAL_LIMIT_FIELDS)).optional().describe("Account-wide limits to raise, by the platform's field names."),
    regional_limits: z
      .array(z.strictObject({ region_id: positiveId.describe('The region these limits are for.'), ...limitsOf(REGIONAL_LIMIT_FIELDS) }))
      .optional()
      .describe("Per-region limits to raise: each item names its region_id and the limits, by the platform's field names."),
  })
  .refine((l) => l.global_limits !== undefined || l.regional_limits !== undefined, { error: 'must list global_limits or regional_limits (or both)' })
  .describe("The limits to ask for: global_limits and regional_limits, with exactly the platform's field names.");

/** The limits a quota request asks for, as the stack declares them. */
export type RequestedLimits = z.output<typeof requestedLimits>;

const shape = () =>
  z.strictObject({
    request_id: positiveId.optional().describe('The quota limit request id (integer). Omitted: edgeform finds the request by its description, and creates it when there is none.'),
    description: z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(1000, { error: 'must be at most 1000 characters' })
      .optional()
      .describe('Why the limits are needed (at most 1000 characters); without request_id it is how edgeform finds the request again.'),
    requested_limits: requestedLimits.optional(),
    ensure: ensureDeletable,
  });

/**
 * cloud_quota_limit_request: a request to raise cloud quotas. Adopted by `request_id`, or found
 * by its `description` (its natural key) and created from `description` and `requested_limits`.
 * The platform cannot change a request: other limits destroy it and create a new one.
 */
export const cloudQuotaLimitRequestKind = defineKind({
  type: 'cloud_quota_limit_request',
  kind: 'resource',
  description: 'A cloud quota limit request, by id or by description; edgeform creates it, replaces it when its limits change, and deletes it.',
  identity: ['request_id', 'description'],
  create: { idField: 'request_id', key: ['description'] },
  readable: {
    id: { type: 'number', description: 'The quota limit request id (integer).', read: (s) => s.request_id },
    status: { type: 'string', description: 'The request status (e.g. in progress, done, rejected).', read: (s) => s.status },
    description: { type: 'string', description: 'The request description.', read: (s) => s.description },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      if (block.request_id !== undefined) return;
      if (block.description === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['description'],
          message: 'must be set when request_id is not: edgeform finds the request by its description (and creates it from it)',
        });
      } else if (block.requested_limits === undefined && block.ensure === 'present') {
        ctx.addIssue({
          code: 'custom',
          path: ['requested_limits'],
          message: 'must be set when request_id is not: edgeform creates the request from them when none has this description',
        });
      }
    }),
});
