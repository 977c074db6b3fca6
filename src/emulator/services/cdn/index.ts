import { z } from 'zod';
import { datetime, fixtureDate, listSection, positiveInt } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { cdnResourceOptionsSchema, cdnRuleOptionsSchema } from './options-schema.js';
import { CDN_PRODUCT } from './product.js';
import { renderCertificate } from './ssl-data.js';
import { purgeRoutes } from './purge.js';
import { cdnRoutes, renderOriginGroup, renderResource, renderRule, withFieldDefaults } from './routes.js';

/** One origin of a group: a host (`source`), an S3 bucket or a FastEdge app (`origin_type` and `config`). */
export interface CdnSourceRecord {
  origin_type: 'host' | 's3' | 'fastedge';
  source: string | null;
  config: Record<string, unknown> | null;
  backup: boolean;
  enabled: boolean;
  tag: string;
  host_header_override: string | null;
}

/** An origin group (OriginGroupsResponse). */
export interface CdnOriginGroupRecord {
  id: number;
  name: string;
  use_next: boolean;
  proxy_next_upstream: string[];
  /** `none`, or the deprecated group-wide S3 authentication (`awsSignatureV4` with `auth`). */
  auth_type: 'none' | 'awsSignatureV4';
  auth: Record<string, unknown> | null;
  sources: CdnSourceRecord[];
  path: string;
}

/** A CDN resource (ResourceResponse): the fields a client sets, and `options` with only the options set. */
export interface CdnResourceRecord {
  id: number;
  cname: string;
  active: boolean;
  name: string | null;
  description: string;
  originGroup: number;
  originProtocol: 'HTTP' | 'HTTPS' | 'MATCH';
  secondaryHostnames: string[];
  sslEnabled: boolean;
  sslData: number | null;
  proxy_ssl_enabled: boolean;
  proxy_ssl_ca: number | null;
  proxy_ssl_data: number | null;
  status: 'active' | 'suspended' | 'processed';
  client: number;
  created: number;
  updated: number;
  options: Record<string, unknown>;
}

/** A rule of a CDN resource (RuleResponse), with its resource's id. */
export interface CdnRuleRecord {
  id: number;
  resource: number;
  name: string;
  active: boolean;
  rule: string;
  ruleType: 0 | 1;
  weight: number;
  originGroup: number | null;
  overrideOriginProtocol: 'HTTP' | 'HTTPS' | 'MATCH' | null;
  options: Record<string, unknown>;
}

/** An SSL certificate (GetSSLAnswer): an own one, or a Let's Encrypt one (`automated`) with its latest issuing. */
export interface CdnCertificateRecord {
  id: number;
  name: string;
  automated: boolean;
  /** An own certificate's issuer and subject (an automated one shows its resource's once issued). */
  issuer: string;
  subject: string;
  created: number;
  /** An automated certificate's issuing for the resource it is attached to; null: never attached, or revoked. */
  issuing: { id: number; resource: number; started: number; durationMs: number; failure: { error: string; details: string } | null } | null;
}

/** A purge asked for (the purge history's PurgeStatusResponse): its status follows from `created`, `durationMs` and `fails` on the clock. */
export interface CdnPurgeRecord {
  purge_id: number;
  resource: number;
  cname: string;
  purge_type: 'purge_all' | 'purge_by_pattern' | 'purge_by_url';
  items: string[];
  created: number;
  durationMs: number;
  /** Ends Failed (its resource was inactive when asked). */
  fails: boolean;
}

/** The CDN service's slice of the state; the next ids never reuse a deleted one. */
export interface CdnSlice {
  readonly cdnOriginGroups: Map<number, CdnOriginGroupRecord>;
  readonly cdnResources: Map<number, CdnResourceRecord>;
  readonly cdnRules: Map<number, CdnRuleRecord>;
  readonly cdnCertificates: Map<number, CdnCertificateRecord>;
  /** The purges asked for, oldest first (the purge history and the rate limits read it). */
  readonly cdnPurges: CdnPurgeRecord[];
  readonly cdnNextIds: { originGroup: number; resource: number; rule: number; certificate: number; issuing: number; purge: number };
}

const protocol = z.enum(['HTTP', 'HTTPS', 'MATCH']);
const sourceFixture = z.strictObject({
  source: z.string().max(255).optional(),
  origin_type: z.enum(['host', 's3', 'fastedge']).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  backup: z.boolean().default(false),
  enabled: z.boolean().default(true),
  tag: z.string().default('default'),
  host_header_override: z.string().nullable().default(null),
});
const originGroupFixture = z.strictObject({
  id: positiveInt,
  name: z.string().min(1).max(255),
  use_next: z.boolean().default(false),
  proxy_next_upstream: z.array(z.string()).default(['error', 'timeout']),
  auth_type: z.enum(['none', 'awsSignatureV4']).default('none'),
  auth: z.record(z.string(), z.unknown()).nullable().default(null),
  sources: z.array(sourceFixture).default([]),
  path: z.string().default(''),
});
const resourceFixture = z.strictObject({
  id: positiveInt,
  cname: z.string().min(1),
  originGroup: positiveInt,
  active: z.boolean().default(true),
  name: z.string().nullable().default(null),
  description: z.string().default(''),
  originProtocol: protocol.default('HTTP'),
  secondaryHostnames: z.array(z.string()).default([]),
  sslEnabled: z.boolean().default(false),
  sslData: positiveInt.nullable().default(null),
  proxy_ssl_enabled: z.boolean().default(false),
  proxy_ssl_ca: positiveInt.nullable().default(null),
  proxy_ssl_data: positiveInt.nullable().default(null),
  status: z.enum(['active', 'suspended', 'processed']).default('active'),
  client: positiveInt.optional(),
  created: datetime.optional(),
  updated: datetime.optional(),
  options: cdnResourceOptionsSchema().default({}),
});
const certificateFixture = z.strictObject({
  id: positiveInt,
  name: z.string().min(1),
  automated: z.boolean().default(false),
  created: datetime.optional(),
});
const ruleFixture = z.strictObject({
  id: positiveInt,
  resource: positiveInt,
  name: z.string().min(1).max(255),
  rule: z.string().max(300),
  ruleType: z.union([z.literal(0), z.literal(1)]).default(0),
  active: z.boolean().default(true),
  weight: z.int().min(1).default(1),
  originGroup: positiveInt.nullable().default(null),
  overrideOriginProtocol: protocol.nullable().default(null),
  options: cdnRuleOptionsSchema().default({}),
});

/** Options as stored: the options set (null or absent means not set), with the spec's field defaults as the platform fills them in. */
function setOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(withFieldDefaults(options)).filter(([, value]) => value !== null));
}

/**
 * The CDN (cdn_api.yaml): origin groups, CDN resources and their rules, each a list (a plain
 * array, or `{count, next, previous, results}` when `limit` is given), GET, POST (201), PUT,
 * PATCH and DELETE (204); SSL certificates (`/cdn/sslData`: own ones and Let's Encrypt ones, issued
 * when attached to a resource, with their issuing status); purges and the purge history, with the
 * platform's rate limits (purge.ts). Fixtures: `cdn_origin_groups`,
 * `cdn_resources`, `cdn_rules`, `cdn_certificates`.
 */
export const cdnService = defineService({
  product: CDN_PRODUCT,
  fixtures: {
    cdn_origin_groups: listSection(originGroupFixture),
    cdn_resources: listSection(resourceFixture),
    cdn_rules: listSection(ruleFixture),
    cdn_certificates: listSection(certificateFixture),
  },
  fixtureIds: { cdn_origin_groups: (x) => x.id, cdn_resources: (x) => x.id, cdn_rules: (x) => x.id, cdn_certificates: (x) => x.id },
  createState: (): CdnSlice => ({
    cdnOriginGroups: new Map(),
    cdnResources: new Map(),
    cdnRules: new Map(),
    cdnCertificates: new Map(),
    cdnPurges: [],
    cdnNextIds: { originGroup: 1, resource: 1, rule: 1, certificate: 1, issuing: 1, purge: 1 },
  }),
  load(slice, { cdn_origin_groups, cdn_resources, cdn_rules, cdn_certificates }, world) {
    slice.cdnOriginGroups.clear();
    slice.cdnResources.clear();
    slice.cdnRules.clear();
    slice.cdnCertificates.clear();
    slice.cdnPurges.length = 0;
    // A fixture's automated certificate attached to a resource (its sslData) was issued long ago.
    for (const x of cdn_certificates) {
      const user = cdn_resources.find((r) => r.sslData === x.id);
      const created = fixtureDate(x.created);
      slice.cdnCertificates.set(x.id, {
        id: x.id,
        name: x.name,
        automated: x.automated,
        issuer: x.automated ? '' : 'Own certificate authority',
        subject: x.automated ? '' : 'own.example.com',
        created,
        issuing: x.automated && user ? { id: x.id, resource: user.id, started: created, durationMs: 0, failure: null } : null,
      });
    }
    for (const x of cdn_origin_groups) {
      const sources = x.sources.map((s) => ({
        origin_type: s.origin_type ?? 'host',
        source: s.source ?? null,
        config: s.config ? structuredClone(s.config) : null,
        backup: s.backup,
        enabled: s.enabled,
        tag: s.tag,
        host_header_override: s.host_header_override,
      }));
      slice.cdnOriginGroups.set(x.id, { ...x, proxy_next_upstream: [...x.proxy_next_upstream], auth: x.auth ? structuredClone(x.auth) : null, sources });
    }
    for (const x of cdn_resources) {
      const created = fixtureDate(x.created);
      slice.cdnResources.set(x.id, {
        ...x,
        secondaryHostnames: [...x.secondaryHostnames],
        client: x.client ?? world.client_id,
        created,
        updated: fixtureDate(x.updated, created),
        options: setOptions(structuredClone(x.options)),
      });
    }
    for (const x of cdn_rules) slice.cdnRules.set(x.id, { ...x, options: setOptions(structuredClone(x.options)) });
    const next = (ids: Iterable<number>): number => Math.max(0, ...ids) + 1;
    Object.assign(slice.cdnNextIds, {
      originGroup: next(slice.cdnOriginGroups.keys()),
      resource: next(slice.cdnResources.keys()),
      rule: next(slice.cdnRules.keys()),
      certificate: next(slice.cdnCertificates.keys()),
      issuing: next(slice.cdnCertificates.keys()),
      purge: 1,
    });
  },
  dump: (state) => ({
    cdn_origin_groups: [...state.cdnOriginGroups.values()].map((g) => renderOriginGroup(g, state)),
    cdn_resources: [...state.cdnResources.values()].map((r) => renderResource(r, state)),
    cdn_rules: [...state.cdnRules.values()].map((r) => ({ resource: r.resource, ...renderRule(r, state) })),
    cdn_certificates: [...state.cdnCertificates.values()].map((c) => renderCertificate(c, { state, now: Number.MAX_SAFE_INTEGER })),
  }),
  routes: [...cdnRoutes, ...purgeRoutes],
  mutationKinds: ['cdn_origin_group', 'cdn_resource', 'cdn_rule', 'cdn_certificate', 'cdn_purge'],
  taskTargets: [],
});
