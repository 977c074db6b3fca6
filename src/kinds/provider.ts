import type { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import type { TaskScope } from '../api/tasks.js';
import { readTogether } from './read-together.js';
import { RESOURCE_KINDS, RESOURCE_TYPES, type CheckAttributes, type CheckType, type ResourceAttributes, type ResourceType } from './registry.js';
import type { Action, CheckStatus, FieldChange, PlannedFollowUp, ResourceChange, SensitiveValue } from '../plan/types.js';
import type { KindImporter } from './kind-list.js';
import type { MarkVerdict, OwnerSeal } from './owner-seal.js';

/** What a provider may use for I/O: the API client, cancellation, task waiting and progress. */
export interface ProviderContext {
  api: ApiClient;
  /** Aborted to stop at once (second interrupt): requests and task waits end. */
  signal: AbortSignal;
  /**
   * Aborted on the first interrupt: finish the platform operation under way, start no other
   * (a multi-step action stops between steps).
   */
  stopping?: AbortSignal;
  /**
   * Waits for cloud tasks to reach FINISHED and resolves with them, in the order of `taskIds`
   * (throws TaskFailedError on ERROR). `signal` ends this wait early (rejecting with its
   * reason) without aborting the context: the executor cuts a lock wait short on the first
   * interrupt this way. `scope`, the project and region the tasks were started in, lets them be
   * polled with the other tasks of that place from the first poll. `timeoutMs` is the kind's
   * task timeout (ResourceProvider.taskTimeoutMs; --task-timeout overrides it). The wait holds
   * no request slot.
   */
  waitForTasks(taskIds: readonly string[], options?: { timeoutMs?: number; signal?: AbortSignal; scope?: TaskScope }): Promise<FinishedTask[]>;
  /** Progress notes for long actions ("upgrading to v1.30.6 [task 1f2e...]"). */
  progress(message: string, detail?: { taskIds?: string[] }): void;
  /**
   * Waits ms milliseconds (a provider's own waits: backoff before re-sending, re-reads while
   * the platform's reads lag); rejects with the signal's reason as soon as `signal` aborts.
   */
  sleep(ms: number): Promise<void>;
  /**
   * Set only while readStack reads a stack: a list page asked for more than once in that reading
   * (by a kind's grouped read and by its prune listing) is fetched once, by `list` (the kind's
   * list, KindList) and `key` (its scope and page), and every caller gets that one answer (or its
   * error). Used by every kind's list (kind-list.ts fetchListPage). Absent elsewhere, so apply's
   * reads and confirming reads always ask the platform.
   */
  readOnce?<R>(list: object, key: string, fetch: () => Promise<R>): Promise<R>;
  /**
   * Set only while readStack reads a stack: the stack's blocks, for a read that gathers what a
   * create plan checks (ResourceProvider.create.plan's facts): a name another block of the stack
   * creates in this apply counts as existing. Absent elsewhere.
   */
  stack?: StackView;
  /**
   * The value of a sensitive value's environment variable (see SensitiveValue), read when a
   * request that sends it is built; undefined when it is not set. Absent: no value is available.
   */
  sensitive?(name: string): string | undefined;
  /**
   * The run's owner seal (EDGEFORM_OWNER_KEY, see owner-seal.ts): reads and listings judge the
   * owner marks of what they find with it. Absent: unkeyed, nothing is judged.
   */
  seal?: OwnerSeal;
}

/** A cloud task that reached FINISHED, as far as callers of waitForTasks need it. */
export interface FinishedTask {
  id: string;
  /** The platform's task type, e.g. `resize_vm`: who held a lock, in kind if not in person. */
  task_type: string;
  state: string;
}

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

/**
 * What a kind whose creates carry ownership tags (`edgeform-stack`, `edgeform-address`) tells
 * the planner and the reader about them. `owner`, `place` and `claim` are pure; `list` reads.
 */
export interface Ownership<T extends ResourceType = ResourceType> {
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
  /**
   * Every resource carrying ownership tags (of any stack) in the places the `declared` blocks of
   * this kind name: one list per place, never a request per resource. `stack` is the rest of
   * the stack, for a listing that needs another kind's blocks (the reader always passes it).
   */
  list(ctx: ProviderContext, declared: readonly ResourceAttributes[T][], stack?: StackView): Promise<OwnedResource<T>[]>;
}

/**
 * What an ownership or prune listing sees of the stack besides the blocks of its own kind: the
 * stack's name and the attributes of its blocks of any kind (a DNS record set's prune listing
 * lists the zones the stack's `dns_zone` blocks declare).
 */
export interface StackView {
  name: string | null;
  blocks<K extends ResourceType>(type: K): readonly ResourceAttributes[K][];
  /**
   * The blocks of a kind with their addresses and what reading them found (undefined: not read,
   * or its read failed). Given only to a prune listing that runs after the reads
   * (PruneListing.afterReads): a CDN rule's listing needs the ids its resources were found by.
   */
  read?<K extends ResourceType>(type: K): readonly ReadBlock<K>[];
}

/** A block of the stack with its address and its read's observation (see StackView.read). */
export interface ReadBlock<K extends ResourceType = ResourceType> {
  address: string;
  attributes: ResourceAttributes[K];
  observation: Observation | undefined;
}

/**
 * A kind's prune listing (ResourceProvider.pruneListing): what it lists as the stack's, and
 * whether it needs the reads of the stack's blocks first (`afterReads`: it then gets
 * StackView.read), rather than running alongside them.
 */
export interface PruneListing<T extends ResourceType = ResourceType> extends Pick<Ownership<T>, 'list'> {
  afterReads?: boolean;
}

/**
 * Reading the resources of one group together: `key` says which resources one list serves (the
 * floating IPs of one project and region, the notification settings of one reseller), `read`
 * reads one group's members and answers for each of them, in their order. The provider decides
 * how: one request per resource, or list pages, whichever takes fewer requests.
 */
export interface GroupRead<T extends ResourceType = ResourceType> {
  /** The group a resource belongs to; resources with equal keys are read by one `read`. Pure. */
  key(desired: ResourceAttributes[T]): string;
  /**
   * Whether the group read also takes blocks that omit their platform id and finds them in the
   * group's list (one list read for every such block, not a find each); otherwise readStack reads
   * each of those alone.
   */
  findsWithoutId?: boolean;
  /**
   * Reads a group: per member, in order, what was observed or the error its read failed with (a
   * list request that failed fails every member it was for). Rejects only when aborted. `refs`
   * (each member's address and stack, in order) are needed when members omit their id
   * (findsWithoutId), which a member read alone is found by.
   */
  read(ctx: GroupReadContext, members: readonly ResourceAttributes[T][], refs?: readonly ResourceRef[]): Promise<MemberRead[]>;
}

/** The outcome of one member's read within a group read. */
export type MemberRead = { ok: true; observation: Observation } | { ok: false; error: unknown };

/**
 * The context of a group read: a provider context whose I/O runs within the stack read's
 * parallelism, plus the paging limits (tests make pages small so that small worlds page).
 */
export interface GroupReadContext extends ProviderContext {
  /**
   * Runs one unit of I/O (a list page, or a member's single read) in the stack read's pool of
   * `parallelism`; a group read waits on its units without holding a place in the pool. A listed
   * member's projection runs outside it (see defineListReads).
   */
  schedule<R>(work: () => Promise<R>): Promise<R>;
  /** Items asked for per list page; undefined = each endpoint's largest page. */
  pageSize?: number;
  /** List pages one list read follows at most before it fails (EDGEFORM_PAGING); undefined = MAX_LIST_PAGES. */
  maxPages?: number;
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

/**
 * One resource kind's provider. `read` and `apply` do I/O through the context; `summarize`,
 * `plan` and `isProgressOf` are pure. Every method receives its own kind's attributes
 * (ResourceAttributes[T]) and its own kind's change (ResourceChange<T>), typed from the stack
 * through the planner and the executor. A kind never imports another kind; the planner and
 * the executor reach its provider only through this interface and the provider table
 * (providers.ts).
 */
export interface ResourceProvider<T extends ResourceType = ResourceType> {
  kind: 'resource';
  type: T;
  /** Past-tense and progressive verbs for progress lines, e.g. ["Resizing", "Resized"]. */
  verbs: { update: [string, string]; delete: [string, string] };
  /** The attribute holding the platform id, where "does not exist" diagnostics point. */
  idField: keyof ResourceAttributes[T] & string;
  /**
   * The platform task type this provider's update starts (e.g. `resize_vm`), when it starts
   * tasks. A finished lock task of this type may be this very change, abandoned by an earlier
   * run whose answer reads lag, so the executor then waits the full confirm policy for it to
   * show before sending anything.
   */
  taskType?: string;
  /**
   * Whether carrying out a change of this action (create, update, replace, delete) starts
   * platform tasks and waits on them (a cloud create, resize or delete): apply runs at most
   * --max-tasks such actions at once, each holding a task slot from its first read to its end;
   * one that starts none (a DNS record set, a FastEdge app) takes no slot, so it never waits
   * behind tasks. Absent: every action counts as starting tasks.
   */
  startsTasks?(action: Action): boolean;
  /**
   * How long one of this kind's tasks may run before edgeform stops waiting (a Kubernetes
   * upgrade replaces every node: an hour); absent, the task poller's default (20 minutes). Lock
   * waits on a resource of this kind use it too. --task-timeout overrides it.
   */
  taskTimeoutMs?: number;
  /**
   * Reads the live resource; a 404 is `{exists: false}`, never an error. A block without its
   * platform id (a creatable kind) is found by its natural key or, through `ref`, by its
   * ownership tags: the observation then says `foundBy`, and more than one match throws
   * AmbiguousIdentityError naming every candidate.
   */
  read(ctx: ProviderContext, desired: ResourceAttributes[T], ref: ResourceRef): Promise<Observation>;
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
  /** Present for kinds whose creates carry ownership tags (see Ownership). */
  ownership?: Ownership<T>;
  /**
   * Present for kinds without ownership tags whose resources a stack owns by another rule (a
   * DNS record set in a zone that a `dns_zone` block of the stack declares, a CDN resource whose
   * description carries the stack's mark, a rule of a CDN resource the stack declares): with `prune: true`
   * what this lists as the stack's, and no block declares, is destroyed. Only prune uses it.
   */
  pruneListing?: PruneListing<T>;
  /**
   * Reads many resources of this kind at once, through the platform's list endpoint, when the
   * kind has one: the planner sees the same observations as from `read` (defineListReads builds
   * both from one projection of the platform's answer). Absent: every resource is read alone.
   */
  groupRead?: GroupRead<T>;
  /**
   * What destroying a resource in this state does before the delete itself, as the plan shows it
   * beside the action (`deactivates first`); undefined when the delete is all. Pure.
   */
  destroyNote?(state: Record<string, unknown>): string | undefined;
  /** The identifying and declared fields of an existing resource, as `before` shows them. Pure. */
  summarize(state: Record<string, unknown>): Record<string, unknown>;
  /**
   * Diffs desired against an existing resource's state: action, changes, plan errors. Pure.
   * `resendSensitive` (`--resend-sensitive ADDRESS`): the kind's sensitive values, which are
   * never compared, are sent again (an update even when nothing differs).
   */
  plan(desired: ResourceAttributes[T], state: Record<string, unknown>, options?: PlanOptions): ProviderPlan;
  /**
   * Carries out a planned change (create, update, replace or delete): starts the work and
   * waits on its tasks.
   * The executor has already waited for any lock, and re-reads afterwards until a fresh plan
   * of the resource is a no-op (or, for a delete, the resource is gone). Resolves once the
   * platform acknowledged the change (see ApplyResult); a read of its own after that point that
   * fails must not fail the change (leave the confirmation to the executor's re-read).
   */
  apply(ctx: ProviderContext, change: ResourceChange<T>): Promise<ApplyResult>;
  /**
   * Present for kinds that can be replaced: what is checked right before a replace's delete (its
   * create plan's payload, an instance's flavor in its region), so a create the platform would
   * refuse for a reason known now destroys nothing. Throws to stop the replace; sends nothing.
   * The executor runs a replace as two steps, `apply` of a delete then of a create.
   */
  beforeReplace?(ctx: ProviderContext, change: ResourceChange<T>): Promise<void>;
  /**
   * Whether a fresh plan of the resource is progress along the planned change rather than a
   * different change (a k8s cluster already one step along the planned upgrade path). Pure;
   * when absent, only a fresh plan with exactly the planned changes counts as the same.
   */
  isProgressOf?(change: ResourceChange<T>, fresh: ProviderPlan): boolean;
  /**
   * How `edgeform import` lists this kind and turns each live resource into a block pinned by
   * its platform id (the kind's import.ts, built on the same list fetcher as `groupRead`).
   */
  import?: KindImporter<T>;
  /** A step the kind runs for a block once the apply's changes are done (a CDN purge); see FollowUp. */
  followUp?: FollowUp<T>;
  /**
   * The shape of the `payload` its updates carry; absent for kinds that cannot be updated.
   * A saved plan is checked against it when read, and apply checks it again before sending.
   */
  payloadSchema?: z.ZodType;
}

/**
 * A step a kind runs for a block after the apply's changes (a CDN purge, which must see every
 * change to the resource, its rules and its origin group made first). The planner asks `plan`
 * (pure) and the change carries the answer (`follow_up`); the executor runs it after its walk,
 * one at a time in plan order, only when every change of the apply that the block depends on,
 * or that depends on it, ended applied or unchanged, else it is skipped (and, being recorded on
 * the platform only when it succeeds, planned again by the next apply).
 */
export interface FollowUp<T extends ResourceType = ResourceType> {
  /** The block's follow-up, or null when none is due; `action` is what the plan does to the block itself. Pure. */
  plan(desired: ResourceAttributes[T], observed: Observation, action: Action): PlannedFollowUp | null;
  /**
   * Runs it: `desired` with its references resolved, `state` the resource as this apply left it
   * (absent when its change sent nothing). Rejects when it did not finish (nothing recorded then).
   */
  run(ctx: ProviderContext, input: { desired: ResourceAttributes[T]; state?: Readonly<Record<string, unknown>>; followUp: PlannedFollowUp }): Promise<void>;
}

/**
 * What a provider's apply resolves with. Nothing: the platform acknowledged the change itself
 * (its tasks FINISHED, or the request was answered 2xx; a delete also when the resource was
 * already gone), so a read failing after this point leaves the change applied with a warning
 * that it could not be confirmed. `'unacknowledged'`: the outcome is known only from the
 * executor's re-read to come (after an ambiguous send, a task found holding the lock was waited
 * on, which may not be this change's), so a read that fails then fails the resource.
 * `{ observed }`: acknowledged, and the platform's answer to the write is the resource as the
 * platform now holds it (a synchronous API that answers with what it stored and reads from the
 * same store, as DNS does: no task, no read lag), projected as a read would be: the executor
 * takes it as its first confirming read, and re-reads only when it does not show the planned
 * result.
 */
export type ApplyResult = void | 'unacknowledged' | { observed: Observation };

/** The outcome of evaluating one check. */
export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  details?: Record<string, unknown>;
}

/** One check kind: a read-only assertion; never changes anything. */
export interface CheckProvider<T extends CheckType = CheckType> {
  kind: 'check';
  type: T;
  evaluate(ctx: ProviderContext, desired: CheckAttributes[T]): Promise<CheckOutcome>;
}

/** Resource and check providers by type. */
export interface ProviderRegistry {
  resources: { [T in ResourceType]: ResourceProvider<T> };
  checks: { [T in CheckType]: CheckProvider<T> };
}

/**
 * A change's own provider, bound to that change: each call hands the provider its own kind's
 * attributes and change (ResourceChange<T>), so the executor can walk a plan of many kinds
 * without ever seeing one kind's change as another's.
 */
export interface BoundProvider {
  taskType?: string;
  taskTimeoutMs?: number;
  /** The provider's id attribute. */
  idField: string;
  /**
   * The resource's id on the platform in a state, as apply prints a created one: what a
   * reference's `id` reads (KindSpec.readable: a record set's ZONE/NAME/TYPE, not its name alone),
   * else the id attribute's value.
   */
  idOf(state: Record<string, unknown>): unknown;
  /**
   * Reads the resource; for a kind that reads by group, together with the other reads of its
   * kind and group asked for in the same turn of the event loop (see readTogether).
   */
  read(ctx: ProviderContext): Promise<Observation>;
  summarize(state: Record<string, unknown>): Record<string, unknown>;
  /** A fresh plan of the change's desired attributes against this state (its sensitive values sent again when the change says so). Pure. */
  plan(state: Record<string, unknown>): ProviderPlan;
  /** Whether this state already shows the change's result: its plan, sensitive values not sent again, is a no-op. Pure. */
  isSettled(state: Record<string, unknown>): boolean;
  apply(ctx: ProviderContext): Promise<ApplyResult>;
  /** See ResourceProvider.beforeReplace (nothing when the kind declares none). */
  beforeReplace(ctx: ProviderContext): Promise<void>;
  /** See ResourceProvider.isProgressOf; false when the kind does not define it. */
  isProgressOf(fresh: ProviderPlan): boolean;
}

/** Binds a change to its kind's provider (see BoundProvider). */
export function bindProvider<K extends ResourceType>(providers: ProviderRegistry['resources'], change: ResourceChange<K>, stack: string | null, seal?: OwnerSeal): BoundProvider {
  const provider: ResourceProvider<K> = providers[change.type];
  const ref: ResourceRef = { address: change.address, stack, ...(seal ? { seal } : {}) };
  const claims = change.moved_from !== undefined || change.claim === true;
  return {
    taskType: provider.taskType,
    taskTimeoutMs: provider.taskTimeoutMs,
    idField: provider.idField,
    idOf: (state) => RESOURCE_KINDS[change.type].readable?.id?.read(state) ?? state[provider.idField],
    // A block found by its identity (no id in it) is read with the others of its group when the
    // group read finds such blocks in its list (findsWithoutId), else alone.
    read: (ctx) => {
      const groupRead = provider.groupRead;
      if (groupRead === undefined) return provider.read(ctx, change.desired, ref);
      if ((change.desired as Record<string, unknown>)[provider.idField] !== undefined) return readTogether(change.type, groupRead, ctx, change.desired, ref);
      return groupRead.findsWithoutId ? readTogether(change.type, groupRead, ctx, change.desired, ref, true) : provider.read(ctx, change.desired, ref);
    },
    summarize: (state) => provider.summarize(state),
    // A move (and any other claim) is planned as a claim (the ownership rewritten), and confirmed the same way.
    plan: (state) =>
      claims && provider.ownership
        ? provider.ownership.claim(change.desired, state, ref)
        : provider.plan(change.desired, state, { ...(change.resend_sensitive ? { resendSensitive: true } : {}), ref }),
    isSettled: (state) => {
      const again = claims && provider.ownership ? provider.ownership.claim(change.desired, state, ref) : provider.plan(change.desired, state, { ref });
      return again.action === 'no-op' && again.errors.length === 0;
    },
    apply: (ctx) => provider.apply(ctx, change),
    beforeReplace: async (ctx) => provider.beforeReplace?.(ctx, change),
    isProgressOf: (fresh) => provider.isProgressOf?.(change, fresh) === true,
  };
}

/** The payload schema of every resource type that can be updated (for reading saved plans). */
export function payloadSchemas(providers: ProviderRegistry['resources']): Partial<Record<ResourceType, z.ZodType>> {
  const schemas: Partial<Record<ResourceType, z.ZodType>> = {};
  for (const type of RESOURCE_TYPES) {
    const schema = providers[type].payloadSchema;
    if (schema) schemas[type] = schema;
  }
  return schemas;
}
