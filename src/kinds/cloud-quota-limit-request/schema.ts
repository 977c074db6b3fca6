import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';
import { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS } from '../cloud-vendor-values.js';

// The limit names are generated from the vendor's spec (scripts/generate-cloud-values.mjs).
export { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS };

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
  idField: 'request_id',
  create: { key: ['description'] },
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
