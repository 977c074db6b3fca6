import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from '../../../src/model/fingerprint.js';

/**
 * The canonical JSON of earlier versions: JSON.stringify with every object replaced by a copy
 * whose entries are sorted. Saved plans hold digests and fingerprints made this way, so the
 * one-pass writer must produce exactly this text.
 */
function earlierCanonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** Keys that order differently by code unit and as JavaScript orders an object's keys. */
const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '2', '10', '9', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'b', 'B', 'é', ''));
const leaf = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date());
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('any'), { maxLength: 5 }),
  object: fc.array(fc.tuple(key, tie('any')), { maxLength: 6 }).map((entries) => Object.fromEntries(entries)),
})).any;

describe('canonicalJson', () => {
  it('writes exactly the text of earlier versions, for any JSON-like value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(earlierCanonicalJson(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys at every level, array-index keys first as JavaScript orders them', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null }, 10: 'x', 9: 'y' })).toBe('{"9":"y","10":"x","a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('fingerprints the canonical JSON with sha256, null for undefined', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(fingerprint({ b: 1, a: 2 })).toBe(sha('{"a":2,"b":1}'));
    expect(fingerprint(undefined)).toBe(sha('null'));
  });
});
