import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, ZONE_OWNER_META_KEY } from '../fields.js';
import { nameProblem } from '../dns-names.js';

/** Seconds, as the zone's SOA timers take them (uint64 in the vendor schema; kept to 32 bits here). */
const seconds = (what: string) =>
  z
    .int()
    .min(0, { error: 'must be 0 or more seconds' })
    .max(2147483647, { error: 'must be at most 2147483647 seconds' })
    .optional()
    .describe(`${what} Managed only when declared.`);

/** The largest zone file edgeform reads (a zone of some 50,000 records). */
export const MAX_ZONE_FILE_BYTES = 4 * 1024 * 1024;

const shape = () =>
  z.strictObject({
    name: z
      .string()
      .min(1, { error: 'must not be empty' })
      .describe('The zone name (example.com): its identity. Compared as the platform keeps it: lower case, no trailing dot, IDN as punycode.'),
    contact: z
      .string()
      .min(1, { error: 'must not be empty' })
      .optional()
      .describe('Email address of the administrator responsible for the zone (SOA RNAME). Managed only when declared.'),
    primary_server: z.string().min(1, { error: 'must not be empty' }).optional().describe('The primary master name server of the zone (SOA MNAME). Managed only when declared.'),
    expiry: seconds('Seconds after which secondary name servers stop answering for the zone.'),
    refresh: seconds('Seconds after which secondary name servers query the SOA again to detect changes.'),
    retry: seconds('Seconds after which secondary name servers retry a failed refresh.'),
    nx_ttl: seconds('Seconds resolvers may cache a negative answer (NXDOMAIN).'),
    meta: z
      .record(
        z
          .string()
          .min(1)
          .refine((key) => key !== ZONE_OWNER_META_KEY, {
            error: `the meta key "${ZONE_OWNER_META_KEY}" holds edgeform's owner record (the stack that prunes the zone); a block cannot declare it`,
          }),
        z.unknown(),
      )
      .optional()
      .describe(
        `Free-form data of the zone (e.g. webhook, webhook_method); the whole map is managed when declared, but for the key "${ZONE_OWNER_META_KEY}" (edgeform's owner record), which a block cannot declare.`,
      ),
    enabled: z.boolean().optional().describe('false: the zone is not served (PATCH .../disable); true: served (PATCH .../enable). Managed only when declared.'),
    dnssec: z.boolean().optional().describe('true: DNSSEC is on (its DS record is the readable field ds); false: off. Managed only when declared.'),
    records_file: z
      .string()
      .min(1, { error: 'must not be empty' })
      .optional()
      .describe(
        "A BIND zone file next to the stack (path relative to the stack file, inside its directory) whose record sets are planned as if each were a dns_rrset block; read and checked at validate time (the zone's SOA and apex NS in it are the zone's and are skipped).",
      ),
    ensure: ensureDeletable,
  });

/**
 * dns_zone: a DNS zone, identified by its name (the platform holds the identity); created when
 * absent, its SOA fields and meta set with PUT, enabled or disabled, DNSSEC turned on or off,
 * deleted with `ensure: absent`.
 */
export const dnsZoneKind = defineKind({
  type: 'dns_zone',
  kind: 'resource',
  description: 'A DNS zone by name: its SOA fields (contact, expiry, refresh, retry, nx_ttl, primary server), meta, enabled and DNSSEC; created, updated and deleted.',
  identity: ['name'],
  terraform: { resource: 'gcore_dns_zone', fields: {} },
  idField: 'name',
  create: { key: ['name'] },
  ownerRecord: true,
  // The zone file's text goes into records_text; the loader (src/config/zone-records.ts) parses
  // it with the zone's name as origin, which this check, given the text alone, cannot know, and
  // makes each record set a dns_rrset block.
  files: {
    records_file: {
      into: 'records_text',
      what: 'a BIND zone file',
      maxBytes: MAX_ZONE_FILE_BYTES,
      check: () => null,
      zoneFile: { records: 'dns_rrset', origin: 'name' },
    },
  },
  readable: {
    id: { type: 'string', description: 'The zone name: a zone is identified by it.', read: (s) => s.name },
    name: { type: 'string', description: 'The zone name (lower case, no trailing dot).', read: (s) => s.name },
    serial: { type: 'number', description: 'The SOA serial the platform keeps.', read: (s) => s.serial },
    ds: { type: 'string', description: 'The DS record to give the parent zone, when DNSSEC is on.', read: (s) => s.ds },
    status: { type: 'string', description: 'The zone status the platform reports.', read: (s) => s.status },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      const problem = nameProblem(block.name);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
    }),
});
