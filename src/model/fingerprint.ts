import { must } from '../errors.js';
import { hash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal values always serialise alike: the text
 * JSON.stringify writes for a copy of the value whose objects have their keys sorted (array-index
 * keys still come first, as JavaScript orders an object's keys). This is the text earlier
 * versions wrote through a JSON.stringify replacer, so digests and fingerprints in saved plans
 * stay valid; building the sorted copy first and letting JSON.stringify write it without a
 * callback per value takes about half the time.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value, ''));
}

/** Strings in code-unit order (as canonical JSON sorts keys). */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The value with every object (after toJSON, as JSON.stringify applies it) copied with sorted keys. */
function sortedCopy(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, i) => sortedCopy(item, String(i)));
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  const names = Object.keys(record);
  // Most objects have their keys in order already (a sort allocates even then).
  if (!isSorted(names)) names.sort(byCodeUnit);
  for (const name of names) {
    const item = sortedCopy(record[name], name);
    // An own "__proto__" key is data (JSON.parse makes one); assigning it would set the prototype.
    if (name === '__proto__') Object.defineProperty(copy, name, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[name] = item;
  }
  return copy;
}

function isSorted(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (must(names[i - 1], 'names[i - 1]') > must(names[i], 'names[i]')) return false;
  return true;
}

/** The fingerprint of nothing observed (every create's): computed once, one string for all of them. */
const NOTHING = hash('sha256', 'null', 'hex');

/** sha256 (hex) of a value's canonical JSON: the staleness fingerprint of observed fields. */
export function fingerprint(value: unknown): string {
  return value === null || value === undefined ? NOTHING : hash('sha256', canonicalJson(value), 'hex');
}
