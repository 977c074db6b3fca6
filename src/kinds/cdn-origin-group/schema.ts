import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** One origin of a group: a host (domain or IP, optionally with a port), a backup or not, enabled or not. */
const origin = z.strictObject({
  source: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'an origin source must be at most 255 characters' })
    .describe('The origin host: a domain or IP address, optionally with a port (example.com:8080).'),
  backup: z.boolean().default(false).describe('Whether the origin is a backup, used only when the others fail (default false).'),
  enabled: z.boolean().default(true).describe('Whether the origin is used (default true).'),
});

/** The cases `proxy_next_upstream` may name (the vendor's list). */
export const NEXT_UPSTREAM_CASES = ['error', 'timeout', 'invalid_header', 'http_403', 'http_404', 'http_429', 'http_500', 'http_502', 'http_503', 'http_504'] as const;

const shape = z.strictObject({
  origin_group_id: positiveId.optional().describe('The origin group id (integer). Omit it to have edgeform find the group by name, or create it.'),
  name: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'an origin group name must be at most 255 characters' })
    .describe('The origin group name, unique in the account: how a block finds its group.'),
  origins: z
    .array(origin)
    .min(1, { error: 'an origin group needs at least one origin' })
    .optional()
    .describe('The origins, in order; the whole list is managed. Required to create a group.'),
  use_next: z.boolean().optional().describe('Whether to try the next origin when one answers with a case of proxy_next_upstream.'),
  proxy_next_upstream: z
    .array(z.enum(NEXT_UPSTREAM_CASES, { error: `must be one of ${NEXT_UPSTREAM_CASES.join(', ')}` }))
    .optional()
    .describe('The cases in which the next origin is tried (error, timeout, http_5xx, ...); compared as a set.'),
  ensure: ensureDeletable,
});

/**
 * cdn_origin_group: a CDN origin group, adopted by `origin_group_id` or found by its `name`
 * (unique in the account), created when none has it; `ensure: absent` deletes it.
 */
export const cdnOriginGroupKind = defineKind({
  type: 'cdn_origin_group',
  kind: 'resource',
  description:
    'A CDN origin group (the origins CDN resources pull content from), by origin_group_id or by name; edgeform creates it, sets its origins and failover, and ensure: absent deletes it.',
  identity: ['origin_group_id', 'name'],
  create: { idField: 'origin_group_id', key: ['name'] },
  readable: {
    id: { type: 'number', description: 'The origin group id (integer).', read: (s) => s.origin_group_id },
    name: { type: 'string', description: 'The origin group name.', read: (s) => s.name },
  },
  shape,
  schema: shape.superRefine((value, ctx) => {
    if (value.origins !== undefined && value.origins.length > 0 && value.origins.every((o) => o.backup)) {
      ctx.addIssue({ code: 'custom', path: ['origins'], message: 'at least one origin must not be a backup (the platform refuses a group of backups only)' });
    }
    if (value.use_next === true && value.proxy_next_upstream !== undefined && value.proxy_next_upstream.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['proxy_next_upstream'], message: 'use_next: true needs at least one case here' });
    }
  }),
});
