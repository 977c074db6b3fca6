import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values always serialise alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** sha256 (hex) of a value's canonical JSON: the staleness fingerprint of observed fields. */
export function fingerprint(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value ?? null))
    .digest('hex');
}
