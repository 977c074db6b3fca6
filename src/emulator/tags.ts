import { isPlainObject } from './format.js';

/** A cloud tag as the API shows it (TagSerializer). */
export interface Tag {
  key: string;
  value: string;
  read_only: boolean;
}

/** A validated tags merge patch: key → new value or null (remove); null alone removes every user tag. */
export type TagsPatch = Record<string, string | null> | null;

const KEY_PATTERN = /^[^\s=]+$/;
// The vendor's UpdateTagsSerializer value pattern: no tabs or line breaks, no surrounding spaces.
const VALUE_PATTERN = /^[^ \t\n\r\f\v]([^\t\n\r\f\v]*[^ \t\n\r\f\v])?$/;

/**
 * Checks a `tags` value against UpdateTagsSerializer (keys 1–255 chars matching ^[^\s=]+$;
 * values null or strings of 1–255 chars without tabs, line breaks or surrounding spaces).
 */
export function parseTagsPatch(value: unknown): { ok: true; patch: TagsPatch } | { ok: false; message: string } {
  if (value === null) return { ok: true, patch: null };
  if (!isPlainObject(value)) return { ok: false, message: 'tags: Input should be a valid dictionary or null' };
  const patch: Record<string, string | null> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.length < 1 || key.length > 255) return { ok: false, message: `tags: key "${key.slice(0, 40)}" must be 1 to 255 characters long` };
    if (!KEY_PATTERN.test(key)) return { ok: false, message: `tags: key "${key}" must not contain whitespace or '='` };
    if (v === null) {
      patch[key] = null;
      continue;
    }
    if (typeof v !== 'string') return { ok: false, message: `tags.${key}: Input should be a valid string or null` };
    if (v.length < 1 || v.length > 255) return { ok: false, message: `tags.${key}: value must be 1 to 255 characters long` };
    if (!VALUE_PATTERN.test(v)) return { ok: false, message: `tags.${key}: value must not contain tabs or line breaks, nor start or end with a space` };
    patch[key] = v;
  }
  return { ok: true, patch };
}

/** Keys of read-only tags that a patch mentions (a patch may not touch them); `tags: null` touches none. */
export function readOnlyKeysTouched(tags: readonly Tag[], patch: TagsPatch): string[] {
  if (patch === null) return [];
  return tags.filter((t) => t.read_only && Object.hasOwn(patch, t.key)).map((t) => t.key);
}

/**
 * Applies a merge patch (RFC 7386 on the user tags): a string adds or updates, null removes,
 * `null` as the whole patch removes every user tag, unmentioned tags stay, read-only tags are
 * always kept. Order is kept; new tags are appended. Returns a new array.
 */
export function applyTagsPatch(tags: readonly Tag[], patch: TagsPatch): Tag[] {
  if (patch === null) return tags.filter((t) => t.read_only).map((t) => ({ ...t }));
  const out: Tag[] = [];
  const seen = new Set<string>();
  for (const tag of tags) {
    seen.add(tag.key);
    if (tag.read_only || !Object.hasOwn(patch, tag.key)) {
      out.push({ ...tag });
      continue;
    }
    const value = patch[tag.key];
    if (value !== null && value !== undefined) out.push({ key: tag.key, value, read_only: false });
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!seen.has(key) && value !== null) out.push({ key, value, read_only: false });
  }
  return out;
}

/** Whether two tag lists hold the same keys, values and read-only flags (order ignored). */
export function sameTags(a: readonly Tag[], b: readonly Tag[]): boolean {
  if (a.length !== b.length) return false;
  const byKey = new Map(a.map((t) => [t.key, t]));
  return b.every((t) => {
    const other = byKey.get(t.key);
    return other !== undefined && other.value === t.value && other.read_only === t.read_only;
  });
}

/** User tags as a plain map (read-only tags left out), as the mutation log shows them. */
export function userTagMap(tags: readonly Tag[]): Record<string, string> {
  return Object.fromEntries(tags.filter((t) => !t.read_only).map((t) => [t.key, t.value]));
}
