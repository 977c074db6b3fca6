import { z } from 'zod';
import { datetime, fixtureDate, int, listSection, positiveInt } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { DNS_PRODUCT } from './product.js';
import { MAX_TTL, canonicalName, contentProblem, nameProblem, ownerName, pickerProblem, recordType, type RRSetType } from './records.js';
import { dnsRoutes, newZone, rrsetKey } from './routes.js';

/** One resource record of a record set. */
export interface DnsResourceRecord {
  id: number;
  content: unknown[];
  enabled: boolean;
  meta: Record<string, unknown>;
}

/** A picker of a dynamic record set (OutputFilter). */
export interface DnsPicker {
  type: string;
  limit?: number;
  strict?: boolean;
}

/** A record set: its owner name fully qualified (lower case, no trailing dot), its type, TTL and records. */
export interface DnsRRSetRecord {
  name: string;
  type: RRSetType;
  ttl: number;
  resource_records: DnsResourceRecord[];
  pickers: DnsPicker[];
  meta: Record<string, unknown>;
  updated_at: number;
}

/** A zone with its record sets (by `name/TYPE`, in creation order; SOA and NS at the apex from its creation). */
export interface DnsZoneRecord {
  id: number;
  name: string;
  contact: string;
  expiry: number;
  refresh: number;
  retry: number;
  nx_ttl: number;
  primary_server: string;
  serial: number;
  meta: Record<string, unknown>;
  enabled: boolean;
  dnssec_enabled: boolean;
  /** How many times DNSSEC was turned on: each time a new key (and DS record). */
  dnssec_generation: number;
  updated_at: number;
  rrsets: Map<string, DnsRRSetRecord>;
}

/** The DNS service's slice of the state: zones by name, and the next resource record id. */
export interface DnsSlice {
  readonly dnsZones: Map<string, DnsZoneRecord>;
  readonly dnsIds: { record: number };
}

const jsonObject = z.record(z.string(), z.unknown());
const uint = int.min(0);

const rrsetFixture = z.strictObject({
  /** Relative to the zone, `@`, or fully qualified. */
  name: z.string().min(1),
  type: z
    .string()
    .refine((t) => recordType(t) !== undefined && t.toUpperCase() !== 'SOA', 'must be a record type the platform serves (A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, HTTPS, SVCB)'),
  ttl: uint.max(MAX_TTL).optional(),
  resource_records: z.array(z.strictObject({ content: z.array(z.unknown()).min(1), enabled: z.boolean().default(true), meta: jsonObject.default({}) })).min(1),
  pickers: z.array(z.unknown()).default([]),
  meta: jsonObject.default({}),
  updated_at: datetime.optional(),
});

const zoneFixture = z
  .strictObject({
    name: z.string().refine((n) => nameProblem(canonicalName(n)) === undefined, 'must be a domain name'),
    id: positiveInt.optional(),
    contact: z.string().optional(),
    expiry: uint.optional(),
    refresh: uint.optional(),
    retry: uint.optional(),
    nx_ttl: uint.optional(),
    primary_server: z.string().optional(),
    serial: uint.optional(),
    meta: jsonObject.default({}),
    enabled: z.boolean().default(true),
    dnssec_enabled: z.boolean().default(false),
    updated_at: datetime.optional(),
    rrsets: z.array(rrsetFixture).default([]),
  })
  .superRefine((zone, ctx) => {
    const name = canonicalName(zone.name);
    const seen = new Set<string>();
    for (const [i, rrset] of zone.rrsets.entries()) {
      const owner = ownerName(rrset.name, name);
      const type = recordType(rrset.type);
      if ('error' in owner) ctx.addIssue({ code: 'custom', path: ['rrsets', i, 'name'], message: owner.error });
      else if (type) {
        const key = rrsetKey(owner.name, type);
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['rrsets', i], message: `duplicate record set ${owner.name} ${type}` });
        seen.add(key);
      }
      if (!type) continue;
      for (const [j, record] of rrset.resource_records.entries()) {
        const problem = contentProblem(type, record.content);
        if (problem) ctx.addIssue({ code: 'custom', path: ['rrsets', i, 'resource_records', j, 'content'], message: problem });
      }
      for (const [j, picker] of rrset.pickers.entries()) {
        const problem = pickerProblem(picker);
        if (problem) ctx.addIssue({ code: 'custom', path: ['rrsets', i, 'pickers', j], message: problem });
      }
    }
  });

/**
 * DNS zones and their record sets (/dns/v2): zones listed (paged by limit and offset, filtered
 * by name, id, enabled), read, created, updated, enabled, disabled, deleted, DNSSEC toggled and
 * its DS read; record sets listed per zone (paged), read, created, updated (PUT creates too) and
 * deleted. Fixtures: `dns_zones`, each with its `rrsets`.
 */
export const dnsService = defineService({
  product: DNS_PRODUCT,
  fixtures: { dns_zones: listSection(zoneFixture) },
  fixtureIds: { dns_zones: (x) => canonicalName(x.name) },
  createState: (): DnsSlice => ({ dnsZones: new Map(), dnsIds: { record: 1 } }),
  load(slice, { dns_zones }) {
    slice.dnsZones.clear();
    slice.dnsIds.record = 1;
    const taken = new Set(dns_zones.flatMap((x) => (x.id === undefined ? [] : [x.id])));
    let nextId = 1;
    for (const x of dns_zones) {
      let id = x.id;
      if (id === undefined) {
        while (taken.has(nextId)) nextId++;
        taken.add((id = nextId));
      }
      const updated = fixtureDate(x.updated_at);
      const zone = newZone(slice, {
        id,
        name: canonicalName(x.name),
        now: updated,
        given: { contact: x.contact, expiry: x.expiry, refresh: x.refresh, retry: x.retry, nx_ttl: x.nx_ttl, primary_server: x.primary_server, meta: x.meta, enabled: x.enabled },
        serial: x.serial,
      });
      zone.dnssec_enabled = x.dnssec_enabled;
      zone.dnssec_generation = x.dnssec_enabled ? 1 : 0;
      for (const r of x.rrsets) {
        const owner = ownerName(r.name, zone.name) as { name: string };
        const type = recordType(r.type) as RRSetType;
        zone.rrsets.set(rrsetKey(owner.name, type), {
          name: owner.name,
          type,
          ttl: r.ttl ?? (type === 'NS' ? 3600 : 300),
          resource_records: r.resource_records.map((rr) => ({
            id: slice.dnsIds.record++,
            content: structuredClone(rr.content),
            enabled: rr.enabled,
            meta: structuredClone(rr.meta),
          })),
          pickers: r.pickers as DnsPicker[],
          meta: structuredClone(r.meta),
          updated_at: fixtureDate(r.updated_at ?? x.updated_at),
        });
      }
      slice.dnsZones.set(zone.name, zone);
    }
  },
  dump: (state) => ({
    dns_zones: [...state.dnsZones.values()].map(({ rrsets, ...zone }) => ({ ...zone, rrsets: [...rrsets.values()] })),
  }),
  routes: dnsRoutes,
  mutationKinds: ['dns_zone', 'dns_rrset'],
  taskTargets: [],
});
