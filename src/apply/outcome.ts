import type { Action } from '../plan/types.js';

/** How one resource of an apply ended. */
export type ResourceStatus =
  /**
   * The change was made: confirmed by a re-read, or acknowledged by the platform (its tasks
   * FINISHED, the request answered 2xx) while the confirming read failed (then with a warning).
   */
  | 'applied'
  /** Nothing to do (no-op in the plan, or the platform already matched). */
  | 'unchanged'
  | 'failed'
  /**
   * Started, and stopped part-way by the first interrupt (a multi-step change, e.g. a k8s
   * upgrade between steps); what finished stays, and a later apply continues from there.
   */
  | 'stopped'
  /**
   * Not started because a resource it depends on failed or was skipped, or a check it depends
   * on did not pass (never a no-op: it has nothing to skip and is `unchanged`).
   */
  | 'skipped'
  /** Not started because the run was interrupted, or stopped by a run-fatal error, first. */
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
  /** Failure message (already redacted), for failed, stopped and aborted resources. */
  error?: string;
  /**
   * For failed resources: the platform refused the request for a reason applying again does not
   * change (see isRefusal in kinds/shared.ts): the stack has to change first.
   */
  refused?: true;
  /** For skipped resources: the failed resource that is the root cause. */
  skippedBecause?: string;
  /**
   * Things the user should know about a resource that did not fail, e.g. an applied change
   * whose confirming read failed (already redacted). Absent when there are none.
   */
  warnings?: string[];
  elapsedMs?: number;
  /** For a created or replaced resource: its platform id, as the confirming read found it (to pin it in the stack). */
  id?: string;
  /** For a created or replaced resource found without an id: the identity it is found by (`name "web"`). */
  identity?: string;
  /**
   * For a replace that did not end applied: its destroy was done (the old resource is gone) while
   * its create failed, was skipped or never started; the next plan creates it.
   */
  destroyed?: true;
}

/**
 * The error that stopped the whole run (the platform refused the API key, or is unavailable):
 * no action started after it, and the rest are `not-started`.
 */
export interface RunError {
  /** The stable EDGEFORM_* code, e.g. EDGEFORM_API_KEY_REFUSED, EDGEFORM_PLATFORM_UNAVAILABLE. */
  code: string;
  /** The message (already redacted). */
  message: string;
}

/**
 * How one follow-up (a change's `follow_up`: a CDN purge) ended: done, failed, skipped because a
 * change around its block did not succeed (`skippedBecause`), or not started (the run stopped).
 */
export interface FollowUpOutcome {
  address: string;
  /** The follow-up's step, as the plan names it: `purge`. */
  step: string;
  status: 'applied' | 'failed' | 'skipped' | 'not-started';
  /** Failure message (already redacted). */
  error?: string;
  /** For a skipped follow-up: the change that did not succeed. */
  skippedBecause?: string;
  elapsedMs?: number;
}

/** Everything an apply did, in plan order. */
export interface ApplyOutcome {
  resources: ResourceOutcome[];
  /** The follow-ups run after the changes, in plan order; absent when the plan had none. */
  followUps?: FollowUpOutcome[];
  interrupted: boolean;
  aborted: boolean;
  /** Set when a run-fatal error stopped the run. */
  runError?: RunError;
}

/** How many resources ended in each state that the summaries count (change_summary's fields). */
export interface OutcomeCounts {
  added: number;
  /** Updates applied. */
  changed: number;
  /** Deletes applied, and the destroys of replaces (also of those whose create was not made). */
  destroyed: number;
  failed: number;
  skipped: number;
  /** Stopped part-way by the first interrupt: interrupted, not failed. */
  stopped: number;
  /** Still running on the platform when the run was aborted (second interrupt). */
  aborted: number;
  /** Never started because of the interrupt or a run-fatal error (aborted ones are counted apart). */
  notStarted: number;
}

/** Counts for the summary line (`Apply complete! Resources: 0 added, 3 changed, 2 destroyed.`) and change_summary. */
export function countOutcome(outcome: ApplyOutcome): OutcomeCounts {
  const applied = outcome.resources.filter((r) => r.status === 'applied');
  const count = (status: ResourceStatus) => outcome.resources.filter((r) => r.status === status).length;
  return {
    added: applied.filter((r) => r.action === 'create' || r.action === 'replace').length,
    changed: applied.filter((r) => r.action === 'update').length,
    destroyed: applied.filter((r) => r.action === 'delete' || r.action === 'replace').length + outcome.resources.filter((r) => r.destroyed === true).length,
    failed: count('failed'),
    skipped: count('skipped'),
    stopped: count('stopped'),
    aborted: count('aborted'),
    notStarted: count('not-started'),
  };
}

/** True when every resource ended applied or unchanged, every follow-up was done, and no run-fatal error stopped the run. */
export function succeeded(outcome: ApplyOutcome): boolean {
  return (
    outcome.runError === undefined &&
    outcome.resources.every((r) => r.status === 'applied' || r.status === 'unchanged') &&
    (outcome.followUps ?? []).every((f) => f.status === 'applied')
  );
}
