import type { Action } from '../plan/types.js';

/** How one resource of an apply ended. */
export type ResourceStatus =
  /** The change was made and confirmed by a re-read. */
  | 'applied'
  /** Nothing to do (no-op in the plan, or the platform already matched). */
  | 'unchanged'
  | 'failed'
  /** Not started because a resource it depends on failed or was skipped. */
  | 'skipped'
  /** Not started because the run was interrupted first. */
  | 'not-started'
  /** Was running when the run was aborted; its platform tasks may still be running. */
  | 'aborted';

/** The outcome of one resource, as the summary and the JSON events report it. */
export interface ResourceOutcome {
  address: string;
  action: Action;
  status: ResourceStatus;
  /** Platform tasks this resource started or waited on. */
  taskIds: string[];
  /** Failure message (already redacted), for failed and aborted resources. */
  error?: string;
  /** For skipped resources: the failed resource that is the root cause. */
  skippedBecause?: string;
  elapsedMs?: number;
}

/** Everything an apply did, in plan order. */
export interface ApplyOutcome {
  resources: ResourceOutcome[];
  interrupted: boolean;
  aborted: boolean;
}

/** Counts for the summary line (`Apply complete! Resources: 0 added, 3 changed, 2 destroyed.`). */
export function countOutcome(outcome: ApplyOutcome): { added: number; changed: number; destroyed: number; failed: number; skipped: number; notStarted: number } {
  const applied = outcome.resources.filter((r) => r.status === 'applied');
  return {
    added: 0,
    changed: applied.filter((r) => r.action === 'update').length,
    destroyed: applied.filter((r) => r.action === 'delete').length,
    failed: outcome.resources.filter((r) => r.status === 'failed').length,
    skipped: outcome.resources.filter((r) => r.status === 'skipped').length,
    notStarted: outcome.resources.filter((r) => r.status === 'not-started' || r.status === 'aborted').length,
  };
}

/** True when every resource ended applied or unchanged. */
export function succeeded(outcome: ApplyOutcome): boolean {
  return outcome.resources.every((r) => r.status === 'applied' || r.status === 'unchanged');
}
