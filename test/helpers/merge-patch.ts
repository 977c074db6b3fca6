/**
 * RFC 7386 JSON Merge Patch, the reference the planner's tag patches are checked against
 * (test/unit/plan/merge-patch.test.ts runs the RFC's own examples through it).
 */
/** A JSON value as RFC 7386 sees it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * Applies an RFC 7386 JSON Merge Patch to a target and returns the result (inputs untouched):
 * a non-object patch replaces the target; in an object patch, null removes a member and any
 * other value is merged recursively.
 */
export function applyMergePatch(target: Json | undefined, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: { [key: string]: Json } = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
