import type { FieldChange } from '../plan/types.js';
import { canonicalJson } from '../model/fingerprint.js';

/** What diffDeclared found: the field changes, the fields that differ, and per map field its unchanged entries. */
export interface DeclaredDiff {
  changes: FieldChange[];
  /** The declared fields whose live value differs, in the order given. */
  changed: string[];
  /** Per map field, how many of its entries are equal (hidden in the plan text). */
  unchanged_elements: Record<string, number>;
}

/**
 * Diffs the fields a block declares against the live state, for kinds whose fields are each
 * set as a whole (a PATCH sends the changed fields only). Only declared fields are compared (a
 * field the block leaves out is not managed); `scalars` differ as values, `maps` (string →
 * string, such as env) per key, each key an add, update or remove, since the declared map is the
 * whole map. A live value that is absent counts as null (scalars) or an empty map. Pure.
 */
export function diffDeclared(
  desired: Readonly<Record<string, unknown>>,
  state: Readonly<Record<string, unknown>>,
  scalars: readonly string[],
  maps: readonly string[] = [],
): DeclaredDiff {
  const changes: FieldChange[] = [];
  const changed: string[] = [];
  const unchanged_elements: Record<string, number> = {};
  for (const field of scalars) {
    const want = desired[field];
    if (want === undefined) continue;
    const have = state[field] ?? null;
    if (canonicalJson(have) === canonicalJson(want)) continue;
    changed.push(field);
    changes.push({ path: [field], op: 'update', before: have, after: want });
  }
  for (const field of maps) {
    const want = desired[field] as Readonly<Record<string, string>> | undefined;
    if (want === undefined) continue;
    const have = (state[field] ?? {}) as Readonly<Record<string, string>>;
    const fieldChanges: FieldChange[] = [];
    let same = 0;
    for (const key of [...new Set([...Object.keys(have), ...Object.keys(want)])].sort()) {
      const before = Object.hasOwn(have, key) ? have[key] : undefined;
      const after = Object.hasOwn(want, key) ? want[key] : undefined;
      if (before === after) same += 1;
      else if (before === undefined) fieldChanges.push({ path: [field, key], op: 'add', after });
      else if (after === undefined) fieldChanges.push({ path: [field, key], op: 'remove', before });
      else fieldChanges.push({ path: [field, key], op: 'update', before, after });
    }
    unchanged_elements[field] = same;
    if (fieldChanges.length === 0) continue;
    changed.push(field);
    changes.push(...fieldChanges);
  }
  return { changes, changed, unchanged_elements };
}

/** The declared fields among `fields` (those not undefined), in that order: what a create sends. */
export function declaredFields(desired: Readonly<Record<string, unknown>>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => desired[f] !== undefined).map((f) => [f, desired[f]]));
}
