import { isOwnershipTag, type TagsPolicy } from '../kinds/fields.js';
import type { FieldChange } from './types.js';

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
  const readOnly = new Set(live.filter((t) => t.read_only).map((t) => t.key));
  const owned = live.some((t) => !t.read_only && isOwnershipTag(t.key));
  const current = new Map(live.filter((t) => !t.read_only && !isOwnershipTag(t.key)).map((t) => [t.key, t.value]));
  const readOnlyKeys = Object.keys(desired).filter((k) => readOnly.has(k));

  const target = new Map<string, string>();
  if (policy === 'merge') for (const [k, v] of current) target.set(k, v);
  for (const [k, v] of Object.entries(desired)) {
    if (readOnly.has(k) || isOwnershipTag(k)) continue;
    if (v === null) target.delete(k);
    else target.set(k, v);
  }

  const patch: Record<string, string | null> = {};
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [k, before] of current) {
    const after = target.get(k);
    if (after === undefined) {
      patch[k] = null;
      changes.push({ path: ['tags', k], op: 'remove', before });
    } else if (after !== before) {
      patch[k] = after;
      changes.push({ path: ['tags', k], op: 'update', before, after });
    } else {
      unchanged++;
    }
  }
  for (const [k, after] of target) {
    if (current.has(k)) continue;
    patch[k] = after;
    changes.push({ path: ['tags', k], op: 'add', after });
  }
  changes.sort((a, b) => (a.path[1]! < b.path[1]! ? -1 : a.path[1]! > b.path[1]! ? 1 : 0));

  const after = Object.fromEntries([...target].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  let result: TagsPatch | undefined;
  if (changes.length === 0) result = undefined;
  else if (target.size === 0 && !owned) result = null;
  else result = patch;
  return { patch: result, after, changes, unchanged, readOnlyKeys };
}

/** The user tags of a live tag list as a plain sorted map (without edgeform's ownership tags). */
export function userTags(live: readonly LiveTag[]): Record<string, string> {
  return Object.fromEntries(
    live
      .filter((t) => !t.read_only && !isOwnershipTag(t.key))
      .map((t) => [t.key, t.value] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
