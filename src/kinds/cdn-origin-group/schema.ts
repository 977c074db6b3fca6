import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId, sensitiveField } from '../fields.js';

/** The S3 storage types of an S3 origin (the vendor's S3Config.s3_type). */
export const S3_TYPES = ['amazon', 'other'] as const;

/**
 * An S3 origin (the vendor's S3Config, `origin_type: s3`): the bucket, where it is, and the keys
 * to it, which come only from the environment (see S3_KEYS).
 */
const s3Origin = z.strictObject({
  type: z.enum(S3_TYPES, { error: `must be one of ${S3_TYPES.join(', ')}` }).describe('The storage: amazon (AWS S3) or other (an S3-compatible storage).'),
  bucket_name: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(256, { error: 'an S3 bucket name must be at most 256 characters' })
    .describe('The bucket name (at most 256 characters), unique within the group.'),
  region: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'an S3 region must be at most 255 characters' })
    .optional()
    .describe('The AWS region (eu-west-1); required for type amazon.'),
  storage_hostname: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'an S3 storage hostname must be at most 255 characters' })
    .optional()
    .describe('The storage host name (s3.example.com); required for type other.'),
  access_key_id: sensitiveField.describe('The access key id: exactly one ${env:NAME} reference (sensitive, write-only; 4–255 of A-Z a-z 0-9 : - _).'),
  secret_access_key: sensitiveField.describe('The secret access key: exactly one ${env:NAME} reference (sensitive, write-only; 16–255 of A-Z a-z 0-9 + / - : _).'),
});

/**
 * What the environment must hold for an S3 origin's keys (the vendor's S3Config restrictions).
 * The messages never quote the value.
 */
const S3_KEYS = {
  access_key_id: z
    .string()
    .min(4, { error: 'an S3 access key id must be 4 to 255 characters' })
    .max(255, { error: 'an S3 access key id must be 4 to 255 characters' })
    .regex(/^[A-Za-z0-9:_-]+$/, { error: 'an S3 access key id holds only Latin letters, digits, ":", "-" and "_"' }),
  secret_access_key: z
    .string()
    .min(16, { error: 'an S3 secret access key must be 16 to 255 characters' })
    .max(255, { error: 'an S3 secret access key must be 16 to 255 characters' })
    .regex(/^[A-Za-z0-9+/:_-]+$/, { error: 'an S3 secret access key holds only Latin letters, digits, "+", "/", ":", "-" and "_"' }),
};

/** One origin of a group: a host (domain or IP, optionally with a port) or an S3 bucket, a backup or not, enabled or not. */
const origin = z.strictObject({
  source: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'an origin source must be at most 255 characters' })
    .optional()
    .describe('The origin host: a domain or IP address, optionally with a port (example.com:8080). Either source or s3.'),
  s3: s3Origin.optional().describe('An S3 bucket as the origin (instead of source): type, bucket_name, region or storage_hostname, and its keys from the environment.'),
  backup: z.boolean().default(false).describe('Whether the origin is a backup, used only when the others fail (default false).'),
  enabled: z.boolean().default(true).describe('Whether the origin is used (default true).'),
});

/** The cases `proxy_next_upstream` may name (the vendor's list). */
export const NEXT_UPSTREAM_CASES = ['error', 'timeout', 'invalid_header', 'http_403', 'http_404', 'http_429', 'http_500', 'http_502', 'http_503', 'http_504'] as const;

const shape = () =>
  z.strictObject({
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
  terraform: {
    resource: 'gcore_cdn_origingroup',
    fields: {
      origin: 'origins',
      'origins.*.config': 's3',
      'origins.*.s3.s3_type': 'type',
      'origins.*.s3.s3_bucket_name': 'bucket_name',
      'origins.*.s3.s3_region': 'region',
      'origins.*.s3.s3_storage_hostname': 'storage_hostname',
    },
  },
  sensitive: [
    { path: ['origins', '*', 's3', 'access_key_id'], value: S3_KEYS.access_key_id },
    { path: ['origins', '*', 's3', 'secret_access_key'], value: S3_KEYS.secret_access_key },
  ],
  create: { idField: 'origin_group_id', key: ['name'] },
  readable: {
    id: { type: 'number', description: 'The origin group id (integer).', read: (s) => s.origin_group_id },
    name: { type: 'string', description: 'The origin group name.', read: (s) => s.name },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      checkOrigins(value.origins ?? [], ctx);
      if (value.origins !== undefined && value.origins.length > 0 && value.origins.every((o) => o.backup)) {
        ctx.addIssue({ code: 'custom', path: ['origins'], message: 'at least one origin must not be a backup (the platform refuses a group of backups only)' });
      }
      if (value.use_next === true && value.proxy_next_upstream !== undefined && value.proxy_next_upstream.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['proxy_next_upstream'], message: 'use_next: true needs at least one case here' });
      }
    }),
});

/** Each origin is a host or an S3 bucket; an S3 bucket names where it is; bucket names are unique in the group (the vendor's errors). */
function checkOrigins(origins: ReadonlyArray<z.output<typeof origin>>, ctx: z.RefinementCtx): void {
  const buckets = new Set<string>();
  origins.forEach((o, i) => {
    if ((o.source === undefined) === (o.s3 === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['origins', i], message: 'an origin is either a host (source) or an S3 bucket (s3), exactly one of them' });
    }
    if (o.s3 === undefined) return;
    if (o.s3.type === 'amazon' && o.s3.region === undefined)
      ctx.addIssue({ code: 'custom', path: ['origins', i, 's3', 'region'], message: 'an amazon S3 origin needs its region' });
    if (o.s3.type === 'other' && o.s3.storage_hostname === undefined) {
      ctx.addIssue({ code: 'custom', path: ['origins', i, 's3', 'storage_hostname'], message: 'an S3 origin of type other needs its storage_hostname' });
    }
    if (buckets.has(o.s3.bucket_name))
      ctx.addIssue({ code: 'custom', path: ['origins', i, 's3', 'bucket_name'], message: 'S3 bucket names must be unique within an origin group' });
    buckets.add(o.s3.bucket_name);
  });
}
