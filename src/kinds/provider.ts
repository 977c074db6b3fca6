import type { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import type { TaskScope } from '../api/tasks.js';
import { readTogether } from './read-together.js';
import { RESOURCE_KINDS, RESOURCE_TYPES, type CheckAttributes, type CheckType, type ResourceAttributes, type ResourceType } from './registry.js';
import type {
  Action,
  CheckOutcome,
  Observation,
  OwnedResource,
  OwnershipRules,
  PlannedFollowUp,
  ProviderPlan,
  ResourceChange,
  ResourcePlanner,
  ResourceRef,
} from '../plan/types.js';
import type { KindImporter } from './kind-list.js';
import type { OwnerSeal } from './owner-seal.js';

// What the planner reads of a kind is declared with the plan (src/plan/types.ts); kinds take it from here.
export type { CheckOutcome, Observation, Owner, OwnedRead, OwnedResource, PlanOptions, PlanProblem, ProviderPlan, ReadResult, ResourceRef } from '../plan/types.js';

/** What a provider may use for I/O: the API client, cancellation, task waiting and progress. */
export interface ProviderContext {
  api: ApiClient;
  /**
   * The same client, its every request going ahead of the requests waiting for a slot (see
   * urgentClient in context.ts): for the reads that confirm a change. One per context, made when
   * first asked for, so what is keyed by the client (readTogether's batches) is shared.
   */
  urgentApi(): ApiClient;
  /**
   * Runs `work` while watching the writes it sends through this context's client (see
   * watchWrites in context.ts), so the executor can tell an action that changed nothing on the
   * platform from one that may have.
   */
  watchWrites<T>(work: () => Promise<T>): { watch: WriteWatch; done: Promise<T> };
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
   * Set by a sweep of many stacks (`plan|drift --stacks`): the blocks found by ownership tags are
   * found in the list filtered by the ownership tag key only (`tag_key=edgeform-stack`, the list
   * prune reads), not by the stack's own name, so that every stack of one place shares one list
   * read (through the sweep's readOnce) and picks its own items by their tags. Absent: one stack,
   * its own filtered list.
   */
  sharedOwnerLists?: boolean;
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

/** What the writes sent within one watchWrites call came to. */
export interface WriteWatch {
  /** Writes (every method but GET) sent or refused. */
  writes: number;
  /**
   * Whether a write may have taken effect: one succeeded, or failed in a way that leaves its
   * outcome unknown (a connection lost after sending, 408, 500, 502, 504: see isUnknownOutcome).
   * False while every write provably never took effect (refused before it was sent, a 4xx, 429
   * or 503, or not sent at all because the run stopped).
   */
  mayHaveActed: boolean;
}

/** A cloud task that reached FINISHED, as far as callers of waitForTasks need it. */
export interface FinishedTask {
  id: string;
  /** The platform's task type, e.g. `resize_vm`: who held a lock, in kind if not in person. */
  task_type: string;
  state: string;
}

/**
 * What a kind whose creates carry ownership tags (`edgeform-stack`, `edgeform-address`) tells
 * the planner and the reader about them. `owner`, `place` and `claim` are pure; `list` reads.
 */
export interface Ownership<T extends ResourceType = ResourceType> extends OwnershipRules<T> {
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

/**
 * One resource kind's provider. `read` and `apply` do I/O through the context; `summarize`,
 * `plan` and `isProgressOf` are pure. Every method receives its own kind's attributes
 * (ResourceAttributes[T]) and its own kind's change (ResourceChange<T>), typed from the stack
 * through the planner and the executor. A kind never imports another kind; the planner and
 * the executor reach its provider only through this interface and the provider table
 * (providers.ts).
 */
export interface ResourceProvider<T extends ResourceType = ResourceType> extends ResourcePlanner<T> {
  kind: 'resource';
  type: T;
  /** Past-tense and progressive verbs for progress lines, e.g. ["Resizing", "Resized"]. */
  verbs: { update: [string, string]; delete: [string, string] };
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
    idField: RESOURCE_KINDS[change.type].idField,
    idOf: (state) => RESOURCE_KINDS[change.type].readable?.id?.read(state) ?? state[RESOURCE_KINDS[change.type].idField],
    // A block found by its identity (no id in it) is read with the others of its group when the
    // group read finds such blocks in its list (findsWithoutId), else alone.
    read: (ctx) => {
      const groupRead = provider.groupRead;
      if (groupRead === undefined) return provider.read(ctx, change.desired, ref);
      if ((change.desired as Record<string, unknown>)[RESOURCE_KINDS[change.type].idField] !== undefined) return readTogether(change.type, groupRead, ctx, change.desired, ref);
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
