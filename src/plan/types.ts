import type { Diagnostic } from '../config/diagnostics.js';
import type { CheckType, ResourceAttributes, ResourceType } from '../kinds/registry.js';
import type { PlanCost } from './cost.js';

/**
 * Version of the plan document: what `plan --out` writes and `plan --format json` prints (one
 * shape, see toPlanDocument); bumped on any incompatible change. 2.0: `plan --format json`
 * prints the plan file's shape (1.0 printed Terraform's `change.actions` shape). 2.1: a change
 * may carry `references` and `after_unknown` (values known only after apply). 2.2: `sensitive` and
 * `resend_sensitive`. 2.3: a change may carry `follow_up` (a step run after the apply's changes:
 * a CDN purge). 2.4: `replaced_because` (a replace its references force); an optional `cost` (plan --cost)
 * is additive.
 */
export const PLAN_FORMAT_VERSION = '2.4';

/**
 * What apply will do to one resource. `create`: nothing matched the block's identity;
 * `replace` (`-/+`): a field that cannot change in place differs, so the resource is destroyed
 * and created again; `read` is the action of checks.
 */
export type Action = 'no-op' | 'create' | 'update' | 'replace' | 'delete' | 'read';

/** The value a plan shows for what only the platform decides on create (ids). */
export const KNOWN_AFTER_APPLY = '(known after apply)';

/**
 * What plans show (and compare) in place of a sensitive value (KindSpec.sensitive): the stack
 * holds only its `${env:NAME}` reference, and the platform never shows it.
 */
export const SENSITIVE = '(sensitive)';

/** One changed leaf of a resource, as the renderers show it. */
export interface FieldChange {
  /** Attribute path from the resource root, e.g. ["flavor_id"] or ["tags", "env"]. */
  path: string[];
  op: 'add' | 'update' | 'remove';
  /** The platform's value (absent for add). */
  before?: unknown;
  /** The stack's value (absent for remove). */
  after?: unknown;
  /** The field cannot change in place: this change forces the resource's replacement (`-/+`). */
  forces_replacement?: boolean;
}

/**
 * A reference of a block whose value is known only after apply (its block is created or
 * replaced, or the field it reads changes): its place in `desired` holds KNOWN_AFTER_APPLY
 * until the executor resolves it, once every block it reads is done.
 */
export interface PendingReference {
  /** Where in `desired`: ["env", "ORIGIN_IP"]. */
  path: (string | number)[];
  /** The reference as written: `${cloud_floating_ip.edge.floating_ip_address}`, or a string holding references. */
  template: string;
  /** A whole reference to a number or boolean in a string field: its value is written as text. */
  stringify?: true;
}

/**
 * A sensitive value a change sends (KindSpec.sensitive): its place in `payload` holds the
 * `${env:NAME}` reference, and apply puts the variable's value there when it sends the request.
 * Neither the plan nor the plan file ever holds the value.
 */
export interface SensitiveValue {
  /** Where in `payload`: ["body", "sources", 1, "config", "s3_secret_access_key"]. */
  path: (string | number)[];
  /** The environment variable holding the value. */
  env: string;
}

/**
 * A step a kind runs for a block once the apply's changes are done (ResourceProvider.followUp: a
 * CDN purge), as the plan shows it: `~ purge cdn_resource.site: /index.html (when: "41" → "42")`.
 */
export interface PlannedFollowUp {
  /** What it does, as the plan names it: `purge`. */
  step: string;
  /** What it acts on, one line: `/index.html, /assets/*`. */
  summary: string;
  /** Why it is due: the block's values against those recorded on the platform (`when`). */
  changes: FieldChange[];
  /** Human notes shown under it (how many requests, how long). */
  notes: string[];
  /** The kind's instructions for apply (checked by the kind before anything is sent). */
  payload: Record<string, unknown>;
}

/** What a planned change records, whatever its kind (see ResourceChange). */
export interface ChangeFields {
  address: string;
  name: string;
  action: Action;
  /** Observed values of the declared fields; null when the resource does not exist. */
  before: Record<string, unknown> | null;
  /** Values after apply; null when the resource will be deleted or stays absent. */
  after: Record<string, unknown> | null;
  changes: FieldChange[];
  /** Provider-specific instructions for apply (the tags merge patch, the upgrade path, ...). */
  payload?: Record<string, unknown>;
  /** sha256 of `before`: a saved plan is stale when a re-read gives another fingerprint. */
  fingerprint: string;
  /** The platform task holding the resource's lock when it was read; apply waits for it first. */
  lock_task_id: string | null;
  depends_on: string[];
  /** Per map field (e.g. tags), how many entries are unchanged and hidden from the diff. */
  unchanged_elements?: Record<string, number>;
  warnings: string[];
  /** Human notes shown under the resource (e.g. "upgrade path: v1.29.8 -> v1.30.6 -> v1.31.3"). */
  notes: string[];
  /**
   * How a block without its platform id finds its resource (`name "web"`, `ownership tags of
   * stack "prod"`): the identity that matched, or the one a create will be found by later.
   */
  identity?: string;
  /** Planned because prune found this stack's ownership mark on a resource no block declares. */
  pruned?: boolean;
  /** What a destroy does before the delete itself (`deactivates first`: a CDN resource), shown beside its action. */
  destroy_note?: string;
  /**
   * A move (`moved_from`, `renamed_from`): the resource carried these ownership tags,
   * `OLDSTACK/TYPE.NAME`, and the update rewrites them to this block's; nothing is created or destroyed.
   */
  moved_from?: string;
  /**
   * Planned as the kind's ownership claim (Ownership.claim) without a move: an owner mark re-made
   * with the current key, a DNS zone's pruning owner written by a stack with prune: true (also
   * on a create, which apply may plan again once its references are known). Apply confirms it
   * the same way. In memory only, never in a plan file: apply of a saved plan runs the fresh
   * plan, which says it again (its payload, compared with the file's, says what is written).
   */
  claim?: true;
  /** The sensitive values the payload sends (see SensitiveValue); absent when none. */
  sensitive?: SensitiveValue[];
  /** Planned with `--resend-sensitive`: the sensitive values are sent although nothing else differs. */
  resend_sensitive?: true;
  /**
   * A replace forced by replacements this block's references read (Terraform's replacement
   * semantics): the replaced blocks whose values reach a field that cannot change in place, in
   * plan order. Apply destroys this resource before them and creates it after them.
   */
  replaced_because?: string[];
  /** The block's references not known until apply (see PendingReference); absent when none. */
  references?: PendingReference[];
  /**
   * Terraform's `after_unknown`: `after`'s structure with `true` at each value known only after
   * apply (platform ids, pending references); present only on a change with pending references.
   */
  after_unknown?: Record<string, unknown>;
  /**
   * The block's follow-up (see PlannedFollowUp), run after every change of the apply that the
   * block depends on or that depends on it succeeded; absent when none is due. A no-op may carry one.
   */
  follow_up?: PlannedFollowUp;
}

/**
 * The planned change of one resource: a plain JSON value, saved verbatim in plan files, so
 * apply executes exactly what was shown. It is discriminated by `type`, and `desired` holds that
 * kind's declared attributes (ids included): what apply re-reads and acts on. `ResourceChange<T>`
 * is a change of kind T; that is the change a kind's provider receives, so its attributes stay
 * typed from the stack through the planner and the executor to the provider.
 */
export type ResourceChange<K extends ResourceType = ResourceType> = {
  [T in K]: ChangeFields & { type: T; desired: ResourceAttributes[T] };
}[K];

/**
 * A planned change as a plan file holds it: `desired` is whatever the file says (it is never
 * checked against the kind's schema, because apply never acts on it: it plans again from the
 * stack and executes that fresh plan only when it equals the saved one, see comparePlans).
 */
export type SavedChange = ChangeFields & { type: ResourceType; desired: Record<string, unknown> };

export type CheckStatus = 'pass' | 'fail' | 'error';

/** The outcome of one read-only check. */
export interface CheckResult {
  address: string;
  type: CheckType;
  name: string;
  action: 'read';
  status: CheckStatus;
  /** One line saying what was found, e.g. "missing languages: ger" or "3 tasks match (max 0)". */
  message: string;
  details?: Record<string, unknown>;
  /** The check's attributes, so a saved plan's gates can be evaluated again before apply. */
  desired: Record<string, unknown>;
  depends_on: string[];
}

/** `a is replaced`, `a and b are replaced`: what a change's `replaced_because` says. */
export function describeReplaced(addresses: readonly string[]): string {
  if (addresses.length === 1) return `${addresses[0]!} is replaced`;
  return `${addresses.slice(0, -1).join(', ')} and ${addresses.at(-1)!} are replaced`;
}

/** Counts of the planned actions, as the summary line prints them. */
export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  read: number;
}

/**
 * A plan is a value: what apply will do, made by a pure function of (stack, observed state).
 * `applyable` is true when there is something to do and nothing errored.
 */
export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  edgeform_version: string;
  created_at: string;
  /** The API origin the plan was read from; apply refuses a plan made for another one. */
  base_url: string;
  /** The stack's files, digest, and `name` (what its ownership marks say; null when it has none). */
  stack: { sources: string[]; digest: string; name?: string | null };
  /** Resources in dependency order. */
  resource_changes: ResourceChange[];
  checks: CheckResult[];
  /** Plan errors and warnings: failed reads, unreachable targets, read-only tag keys, ... */
  diagnostics: Diagnostic[];
  summary: PlanSummary;
  applyable: boolean;
  errored: boolean;
  /** `plan --cost`: the monthly prices of the changes (src/plan/cost.ts); absent without it. */
  cost?: PlanCost;
}

/** A plan as read back from a plan file: its changes are SavedChange values. */
export type SavedPlan = Omit<Plan, 'resource_changes'> & { resource_changes: SavedChange[] };
