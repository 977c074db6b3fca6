import { isIPv4, isIPv6 } from 'node:net';
import { isPlainObject } from '../../format.js';

// The DNS service's checks of names and record contents, as the platform makes them: pure
// functions answering a message (the text of the vendor's 400 `{"error"}`) or the value.

/** The record types the platform serves (OutputRRSet's enum, plus CAA, HTTPS and SVCB, which its API documents and serves). */
export const RRSET_TYPES = ['A', 'AAAA', 'NS', 'CNAME', 'MX', 'TXT', 'SRV', 'SOA', 'CAA', 'HTTPS', 'SVCB'] as const;
export type RRSetType = (typeof RRSET_TYPES)[number];

/** The picker types of OutputFilter. */
export const PICKER_TYPES = ['geodns', 'asn', 'country', 'continent', 'region', 'ip', 'geodistance', 'weighted_shuffle', 'default', 'first_n'] as const;

/** The largest TTL (RFC 2181: 31 bits). */
export const MAX_TTL = 2147483647;

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A name as the platform keeps it: lower case, without the trailing dot. */
export function canonicalName(name: string): string {
  return (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
}

/** A problem with a domain name (zone or owner), or undefined; `*` is allowed as the first label when `wildcard`. */
export function nameProblem(name: string, wildcard = false): string | undefined {
  if (name.length === 0) return 'name is empty';
  if (name.length > 253) return `name "${name}" is longer than 253 characters`;
  const labels = name.split('.');
  for (const [i, label] of labels.entries()) {
    if (wildcard && i === 0 && label === '*') continue;
    if (!LABEL.test(label)) return `name "${name}" has an invalid label "${label}"`;
  }
  return undefined;
}

/**
 * The fully qualified owner name (lower case, no trailing dot) of a record set name given
 * relative to its zone or fully qualified, with or without the trailing dot: a name equal to the
 * zone or ending in `.zone` is taken as fully qualified, `@` is the apex, anything else is
 * relative. A name with a trailing dot outside the zone is refused.
 */
export function ownerName(given: string, zone: string): { name: string } | { error: string } {
  const text = given.trim();
  if (text === '@') return { name: zone };
  const absolute = text.endsWith('.');
  const name = canonicalName(text);
  const inside = name === zone || name.endsWith(`.${zone}`);
  if (absolute && !inside) return { error: `rrset name "${given}" is not inside zone ${zone}` };
  const fqdn = inside ? name : `${name}.${zone}`;
  const problem = nameProblem(fqdn, true);
  return problem ? { error: problem } : { name: fqdn };
}

/** The record type of a path segment (any case), or undefined when the platform does not serve it. */
export function recordType(text: string): RRSetType | undefined {
  const upper = text.toUpperCase();
  return (RRSET_TYPES as readonly string[]).includes(upper) ? (upper as RRSetType) : undefined;
}

const isUint = (v: unknown, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
const isHost = (v: unknown): boolean => typeof v === 'string' && (v === '.' || nameProblem(canonicalName(v), true) === undefined);
const CAA_TAGS = ['issue', 'issuewild', 'iodef'];

/**
 * A problem with one record's `content` for its type, or undefined: each parameter a separate
 * element, as the vendor documents (A `["1.2.3.4"]`, MX `[10, "mail.example.com"]`, SRV
 * `[priority, weight, port, target]`, CAA `[flags, tag, value]`, TXT one or more strings).
 */
export function contentProblem(type: RRSetType, content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return `content of a ${type} record must be a non-empty array`;
  const arity = (n: number): string | undefined =>
    content.length === n ? undefined : `content of a ${type} record must have ${n} element${n === 1 ? '' : 's'}, got ${content.length}`;
  const [first, second, third, fourth] = content as unknown[];
  switch (type) {
    case 'A':
      return arity(1) ?? (typeof first === 'string' && isIPv4(first) ? undefined : `${JSON.stringify(first)} is not an IPv4 address`);
    case 'AAAA':
      return arity(1) ?? (typeof first === 'string' && isIPv6(first) ? undefined : `${JSON.stringify(first)} is not an IPv6 address`);
    case 'CNAME':
    case 'NS':
      return arity(1) ?? (isHost(first) ? undefined : `${JSON.stringify(first)} is not a domain name`);
    case 'MX':
      if (arity(2)) return arity(2);
      if (!isUint(first, 65535)) return `MX preference ${JSON.stringify(first)} must be an integer 0..65535`;
      return isHost(second) ? undefined : `${JSON.stringify(second)} is not a domain name`;
    case 'SRV':
      if (arity(4)) return arity(4);
      if (![first, second, third].every((v) => isUint(v, 65535))) return 'SRV priority, weight and port must be integers 0..65535';
      return isHost(fourth) ? undefined : `${JSON.stringify(fourth)} is not a domain name`;
    case 'CAA':
      if (arity(3)) return arity(3);
      if (!isUint(first, 255)) return `CAA flags ${JSON.stringify(first)} must be an integer 0..255`;
      if (typeof second !== 'string' || !CAA_TAGS.includes(second)) return `CAA tag ${JSON.stringify(second)} must be one of ${CAA_TAGS.join(', ')}`;
      return typeof third === 'string' ? undefined : 'CAA value must be a string';
    case 'TXT':
      return content.every((v) => typeof v === 'string' && v.length > 0) ? undefined : 'content of a TXT record must be non-empty strings';
    case 'HTTPS':
    case 'SVCB':
      if (content.length < 2) return `content of a ${type} record must have at least 2 elements, got ${content.length}`;
      if (!isUint(first, 65535)) return `${type} priority ${JSON.stringify(first)} must be an integer 0..65535`;
      if (!isHost(second)) return `${JSON.stringify(second)} is not a domain name`;
      return content.slice(2).every((p) => Array.isArray(p) && p.length >= 1 && typeof p[0] === 'string') ? undefined : `${type} parameters must be arrays [key, values...]`;
    case 'SOA':
      return 'SOA records are managed by the zone';
  }
}

/** A picker (OutputFilter) problem, or undefined. */
export function pickerProblem(picker: unknown): string | undefined {
  if (!isPlainObject(picker)) return 'a picker must be an object';
  if (typeof picker.type !== 'string' || !(PICKER_TYPES as readonly string[]).includes(picker.type)) return `unknown picker type ${JSON.stringify(picker.type)}`;
  for (const key of Object.keys(picker)) if (!['type', 'limit', 'strict'].includes(key)) return `unknown picker field "${key}"`;
  if (picker.limit !== undefined && !isUint(picker.limit, Number.MAX_SAFE_INTEGER)) return 'picker limit must be a non-negative integer';
  if (picker.strict !== undefined && typeof picker.strict !== 'boolean') return 'picker strict must be a boolean';
  return undefined;
}

/** The text of a record's content in a zone file and the zone's short answers: its elements joined by spaces (parameters of SVCB/HTTPS as key=values). */
export function shortAnswer(content: readonly unknown[]): string {
  return content.map((v) => (Array.isArray(v) ? `${String(v[0])}=${v.slice(1).map(String).join(',')}` : String(v))).join(' ');
}
