import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cdnResourceOptionsSchema, deprecatedOptionWarnings, TERRAFORM_OPTION_NAMES } from '../cdn-options.js';
import { ensureDeletable, positiveId } from '../fields.js';
import { purgeField } from '../cdn-purge-schema.js';

/** A host name as a CDN resource's cname or secondary hostname. */
const hostname = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(255, { error: 'a host name must be at most 255 characters' })
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9-]+$/i, { error: 'must be a host name such as cdn.example.com' });

const shape = () =>
  z.strictObject({
    resource_id: positiveId.optional().describe('The CDN resource id (integer). Omit it to have edgeform find the resource by cname, or create it.'),
    cname: hostname.describe('The delivery domain, unique on the platform: how a block finds its resource.'),
    origin_group: positiveId.optional().describe('The origin group id the resource pulls from, usually ${cdn_origin_group.NAME.id}. Either this or origin.'),
    origin: z.string().min(1, { error: 'must not be empty' }).optional().describe('A single origin host (the platform makes an origin group of it). Either this or origin_group.'),
    origin_protocol: z
      .enum(['HTTP', 'HTTPS', 'MATCH'], { error: 'must be HTTP, HTTPS or MATCH' })
      .optional()
      .describe('How the CDN reaches the origin: HTTP, HTTPS or MATCH (as the client asked).'),
    secondary_hostnames: z.array(hostname).optional().describe('More delivery domains; compared as a set.'),
    active: z.boolean().optional().describe('Whether the resource serves content (a new resource is active unless false).'),
    description: z
      .string()
      .max(1000, { error: 'a description must be at most 1000 characters' })
      .optional()
      .describe('A description; edgeform appends its stack mark to it on create (see below).'),
    ssl_enabled: z.boolean().optional().describe('Whether the resource serves HTTPS.'),
    ssl_data: positiveId.optional().describe('The id of the SSL certificate to serve (with ssl_enabled: true).'),
    ssl_automated: z
      .boolean()
      .optional()
      .describe("true: serve a Let's Encrypt certificate the platform issues for the resource (edgeform creates and attaches it); false: revoke one it has. Not with ssl_data."),
    options: cdnResourceOptionsSchema()
      .optional()
      .describe(
        "CDN options by name (cache expiry, gzip, CORS, redirects, headers, ACLs, ...), each as the vendor's schema (resource_options) has it; only the options declared are managed.",
      ),
    purge: purgeField
      .optional()
      .describe(
        'What to purge from the cache (paths, urls or all: true) and when: apply purges after its changes whenever when (usually ${env:RELEASE}) differs from the value last purged for; edgeform purge uses it as its default.',
      ),
    ensure: ensureDeletable,
  });

/**
 * cdn_resource: a CDN resource, adopted by `resource_id` or found by its `cname` (unique on the
 * platform), created when none has it; `ensure: absent` deactivates it, then deletes it.
 */
export const cdnResourceKind = defineKind({
  type: 'cdn_resource',
  kind: 'resource',
  description:
    'A CDN resource (a delivery domain and how it caches and serves), by resource_id or by cname; edgeform creates it, sets its origin, hostnames, SSL and declared options, and ensure: absent deactivates it, then deletes it.',
  identity: ['resource_id', 'cname'],
  terraform: { resource: 'gcore_cdn_resource', fields: TERRAFORM_OPTION_NAMES },
  create: { idField: 'resource_id', key: ['cname'] },
  readable: {
    id: { type: 'number', description: 'The CDN resource id (integer).', read: (s) => s.resource_id },
    cname: { type: 'string', description: 'The delivery domain.', read: (s) => s.cname },
    status: { type: 'string', description: 'active, suspended, processed or deleted.', read: (s) => s.status },
  },
  warnings: (block) => deprecatedOptionWarnings(block['options'] as Record<string, unknown> | undefined),
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.origin_group !== undefined && value.origin !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['origin'], message: 'set origin_group or origin, not both' });
      }
      if (value.ssl_data !== undefined && value.ssl_enabled !== true) {
        ctx.addIssue({ code: 'custom', path: ['ssl_data'], message: 'needs ssl_enabled: true' });
      }
      if (value.ssl_automated !== undefined && value.ssl_data !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['ssl_automated'], message: "set ssl_data (your certificate) or ssl_automated (a Let's Encrypt one), not both" });
      } else if (value.ssl_automated === true && value.ssl_enabled === false) {
        ctx.addIssue({ code: 'custom', path: ['ssl_enabled'], message: 'ssl_automated: true serves HTTPS: leave ssl_enabled out or set it to true' });
      } else if (value.ssl_automated === false && value.ssl_enabled === true) {
        ctx.addIssue({
          code: 'custom',
          path: ['ssl_automated'],
          message: "ssl_automated: false revokes the Let's Encrypt certificate, which turns HTTPS off: it cannot go with ssl_enabled: true",
        });
      }
    }),
});
