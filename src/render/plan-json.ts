import { toPlanDocument } from '../plan/saved-plan.js';
import type { Plan } from '../plan/types.js';

/**
 * The machine-readable plan (documented in docs/formats.md): the plan document, the very shape
 * and version `plan --out` writes (toPlanDocument), so a tool reads both the same way.
 * Field names never change within a format version.
 */
export function toPlanJson(plan: Plan): Record<string, unknown> {
  return toPlanDocument(plan);
}
