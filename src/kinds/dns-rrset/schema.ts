import { must } from '../../errors.js';
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable } from '../fields.js';
import { canonicalName, isInZone, nameProblem, ownerName } from '../dns-names.js';

/**
 * Record contents as the vendor's `InputResourceRecord.content` holds them (each parameter a
 * separate element: A `["192.0.2.1"]`, MX `[10, "mail.example.com"]`, SRV `[priority, weight,
 * port, target]`, CAA `[flags, tag, value]`, TXT one or more strings), checked per type and
 * normalised so that the many spellings of one record compare equal: an AAAA in its RFC 5952
 * form, targets without the trailing dot and in lower case (IDN as punycode), numbers that were
 * written as text as numbers, a TXT string that was written quoted without its quotes. Pure.
 */

/** The record types a dns_rrset may declare: the platform's, but SOA, which belongs to the zone. */
export const RECORD_TYPES = ['A', 'AAAA', 'NS', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'HTTPS', 'SVCB'] as const;

/** A record type a dns_rrset may declare. */
export type RecordType = (typeof RECORD_TYPES)[number];

/** The picker types of the vendor's `OutputFilter`. */
export const PICKER_TYPES = ['geodns', 'asn', 'country', 'continent', 'region', 'ip', 'geodistance', 'weighted_shuffle', 'default', 'first_n'] as const;

/** The largest TTL (RFC 2181: 31 bits). */
export const MAX_TTL = 2147483647;

/** The CAA tags (RFC 8659). */
const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

/** One element of a record's content: text, a number, or (SVCB/HTTPS parameters) a list of them. */
export type ContentElement = string | number | Array<string | number>;

/** Where a content is wrong: the element (index into `content`, when one is to blame) and why. */
export interface ContentProblem {
  index?: number;
  message: string;
}

/** A non-negative integer of at most `max`, written as a number or as decimal text; null otherwise. */
function uintOf(value: unknown, max: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= max ? n : null;
}

/** A target host's problem (`.` is the root, allowed where a target may be empty), or null. */
function hostProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `${JSON.stringify(value)} is not a domain name`;
  if (value.trim() === '.') return null;
  return nameProblem(value, true);
}

/** A TXT or CAA string written in quotes (`"v=spf1 -all"`), without them; anything else as written. */
export function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/\\(["\\])/g, '$1');
  return text;
}

/** An IPv6 address in its canonical text form (RFC 5952: lower case, longest zero run as `::`). */
export function canonicalIpv6(address: string): string {
  const text = address.trim();
  if (!isIPv6(text)) return text;
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/**
 * The most octets one record's data may take: its RDLENGTH is 16 bits (RFC 1035 3.2.1). It bounds
 * a record set too, since one DNS message, at most 65,535 octets (RFC 1035 4.2.2), answers it
 * whole. The vendor's spec documents no smaller limit; these are DNS's own, which the platform's
 * name servers cannot exceed.
 */
export const MAX_RDATA_OCTETS = 65_535;

/** The octets of a string in UTF-8. */
function utf8Octets(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The octets of a TXT record's data: each string's length octet and its text. */
export function txtOctets(content: readonly unknown[]): number {
  let n = 0;
  for (const v of content) n += 1 + (typeof v === 'string' ? utf8Octets(unquote(v)) : 0);
  return n;
}

/** The first problem of one record's content for its type, or null. */
export function contentProblem(type: RecordType, content: readonly unknown[]): ContentProblem | null {
  if (content.length === 0) return { message: `the content of a ${type} record must not be empty` };
  const arity = (n: number): ContentProblem | null =>
    content.length === n ? null : { message: `the content of a ${type} record has ${n} element${n === 1 ? '' : 's'} (${describeArity(type)}), not ${content.length}` };
  const at = (index: number, message: string | null): ContentProblem | null => (message === null ? null : { index, message });
  const [first, second, third, fourth] = content;
  switch (type) {
    case 'A':
      return arity(1) ?? at(0, typeof first === 'string' && isIPv4(first.trim()) ? null : `${JSON.stringify(first)} is not an IPv4 address`);
    case 'AAAA':
      return arity(1) ?? at(0, typeof first === 'string' && isIPv6(first.trim()) ? null : `${JSON.stringify(first)} is not an IPv6 address`);
    case 'CNAME':
    case 'NS':
      return arity(1) ?? at(0, hostProblem(first));
    case 'MX':
      return arity(2) ?? at(0, uintOf(first, 65535) === null ? `the MX preference ${JSON.stringify(first)} must be an integer 0..65535` : null) ?? at(1, hostProblem(second));
    case 'SRV': {
      const bad = [first, second, third].findIndex((v) => uintOf(v, 65535) === null);
      const names = ['priority', 'weight', 'port'];
      return arity(4) ?? (bad >= 0 ? at(bad, `the SRV ${must(names[bad], 'names[bad]')} ${JSON.stringify(content[bad])} must be an integer 0..65535`) : at(3, hostProblem(fourth)));
    }
    case 'CAA':
      return (
        arity(3) ??
        at(0, uintOf(first, 255) === null ? `the CAA flags ${JSON.stringify(first)} must be an integer 0..255` : null) ??
        at(
          1,
          typeof second === 'string' && (CAA_TAGS as readonly string[]).includes(second.toLowerCase())
            ? null
            : `the CAA tag ${JSON.stringify(second)} must be one of ${CAA_TAGS.join(', ')}`,
        ) ??
        at(2, typeof third === 'string' ? null : 'the CAA value must be a string')
      );
    case 'TXT': {
      const bad = content.findIndex((v) => typeof v !== 'string' || unquote(v).length > 255);
      if (bad < 0) {
        const octets = txtOctets(content);
        return octets <= MAX_RDATA_OCTETS
          ? null
          : {
              message: `a TXT record of ${content.length} strings takes ${octets} octets; a DNS record holds at most ${MAX_RDATA_OCTETS} (RFC 1035): split it into several records`,
            };
      }
      return at(bad, typeof content[bad] === 'string' ? 'a TXT string must be at most 255 characters (split longer text into several strings)' : 'a TXT record holds strings');
    }
    case 'HTTPS':
    case 'SVCB': {
      if (content.length < 2) return { message: `the content of a ${type} record has at least 2 elements (priority, target), not ${content.length}` };
      const bad = content.slice(2).findIndex((p) => !Array.isArray(p) || p.length < 1 || typeof p[0] !== 'string');
      return (
        at(0, uintOf(first, 65535) === null ? `the ${type} priority ${JSON.stringify(first)} must be an integer 0..65535` : null) ??
        at(1, hostProblem(second)) ??
        (bad >= 0 ? at(bad + 2, `a ${type} parameter is a list [key, values...]`) : null)
      );
    }
  }
}

function describeArity(type: RecordType): string {
  switch (type) {
    case 'MX':
      return 'preference, host';
    case 'SRV':
      return 'priority, weight, port, target';
    case 'CAA':
      return 'flags, tag, value';
    case 'A':
      return 'one IPv4 address';
    case 'AAAA':
      return 'one IPv6 address';
    default:
      return 'one domain name';
  }
}

/**
 * One record's content in the form edgeform compares and sends (see the module comment). A
 * content that does not pass contentProblem is returned as written. Pure.
 */
export function normaliseContent(type: RecordType, content: readonly unknown[]): unknown[] {
  if (contentProblem(type, content) !== null) return [...content];
  const host = (v: unknown) => canonicalName(String(v));
  const num = (v: unknown) => must(uintOf(v, Number.MAX_SAFE_INTEGER), 'uintOf(v, Number.MAX_SAFE_INTEGER)');
  switch (type) {
    case 'A':
      return [String(content[0]).trim()];
    case 'AAAA':
      return [canonicalIpv6(String(content[0]))];
    case 'CNAME':
    case 'NS':
      return [host(content[0])];
    case 'MX':
      return [num(content[0]), host(content[1])];
    case 'SRV':
      return [num(content[0]), num(content[1]), num(content[2]), host(content[3])];
    case 'CAA':
      return [num(content[0]), String(content[1]).toLowerCase(), unquote(String(content[2]))];
    case 'TXT':
      return content.map((v) => unquote(String(v)));
    case 'HTTPS':
    case 'SVCB':
      return [num(content[0]), host(content[1]), ...content.slice(2)];
  }
}

/** A record's content as one line of text (`10 mail.example.com`), for plans and messages. */
export function contentText(content: readonly unknown[]): string {
  return content
    .map((v) => (Array.isArray(v) ? `${String(v[0])}=${v.slice(1).map(String).join(',')}` : typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)))
    .join(' ');
}

/** The key a record is compared by within its set: its normalised content. */
export function recordKey(type: RecordType, content: readonly unknown[]): string {
  return JSON.stringify(normaliseContent(type, content));
}

/** A record in the form compared and sent: normalised content, `enabled` only when false, `meta` only when it has keys. */
export interface CanonicalRecord {
  content: unknown[];
  enabled?: false;
  meta?: Record<string, unknown>;
}

/** A record in canonical form (see CanonicalRecord). Pure. */
export function canonicalRecord(
  type: RecordType,
  record: { content: readonly unknown[]; enabled?: boolean | undefined; meta?: Record<string, unknown> | null | undefined },
): CanonicalRecord {
  const meta = record.meta ?? {};
  return {
    content: normaliseContent(type, record.content),
    ...(record.enabled === false ? { enabled: false as const } : {}),
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
  };
}

/** Records in canonical form, in the order of their content (a set has no order). Pure. */
export function canonicalRecords(type: RecordType, records: ReadonlyArray<Parameters<typeof canonicalRecord>[1]>): CanonicalRecord[] {
  return records
    .map((r) => canonicalRecord(type, r))
    .sort((a, b) => {
      const ka = JSON.stringify(a.content);
      const kb = JSON.stringify(b.content);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
}

/** One element of a record's content: text, a number, or (SVCB/HTTPS parameters) a list of them. */
const contentElement = () => z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]);

/** A record's `meta` keys (the vendor's OutputResourceRecord.meta): what pickers choose records by. */
const recordMeta = () =>
  z.strictObject({
    asn: z.array(z.int().min(0)).optional().describe('Autonomous system numbers this record answers (asn picker).'),
    continents: z.array(z.string().min(1)).optional().describe('Continents this record answers (continent and geodns pickers), e.g. europe.'),
    countries: z.array(z.string().min(1)).optional().describe('ISO country codes this record answers (country and geodns pickers), e.g. us.'),
    regions: z.array(z.string().min(1)).optional().describe('Regions this record answers (region picker).'),
    latlong: z
      .tuple([z.number().min(-90).max(90), z.number().min(-180).max(180)])
      .optional()
      .describe('Latitude and longitude of the record (geodistance picker).'),
    backup: z.boolean().optional().describe('A backup record, answered only when no other passes.'),
    notes: z.string().optional().describe('A note.'),
    weight: z.number().min(0).optional().describe('The weight of the record (weighted_shuffle picker).'),
    ip: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Client networks (CIDR) this record answers (ip picker).'),
    default: z.boolean().optional().describe('The record answered when no other passes (default picker).'),
    fallback: z.boolean().optional().describe('A fallback record.'),
  });

/** One record of a set (the vendor's InputResourceRecord). */
const resourceRecord = () =>
  z.strictObject({
    content: z
      .array(contentElement())
      .describe(
        'The record, each parameter a separate element: A ["192.0.2.1"], MX [10, "mail.example.com"], SRV [priority, weight, port, target], CAA [flags, tag, value], TXT ["text"].',
      ),
    enabled: z.boolean().optional().describe('false: the record is kept but not served (default true).'),
    meta: recordMeta().optional().describe('What pickers choose the record by (countries, continents, asn, ip, latlong, weight, backup, default, notes).'),
  });

/** A picker (the vendor's OutputFilter): one step of choosing which records to answer. */
const picker = () =>
  z.strictObject({
    type: z.enum(PICKER_TYPES, { error: `must be one of ${PICKER_TYPES.join(', ')}` }).describe('The picker.'),
    limit: z.int().min(0).optional().describe('Records passed on at most (0 or absent: no limit).'),
    strict: z.boolean().optional().describe('false: when no record matches, every record passes.'),
  });

/** The failover health check of a record set (rrset meta `failover`). */
const failover = () =>
  z.strictObject({
    protocol: z.enum(['HTTP', 'TCP', 'UDP', 'ICMP']).describe('How the check probes.'),
    port: z.int().min(1).max(65535),
    frequency: z.int().min(10).max(3600).describe('Seconds between checks.'),
    timeout: z.int().min(1).max(10).describe('Seconds a check waits.'),
    method: z.string().optional().describe('HTTP method (protocol HTTP only).'),
    command: z.string().optional().describe('Bytes sent (protocol TCP or UDP only).'),
    url: z.string().optional().describe('URL path (protocol HTTP only).'),
    tls: z.boolean().optional().describe('Use TLS (protocol HTTP only).'),
    regexp: z.string().optional().describe('What the answer must match (not ICMP).'),
    http_status_code: z.int().min(100).max(599).optional().describe('The status expected (protocol HTTP only).'),
    host: z.string().optional().describe('Host header (protocol HTTP only).'),
  });

/** A record set's `meta` keys (the vendor's OutputRRSet.meta). */
const rrsetMeta = () =>
  z.strictObject({
    failover: failover().optional().describe('A health check: records that fail it are not answered (protocol, port, frequency, timeout, ...).'),
    geodns_link: z.string().optional().describe('The GeoDNS link (CDN integration) of the record set.'),
  });

const shape = () =>
  z.strictObject({
    zone: z
      .string()
      .min(1, { error: 'must not be empty' })
      .describe('The zone the record set is in: its name (example.com), or a reference to a dns_zone block of the stack (${dns_zone.main.name}).'),
    name: z
      .string()
      .describe(
        'The record set name: relative to the zone (www), "@" for the apex, or fully qualified (www.example.com, with or without the trailing dot). Compared as the platform keeps it: lower case, IDN as punycode.',
      ),
    record_type: z.enum(RECORD_TYPES, { error: `must be one of ${RECORD_TYPES.join(', ')} (SOA belongs to the zone)` }).describe('The record type.'),
    ttl: z
      .int()
      .min(0, { error: 'a TTL is 0 or more seconds' })
      .max(MAX_TTL, { error: `a TTL is at most ${MAX_TTL} seconds` })
      .optional()
      .describe('Seconds resolvers may cache the answer; managed only when declared.'),
    resource_records: z
      .array(resourceRecord())
      .min(1, { error: 'a record set holds at least one record' })
      .describe('The records, compared as a set (order does not matter; duplicates are errors).'),
    pickers: z.array(picker()).optional().describe('How the platform chooses the records it answers (geodns, weighted_shuffle, ...), in order; managed only when declared.'),
    meta: rrsetMeta().optional().describe('Record set options (failover health check, geodns_link); managed only when declared.'),
    ensure: ensureDeletable,
  });

/** A record set block as its shape reads it. */
type RrsetBlock = z.output<ReturnType<typeof shape>>;

/**
 * dns_rrset: a DNS record set, identified by its zone, name and type (the platform holds every
 * identity itself); created when absent, replaced in place with PUT, deleted with `ensure: absent`.
 */
export const dnsRrsetKind = defineKind({
  type: 'dns_rrset',
  kind: 'resource',
  description: 'A DNS record set (zone, name, record type): its TTL, records (compared as a set, content normalised per type), pickers and meta; created, updated and deleted.',
  identity: ['zone', 'name', 'record_type'],
  terraform: { resource: 'gcore_dns_zone_record', fields: { domain: 'name', resource_record: 'resource_records', filter: 'pickers' } },
  idField: 'name',
  create: { key: ['zone', 'name', 'record_type'] },
  readable: {
    id: {
      type: 'string',
      description: 'ZONE/NAME/TYPE, the record set path (a record set is identified by them).',
      read: (s) => (s.zone === undefined ? undefined : `${String(s.zone)}/${String(s.name)}/${String(s.record_type)}`),
    },
    name: { type: 'string', description: 'The fully qualified record set name (lower case, no trailing dot).', read: (s) => s.name },
    zone: { type: 'string', description: 'The zone name.', read: (s) => s.zone },
    record_type: { type: 'string', description: 'The record type.', read: (s) => s.record_type },
    ttl: { type: 'number', description: 'The TTL in seconds.', read: (s) => s.ttl },
  },
  zoneRecords: {
    types: RECORD_TYPES,
    recordsField: 'resource_records',
    declares: (attributes) => {
      const block = attributes as RrsetBlock;
      return { zone: canonicalName(block.zone), name: ownerName(block.name, block.zone), type: block.record_type };
    },
    attributes: (zone, set) => ({
      zone,
      name: set.name,
      record_type: set.type,
      ttl: set.ttl,
      resource_records: set.records.map((r) => ({ content: contentFromRdata(set.type as RecordType, r.rdata, r.origin) })),
    }),
    rdata: (type, content) => rdataFromContent(type as RecordType, content),
  },
  checkAcross: (blocks) => cnameBesideOthers(blocks as ReadonlyArray<RrsetBlock>),
  shape,
  schema: (shape) => shape.superRefine((block, ctx) => checkRecordSet(block, ctx)),
});

/** The last zone name checked and its problem: the record sets of a stack name few zones, each many times. */
let lastZone: { name: string; problem: string | null } | undefined;

/** nameProblem of a zone name, remembered for the last one asked about. */
function zoneNameProblem(zone: string): string | null {
  if (lastZone?.name !== zone) lastZone = { name: zone, problem: nameProblem(zone) };
  return lastZone.problem;
}

/** The cross-field rules of a record set, each at the value it is about. */
function checkRecordSet(block: RrsetBlock, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const zoneProblem = zoneNameProblem(block.zone);
  if (zoneProblem !== null) issue(['zone'], zoneProblem);
  if (block.name.trim() !== '@' && block.name.trim() !== '') {
    const problem = nameProblem(block.name, true);
    const owner = zoneProblem === null && problem === null ? ownerName(block.name, block.zone) : '';
    const ownerProblem = owner === '' ? null : nameProblem(owner, true);
    if (problem !== null) issue(['name'], problem);
    else if (zoneProblem === null && block.name.trim().endsWith('.') && !isInZone(owner, block.zone))
      issue(['name'], `"${block.name}" is fully qualified but not in the zone ${block.zone}`);
    else if (ownerProblem !== null) issue(['name'], ownerProblem);
  }
  const type: RecordType = block.record_type;
  if (type === 'CNAME' && block.resource_records.length > 1) issue(['resource_records'], 'a CNAME record set holds one record (a name is an alias of one name)');
  if (type === 'CNAME' && zoneProblem === null && ownerName(block.name, block.zone) === ownerName('@', block.zone))
    issue(['name'], 'a CNAME cannot stand at the zone apex (beside its SOA and NS records)');
  if (type === 'TXT') {
    const octets = block.resource_records.reduce((n, r) => n + txtOctets(r.content), 0);
    if (octets > MAX_RDATA_OCTETS && block.resource_records.length > 1)
      issue(['resource_records'], `the TXT records take ${octets} octets; a record set is answered in one DNS message, at most ${MAX_RDATA_OCTETS} octets (RFC 1035)`);
  }
  const seen = new Map<string, number>();
  block.resource_records.forEach((record, i) => {
    const problem = contentProblem(type, record.content);
    if (problem !== null) {
      issue(problem.index === undefined ? ['resource_records', i, 'content'] : ['resource_records', i, 'content', problem.index], problem.message);
      return;
    }
    const key = recordKey(type, record.content);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else issue(['resource_records', i, 'content'], `the same record as resource_records[${first}] (records are a set: write each once)`);
  });
}

/**
 * A record's content from the data of a zone file record (its tokens after the type, quotes and
 * escapes read): the vendor's content array, each name relative to `origin` (the `$ORIGIN` in
 * effect for the record) made fully qualified (`@` is the origin, a name ending in a dot is
 * absolute). Numbers stay as written: the record set's normalisation reads them. HTTPS and SVCB
 * parameters `key=v1,v2` become `[key, v1, v2]`. Pure.
 */
export function contentFromRdata(type: RecordType, rdata: readonly string[], origin: string): unknown[] {
  const fq = (name: string | undefined): string | undefined => {
    if (name === undefined) return undefined;
    if (name === '@') return origin;
    if (name.endsWith('.')) return name;
    return origin === '' ? name : `${name}.${origin}`;
  };
  const withName = (index: number): unknown[] => rdata.map((v, i) => (i === index ? fq(v) : v));
  switch (type) {
    case 'CNAME':
    case 'NS':
      return withName(0);
    case 'MX':
      return withName(1);
    case 'SRV':
      return withName(3);
    case 'HTTPS':
    case 'SVCB':
      return [
        ...rdata.slice(0, 2).map((v, i) => (i === 1 && v !== '.' ? fq(v) : v)),
        ...rdata.slice(2).map((param) => {
          const eq = param.indexOf('=');
          return eq < 0 ? [param] : [param.slice(0, eq), ...param.slice(eq + 1).split(',')];
        }),
      ];
    case 'A':
    case 'AAAA':
    case 'TXT':
    case 'CAA':
      return [...rdata];
  }
}

/**
 * A record's zone file data from its content (the inverse of contentFromRdata): numbers as text,
 * names fully qualified with the trailing dot, HTTPS and SVCB parameters `[key, v1, v2]` as
 * `key=v1,v2`. Pure.
 */
export function rdataFromContent(type: RecordType, content: readonly unknown[]): string[] {
  const absolute = (v: unknown) => (String(v) === '.' || String(v).endsWith('.') ? String(v) : `${String(v)}.`);
  const hostAt = { CNAME: 0, NS: 0, MX: 1, SRV: 3, HTTPS: 1, SVCB: 1 } as Partial<Record<RecordType, number>>;
  return content.map((v, i) => {
    if (Array.isArray(v)) return v.length > 1 ? `${String(v[0])}=${v.slice(1).map(String).join(',')}` : String(v[0]);
    return i === hostAt[type] ? absolute(v) : String(v);
  });
}

/**
 * A CNAME beside another record type at one name (RFC 1034 §3.6.2: a name with a CNAME has no
 * other data), across blocks: each such block but the first at the name is a problem at its
 * `record_type`. Blocks with `ensure: absent` do not count. Pure.
 */
export function cnameBesideOthers(blocks: ReadonlyArray<RrsetBlock>): Array<{ index: number; field: string; message: string }> {
  const byName = new Map<string, number[]>();
  blocks.forEach((b, i) => {
    if (b.ensure === 'absent') return;
    const key = `${canonicalName(b.zone)}|${ownerName(b.name, b.zone)}`;
    byName.set(key, [...(byName.get(key) ?? []), i]);
  });
  const problems: Array<{ index: number; field: string; message: string }> = [];
  for (const indexes of byName.values()) {
    const cname = indexes.find((i) => must(blocks[i], 'blocks[i]').record_type === 'CNAME');
    if (cname === undefined || indexes.length < 2) continue;
    const name = ownerName(must(blocks[cname], 'blocks[cname]').name, must(blocks[cname], 'blocks[cname]').zone);
    for (const i of indexes) {
      if (i === cname) continue;
      problems.push({
        index: i,
        field: 'record_type',
        message: `a CNAME cannot stand beside other record types: ${name} has a CNAME record set (in another block) and this ${must(blocks[i], 'blocks[i]').record_type}`,
      });
    }
  }
  return problems;
}
