import type { Diagnostic } from '../config/diagnostics.js';
import type { MarkVerdict, OwnerSeal } from '../kinds/owner-seal.js';
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

// What the planner needs of a kind: what reading found, and its provider's pure parts. The
// provider interface (src/kinds/provider.ts) extends them with the parts that do I/O.

/**
 * What a read found. `state` is the provider's own plain-JSON projection of the platform's
 * answer (enough to diff and to re-plan); `lockTaskId` is the platform's lock (`task_id`).
 */
export type Observation =
  | {
      exists: false;
      /** What the read learnt besides the absence that a create is planned from (the region's flavors an instance may be created with). */
      facts?: Readonly<Record<string, unknown>>;
    }
  | {
      exists: true;
      state: Record<string, unknown>;
      lockTaskId?: string | null;
      foundBy?: string;
      /** What a replacement's create plan is checked against, gathered only when the block would be replaced (see withCreateFacts). */
      facts?: Readonly<Record<string, unknown>>;
    };

/**
 * Who a block is in its stack: its address and the stack's `name:` (null when it has none).
 * A block without its platform id is found through them where its kind uses ownership tags
 * (`edgeform-stack`, `edgeform-address`), and a create writes them.
 */
export interface ResourceRef {
  address: string;
  stack: string | null;
  /** The run's owner seal: a create or a claim marks what it writes with it (see owner-seal.ts). Absent: unkeyed, no mark. */
  seal?: OwnerSeal;
  /** Whether the stack has `prune: true`: a container's pruning owner (a DNS zone's, see Ownership.scope) is written only then. */
  prune?: boolean;
}

/**
 * Whose a resource is by its ownership tags: the stack (`edgeform-stack`) and the address within
 * it (`edgeform-address`), or a kind's own owner record (a DNS zone's), and what its owner mark is
 * worth (`mark`: judged with the run's seal; absent when unkeyed).
 */
export interface Owner {
  stack: string;
  address: string;
  mark?: MarkVerdict;
}

/**
 * A resource that carries ownership tags, found by an ownership listing: the stack and address
 * its tags name, the place it is in (see Ownership.place), the attributes that act on it by id
 * (`ensure: absent`, for prune), and what was read.
 */
export interface OwnedResource<T extends ResourceType = ResourceType> extends Owner {
  place: string;
  desired: ResourceAttributes[T];
  observation: Observation & { exists: true };
  /** Why prune counts it as the stack's, when not by its ownership tags (a prune listing's own rule). */
  pruneReason?: string;
  /**
   * Why prune must leave it although it names the stack: its owner mark does not prove it (see
   * owner-seal.ts: no mark, or one that does not verify, while EDGEFORM_OWNER_KEY is set). The
   * plan warns and drift reports it. Absent: it is proven (or the run is unkeyed).
   */
  unproven?: string;
  /**
   * Blocks whose destroy must wait for this one's (a CDN origin group the pruned resource uses,
   * which the stack deletes): the planner writes them in the change's depends_on, which apply
   * reverses between two deletes. Absent: none.
   */
  dependsOn?: string[];
}

/** One kind's ownership listing (see Ownership.list): what it found, or why it failed. */
export type OwnedRead = { type: ResourceType; ok: true; resources: OwnedResource[] } | { type: ResourceType; ok: false; error: { summary: string } };

/** The result of reading one resource: what was observed, or why the read failed. */
export type ReadResult = { ok: true; observation: Observation } | { ok: false; error: { summary: string; detail?: string } };

/** A problem with the desired state found while planning; `field` points the diagnostic at it. */
export interface PlanProblem {
  field?: string;
  summary: string;
  detail?: string;
}

/**
 * What a provider's pure diff decides for a resource that exists and should exist (the
 * planner itself handles `ensure: absent` and resources that are gone).
 */
export interface ProviderPlan {
  /**
   * `replace`: a field that cannot change in place differs (its FieldChange says
   * `forces_replacement`); apply destroys the resource and creates it again. `create`: only from
   * a create plan (ResourceProvider.create).
   */
  action: 'no-op' | 'update' | 'replace' | 'create';
  /** Observed values of the declared fields. */
  before: Record<string, unknown>;
  /** Values after apply. */
  after: Record<string, unknown>;
  changes: FieldChange[];
  unchanged_elements?: Record<string, number>;
  payload?: Record<string, unknown>;
  /** Where `payload` holds a sensitive value's `${env:NAME}` reference (see SensitiveValue); absent when none. */
  sensitive?: SensitiveValue[];
  errors: PlanProblem[];
  warnings: string[];
  notes: string[];
}

/** How a resource is planned besides its desired attributes and state (see ResourceProvider.plan). */
export interface PlanOptions {
  /** Send the block's sensitive values again although they cannot be compared (rotating a key). */
  resendSensitive?: boolean;
  /**
   * The block's address and stack, with the run's owner seal: a kind whose resources carry an
   * owner mark outside ownership tags (a CDN resource's description) re-makes a mark of this
   * stack made with the previous key, or none, and refuses one that does not verify.
   */
  ref?: ResourceRef;
}

/** The outcome of evaluating one check. */
export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * What a kind whose creates carry ownership tags (`edgeform-stack`, `edgeform-address`) tells
 * the planner about them: all pure (the provider's Ownership adds the listing that reads them).
 */
export interface OwnershipRules<T extends ResourceType = ResourceType> {
  /**
   * The owner an observed state names (its ownership tags, or the kind's owner record), or null
   * when it names none; with a keyed seal, its mark judged (Owner.mark). `desired` says where the
   * resource is (a mark binds its place). Pure.
   */
  owner(state: Record<string, unknown>, desired: ResourceAttributes[T], seal?: OwnerSeal): Owner | null;
  /** Where a resource of these attributes lives (a project and region); one listing covers one place. Pure. */
  place(desired: ResourceAttributes[T]): string;
  /**
   * The plan of `desired` against `state` that also writes `ref`'s ownership over what the state
   * carries (a move: `moved_from`, `renamed_from`; a zone first claimed by a pruning stack): the
   * provider's own diff, turned into an update that rewrites the tags (or the owner record) when
   * they name another stack or address or none, or when their mark is not valid under `ref`'s
   * keyed seal (a mark made with the previous key, or none). Pure.
   */
  claim(desired: ResourceAttributes[T], state: Record<string, unknown>, ref: ResourceRef): ProviderPlan;
  /**
   * What the owner stands for. `resource` (default): the ownership tags make the resource the
   * stack's own, which prune destroys once no block declares it. `prune`: a shared container's
   * pruning owner (a DNS zone: the one stack that prunes its record sets); only a stack with
   * `prune: true` writes it (when it first plans the zone) or is refused by another's, and a
   * container is never pruned itself.
   */
  scope?: 'resource' | 'prune';
  /** How plans name the owner record: `ownership tags` (default), `owner record (meta.edgeform)`. */
  noun?: string;
}

/**
 * The pure parts of one kind's provider, which is all the planner needs of it: the provider
 * interface (ResourceProvider in src/kinds/provider.ts) extends it with the parts that do I/O.
 */
/** Something on the platform that uses a resource, so that the platform refuses to delete the resource while it exists. */
export interface DestroyBlocker {
  /** Its platform id, as the destroy of its own block would name it. */
  id: string;
  /** How a message names it, e.g. `subnet 2446… (web-sub)`. */
  label: string;
}

export interface ResourcePlanner<T extends ResourceType = ResourceType> {
  /**
   * Present when edgeform can create this kind (see KindSpec.create): how a block whose
   * resource does not exist is created. Apply's `create` and `replace` send `payload`.
   */
  create?: {
    /**
     * The create of `desired`: `after` (platform-decided fields such as the id are
     * KNOWN_AFTER_APPLY), `changes` (each declared field added), the payload apply sends
     * (ownership tags included, from `ref`), and plan errors, some of them from `facts` (what
     * the read of the absent resource learnt, see Observation), when it was read. Pure.
     */
    plan(desired: ResourceAttributes[T], ref: ResourceRef, facts?: Readonly<Record<string, unknown>>): ProviderPlan;
    /** How a block without an id is found again, e.g. `name "web"`; null when it names its id. Pure. */
    identity(desired: ResourceAttributes[T], ref: ResourceRef): string | null;
  };
  /**
   * What destroying a resource in this state does before the delete itself, as the plan shows it
   * beside the action (`deactivates first`); undefined when the delete is all. Pure.
   */
  destroyNote?(state: Record<string, unknown>): string | undefined;
  /**
   * What the platform refuses to delete a resource in this state for while it exists (a network's
   * subnets, a volume's instances), each by its platform id and a label for messages: a destroy
   * is refused at plan unless the same plan destroys them too (see destroy-blockers.ts). Pure.
   */
  destroyBlockers?(state: Record<string, unknown>): DestroyBlocker[];
  /**
   * The platform ids of what a resource in this state uses that the platform refuses to delete
   * while it does (a listener's secrets): the other side of destroyBlockers, for what only the
   * user knows of (a secret's answer does not list its listeners). Pure.
   */
  usedIds?(state: Record<string, unknown>): string[];
  /** The identifying and declared fields of an existing resource, as `before` shows them. Pure. */
  summarize(state: Record<string, unknown>): Record<string, unknown>;
  /**
   * Diffs desired against an existing resource's state: action, changes, plan errors. Pure.
   * `resendSensitive` (`--resend-sensitive ADDRESS`): the kind's sensitive values, which are
   * never compared, are sent again (an update even when nothing differs).
   */
  plan(desired: ResourceAttributes[T], state: Record<string, unknown>, options?: PlanOptions): ProviderPlan;
  /** Present for kinds whose creates carry ownership tags (see OwnershipRules). */
  ownership?: OwnershipRules<T>;
  /** A step the kind plans for a block after the apply's changes (a CDN purge): `plan` is pure. */
  followUp?: { plan(desired: ResourceAttributes[T], observed: Observation, action: Action): PlannedFollowUp | null };
}
