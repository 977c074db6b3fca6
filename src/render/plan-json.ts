import { toPlanDocument } from '../plan/saved-plan.js';
import { PLAN_FORMAT_VERSION, type Plan } from '../plan/types.js';
import type { RunFailure } from './view.js';

/**
 * The machine-readable plan (documented in docs/formats.md): the plan document, the very shape
 * and version `plan --out` writes (toPlanDocument), so a tool reads both the same way.
 * Field names never change within a format version.
 */
export function toPlanJson(plan: Plan): Record<string, unknown> {
  return toPlanDocument(plan);
}

/**
 * The JSON document of a plan that could not be made (documented in docs/formats.md): the plan
 * document's version and its `errored` / `applyable` flags, so a tool that checks them stops
 * here, with `complete: false`, `errors` (each its stable code and message) and the exit code
 * with its meaning, and `path`, the stack as given (a merge of many stacks' results knows whose
 * failure it is). Never a plan file: nothing in it can be applied.
 */
export function toPlanFailureJson(failure: RunFailure, path: string): Record<string, unknown> {
  return {
    format_version: PLAN_FORMAT_VERSION,
    complete: false,
    errored: true,
    applyable: false,
    base_url: failure.baseUrl,
    path,
    errors: [{ code: failure.code, message: failure.message }],
    exit_code: failure.exitCode,
    exit_meaning: failure.exitCode === 130 ? 'interrupted: no plan was made' : 'error: no plan was made',
  };
}
