import { isOwnershipTag, type TagsPolicy } from './fields.js';
import { byCodeUnit } from '../model/fingerprint.js';
import type { FieldChange } from '../plan/types.js';

/** A tag as the platform returns it. */
export interface LiveTag {
  key: string;
  value: string;
  read_only: boolean;
}

/** The body value of `tags` in the floating IP PATCH: a merge patch, or null to drop every user tag. */
export type TagsPatch = Record<string, string | null> | null;

/** The result of diffing tags: the smallest patch, the per-key changes, and plan errors. */
export interface TagsPlan {
  /** undefined when nothing differs (no request is sent). */
  patch: TagsPatch | undefined;
  /** User tags after the patch is applied. */
  after: Record<string, string>;
  changes: FieldChange[];
  /** User tags left as they are (for "N unchanged tags hidden"). */
  unchanged: number;
  /** Read-only keys the stack tries to set or remove: each is a plan error. */
  readOnlyKeys: string[];
}

/**
 * Computes the smallest tags merge patch turning the live user tags into the desired ones
 * (DESIGN section 4):
 * - authoritative: user tags not listed (or listed as null) are removed;
 * - merge: only listed keys are managed; null removes the key; unlisted tags stay;
 * - a read-only key in the desired tags is an error, whatever its value;
 * - when every user tag goes and none is added, the patch is `null` (the platform's
 *   "remove all user tags"); otherwise only changed keys are sent;
 * - no patch when nothing differs;
 * - edgeform's ownership tags (`edgeform-*`, written by its creates) are not the stack's: they are
 *   never shown, counted or removed, so with them on the resource "every user tag goes" is sent
 *   key by key, never as `null` (which would remove them too).
 */
export function planTagsPatch(live: readonly LiveTag[], desired: Readonly<Record<string, string | null>>, policy: TagsPolicy): TagsPlan {
  // One pass over the live tags, and no sort of fewer than two entries: this runs once per
  // resource, and a plan of 10,000 floating IPs spent more on these small collections than on
  // the rest of its planning.
  let readOnly: Set<string> | undefined;
  let owned = false;
  const current = new Map<string, string>();
  for (const t of live) {
    if (t.read_only) (readOnly ??= new Set()).add(t.key);
    else if (isOwnershipTag(t.key)) owned = true;
    else current.set(t.key, t.value);
  }
  const readOnlyKeys: string[] = [];
  const target = policy === 'merge' ? new Map(current) : new Map<string, string>();
  for (const k in desired) {
    if (!Object.hasOwn(desired, k)) continue;
    if (readOnly?.has(k)) {
      readOnlyKeys.push(k);
      continue;
    }
    if (isOwnershipTag(k)) continue;
    const v = desired[k]!;
    if (v === null) target.delete(k);
    else target.set(k, v);
  }

  const patch: Record<string, string | null> = {};
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [k, before] of current) {
    const after = target.get(k);
    if (after === undefined) {
      setKey(patch, k, null);
      changes.push({ path: ['tags', k], op: 'remove', before });
    } else if (after !== before) {
      setKey(patch, k, after);
      changes.push({ path: ['tags', k], op: 'update', before, after });
    } else {
      unchanged++;
    }
  }
  for (const [k, after] of target) {
    if (current.has(k)) continue;
    setKey(patch, k, after);
    changes.push({ path: ['tags', k], op: 'add', after });
  }
  if (changes.length > 1) changes.sort((a, b) => byCodeUnit(a.path[1]!, b.path[1]!));

  const entries = [...target];
  if (entries.length > 1) entries.sort(([a], [b]) => byCodeUnit(a, b));
  const after = Object.fromEntries(entries);
  let result: TagsPatch | undefined;
  if (changes.length === 0) result = undefined;
  else if (target.size === 0 && !owned) result = null;
  else result = patch;
  return { patch: result, after, changes, unchanged, readOnlyKeys };
}

/** Sets a key of a patch as data, also `__proto__` (a tag the platform may hold), which assignment would take for the prototype. */
function setKey(patch: Record<string, string | null>, key: string, value: string | null): void {
  if (key === '__proto__') Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  else patch[key] = value;
}

/** The user tags of a live tag list as a plain sorted map (without edgeform's ownership tags). */
export function userTags(live: readonly LiveTag[]): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const t of live) if (!t.read_only && !isOwnershipTag(t.key)) entries.push([t.key, t.value]);
  if (entries.length > 1) entries.sort(([a], [b]) => byCodeUnit(a, b));
  return Object.fromEntries(entries);
}
