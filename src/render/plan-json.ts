import type { Plan } from '../plan/types.js';
import { toDiagnosticsJson } from './diagnostics.js';

/**
 * The machine-readable plan (documented in docs/formats.md), modelled on
 * `terraform show -json`: versioned, with `resource_changes[].change.actions`, checks,
 * diagnostics, `applyable` and `errored`. Field names never change within a format version.
 */
export function toPlanJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: plan.format_version,
    edgeform_version: plan.edgeform_version,
    created_at: plan.created_at,
    base_url: plan.base_url,
    stack: plan.stack,
    resource_changes: plan.resource_changes.map((c) => ({
      address: c.address,
      type: c.type,
      name: c.name,
      depends_on: c.depends_on,
      change: {
        actions: [c.action],
        before: c.before,
        after: c.after,
        changes: c.changes,
        unchanged_elements: c.unchanged_elements ?? {},
      },
      lock_task_id: c.lock_task_id,
      warnings: c.warnings,
      notes: c.notes,
      ...(c.identity === undefined ? {} : { identity: c.identity }),
      ...(c.pruned ? { pruned: true } : {}),
    })),
    checks: plan.checks.map((c) => ({ address: c.address, type: c.type, name: c.name, status: c.status, message: c.message, details: c.details ?? {} })),
    diagnostics: toDiagnosticsJson(plan.diagnostics).diagnostics,
    summary: plan.summary,
    applyable: plan.applyable,
    errored: plan.errored,
  };
}
