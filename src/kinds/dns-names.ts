import { domainToASCII } from 'node:url';

/**
 * DNS names as the platform compares them, shared by dns_zone and dns_rrset: lower case, without
 * the trailing dot, internationalised labels as punycode (`bücher` → `xn--bcher-kva`, through
 * node's WHATWG `domainToASCII`, which applies UTS #46). Pure.
 */

/** The most characters a domain name may have (RFC 1035, without the trailing dot). */
export const MAX_NAME_LENGTH = 253;

/** The most characters one label may have. */
export const MAX_LABEL_LENGTH = 63;

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;

/** One valid ASCII label, of at most MAX_LABEL_LENGTH characters (any case: a label is compared lower-cased). */
const PLAIN_LABEL = '[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?';
/** A valid name of plain ASCII labels (nameProblem's fast path), with or without the trailing dot. */
const PLAIN_VALID = new RegExp(`^(?:${PLAIN_LABEL}\\.)*${PLAIN_LABEL}\\.?$`);
/** The same, with a `*` as its first label. */
const PLAIN_VALID_WILDCARD = new RegExp(`^(?:\\*\\.)?(?:${PLAIN_LABEL}\\.)*${PLAIN_LABEL}\\.?$`);

/** One label in ASCII (punycode for a label with other characters), or null when it cannot be one. */
function asciiLabel(label: string): string | null {
  if (/^[\x20-\x7e]*$/.test(label)) return label.toLowerCase();
  const ascii = domainToASCII(label);
  return ascii === '' || ascii.includes('.') ? null : ascii;
}

/** Printable ASCII without spaces: a name whose labels need no punycode and nothing trimmed. */
const PLAIN_NAME = /^[!-~]+$/;

/** A name in the platform's form: trimmed, lower case, IDN labels as punycode, no trailing dot (`.` alone stays `.`). */
export function canonicalName(name: string): string {
  // Most names are plain ASCII: lower-cased whole, which is what each label's conversion gives
  // (a record set list of 10,000 names is read at every plan).
  if (PLAIN_NAME.test(name)) {
    const lower = name.toLowerCase();
    return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
  }
  const text = name.trim();
  if (text === '.' || text === '') return text;
  const bare = text.endsWith('.') ? text.slice(0, -1) : text;
  return bare
    .split('.')
    .map((label) => asciiLabel(label) ?? label)
    .join('.');
}

/**
 * The first problem of a domain name (a zone, an owner name, a record's target), or null: at most
 * 253 characters and labels of 1..63 letters, digits, `-` and `_` (not starting or ending with
 * `-`), once in ASCII; `*` only as the first label, where `wildcard` allows it.
 */
export function nameProblem(name: string, wildcard = false): string | null {
  // Most names are plain ASCII labels, each at most 63 characters: nothing to convert, no problem.
  if (name.length <= MAX_NAME_LENGTH && (wildcard ? PLAIN_VALID_WILDCARD : PLAIN_VALID).test(name)) return null;
  const text = name.trim();
  const bare = text.endsWith('.') ? text.slice(0, -1) : text;
  if (bare === '') return 'a domain name must not be empty';
  const labels = bare.split('.');
  const ascii: string[] = [];
  for (const [i, label] of labels.entries()) {
    if (label === '') return `"${name}" has an empty label (two dots in a row, or a leading dot)`;
    if (label === '*') {
      if (!wildcard || i !== 0) return `"${name}": "*" may only be the first label of a record name`;
      ascii.push(label);
      continue;
    }
    const converted = asciiLabel(label);
    if (converted === null) return `"${name}": the label "${label}" is not a valid internationalised label`;
    if (converted.length > MAX_LABEL_LENGTH) return `"${name}": the label "${converted}" is ${converted.length} characters, more than ${MAX_LABEL_LENGTH}`;
    if (!LABEL.test(converted)) return `"${name}": the label "${converted}" may hold only letters, digits, "-" and "_", and may not start or end with "-"`;
    ascii.push(converted);
  }
  const full = ascii.join('.');
  if (full.length > MAX_NAME_LENGTH) return `"${name}" is ${full.length} characters (in ASCII), more than ${MAX_NAME_LENGTH}`;
  return null;
}

/**
 * The fully qualified owner name of a record set, as the platform keeps it (canonicalName),
 * from a name relative to its zone or fully qualified: `@` or empty is the apex; a name ending
 * with a dot is fully qualified; a name equal to the zone or ending in `.zone` is taken as fully
 * qualified too (the platform does the same); anything else is relative to the zone.
 */
export function ownerName(given: string, zone: string): string {
  const text = given.trim();
  const apex = canonicalName(zone);
  if (text === '@' || text === '') return apex;
  const name = canonicalName(text);
  if (text.endsWith('.') || name === apex || name.endsWith(`.${apex}`)) return name;
  return `${name}.${apex}`;
}

/** Whether a fully qualified name (canonicalName) lies in the zone (the apex or below it). */
export function isInZone(fqdn: string, zone: string): boolean {
  const apex = canonicalName(zone);
  return fqdn === apex || fqdn.endsWith(`.${apex}`);
}
