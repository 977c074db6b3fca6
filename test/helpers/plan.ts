import { fingerprint } from '../../src/model/fingerprint.js';
import { PLAN_FORMAT_VERSION, type CheckResult, type Plan, type ResourceChange, type SavedChange } from '../../src/plan/types.js';

/**
 * A resource change with sensible defaults for renderer, executor and plan file tests. Its
 * `desired` holds only what the test gives (often nothing), not a kind's full attributes.
 */
export function change(partial: Partial<SavedChange> & Pick<SavedChange, 'address' | 'action'>): ResourceChange {
  const [type, name] = partial.address.split('.') as [ResourceChange['type'], string];
  const before = partial.before ?? {};
  const made: SavedChange = {
    type,
    name,
    desired: {},
    before,
    after: partial.action === 'delete' ? null : {},
    changes: [],
    fingerprint: fingerprint(before),
    lock_task_id: null,
    depends_on: [],
    warnings: [],
    notes: [],
    ...partial,
  };
  return made as ResourceChange;
}

/** A check result with defaults. */
export function check(partial: Partial<CheckResult> & Pick<CheckResult, 'address' | 'status' | 'message'>): CheckResult {
  const [type, name] = partial.address.split('.') as [CheckResult['type'], string];
  return { type, name, action: 'read', desired: {}, depends_on: [], ...partial };
}

/** A plan around the given changes and checks, with summary and flags computed as buildPlan does. */
export function plan(changes: ResourceChange[], checks: CheckResult[] = [], extra: Partial<Plan> = {}): Plan {
  const diagnostics = extra.diagnostics ?? [];
  const errored = diagnostics.some((d) => d.severity === 'error');
  const summary = {
    add: 0,
    change: changes.filter((c) => c.action === 'update').length,
    destroy: changes.filter((c) => c.action === 'delete').length,
    read: checks.length,
  };
  return {
    format_version: PLAN_FORMAT_VERSION,
    edgeform_version: '0.0.0-test',
    created_at: '2026-01-01T00:00:00.000Z',
    base_url: 'http://127.0.0.1:1',
    stack: { sources: ['stack.yaml'], digest: 'd'.repeat(64) },
    resource_changes: changes,
    checks,
    diagnostics,
    summary,
    applyable: !errored && summary.change + summary.destroy > 0,
    errored,
    ...extra,
  };
}
