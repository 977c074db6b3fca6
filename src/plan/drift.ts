import type { Diagnostic } from '../config/diagnostics.js';
import { OWNED_PRUNE_NOTE, OWNERSHIP_UNPROVEN, RESOURCE_MISSING } from './planner.js';
import type { CheckResult, Plan } from './types.js';

/** One declared field whose platform value differs from the stack's. */
export interface DriftedField {
  /** "flavor_id", "tags.env" */
  field: string;
  /** The stack's value; undefined when the stack wants the key gone. */
  stack?: unknown;
  /** The platform's value; undefined when the platform lacks the key. */
  platform?: unknown;
}

/** A resource that is not as the stack declares it. */
export interface DriftedResource {
  address: string;
  type: string;
  /**
   * changed: declared fields differ; missing: gone though `ensure: present`; reappeared: exists
   * though `ensure: absent`; unmanaged: carries the stack's ownership, no block declares it (prune
   * would destroy it); unproven: names the stack, but its owner mark does not prove it (forged,
   * copied, made with another key, or none while EDGEFORM_OWNER_KEY is set): never pruned.
   */
  kind: 'changed' | 'missing' | 'reappeared' | 'unmanaged' | 'unproven';
  fields: DriftedField[];
  message: string;
}

/** What a drift run found: a pure function of a plan. Only fields the stack declares count. */
export interface DriftReport {
  format_version: '1.0';
  created_at: string;
  base_url: string;
  stack: Plan['stack'];
  in_sync: boolean;
  drifted: DriftedResource[];
  failing_checks: Pick<CheckResult, 'address' | 'type' | 'status' | 'message'>[];
  /** Problems that stopped edgeform from knowing (read failures, unreachable API, ...). */
  errors: Diagnostic[];
  summary: { resources: number; checks: number; drifted: number; failing_checks: number; errors: number };
}

/** Turns a plan into a drift report: planned updates, deletes, missing resources and failing checks. */
export function buildDriftReport(plan: Plan): DriftReport {
  const drifted: DriftedResource[] = [];
  for (const change of plan.resource_changes) {
    if (change.action === 'update' || change.action === 'replace') {
      const fields = change.changes.map((c) => ({
        field: c.path.join('.'),
        ...(c.op === 'remove' ? {} : { stack: c.after }),
        ...(c.op === 'add' ? {} : { platform: c.before }),
      }));
      drifted.push({
        address: change.address,
        type: change.type,
        kind: 'changed',
        fields,
        message: `${fields.length} declared field${fields.length === 1 ? '' : 's'} differ${fields.length === 1 ? 's' : ''}`,
      });
    } else if (change.action === 'create') {
      drifted.push({ address: change.address, type: change.type, kind: 'missing', fields: [], message: 'does not exist on the platform; apply would create it' });
    } else if (change.action === 'delete' && change.pruned) {
      drifted.push({
        address: change.address,
        type: change.type,
        kind: 'unmanaged',
        fields: [],
        // The kind's own reason when it gave one (DNS: a record set of a zone the stack declares).
        message:
          change.notes?.[0] === undefined || change.notes[0] === OWNED_PRUNE_NOTE
            ? "carries this stack's ownership tags, but no block declares it (apply would prune it)"
            : `${change.notes[0]}; apply would prune it`,
      });
    } else if (change.action === 'delete') {
      drifted.push({ address: change.address, type: change.type, kind: 'reappeared', fields: [], message: 'exists on the platform, but the stack says ensure: absent' });
    }
  }
  for (const d of plan.diagnostics) {
    if (d.code === RESOURCE_MISSING && d.address) {
      drifted.push({
        address: d.address,
        type: d.address.split('.')[0]!,
        kind: 'missing',
        fields: [],
        message: 'no longer exists on the platform, but the stack says ensure: present',
      });
    }
  }
  for (const d of plan.diagnostics) {
    if (d.code === OWNERSHIP_UNPROVEN && d.address) drifted.push({ address: d.address, type: d.address.split('.')[0]!, kind: 'unproven', fields: [], message: d.summary });
  }
  const failing = plan.checks.filter((c) => c.status === 'fail').map(({ address, type, status, message }) => ({ address, type, status, message }));
  const errors = plan.diagnostics.filter((d) => d.severity === 'error' && d.code !== RESOURCE_MISSING && d.code !== OWNERSHIP_UNPROVEN);
  return {
    format_version: '1.0',
    created_at: plan.created_at,
    base_url: plan.base_url,
    stack: plan.stack,
    in_sync: drifted.length === 0 && failing.length === 0 && errors.length === 0,
    drifted,
    failing_checks: failing,
    errors,
    summary: {
      resources: plan.resource_changes.length + plan.diagnostics.filter((d) => d.code === RESOURCE_MISSING).length,
      checks: plan.checks.length,
      drifted: drifted.length,
      failing_checks: failing.length,
      errors: errors.length,
    },
  };
}
