import { z } from 'zod';
import { ConflictError } from '../api/errors.js';
import { apiPath } from '../api/path.js';
import { canonicalJson } from '../model/fingerprint.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../plan/types.js';
import { onlyMatch } from './create.js';
import { fetchListPage, listAll, type CloudScope, type KindList } from './kind-list.js';
import { defineListReads } from './list-read.js';
import type { ApplyResult, GroupRead, Observation, OwnedResource, PlanProblem, ProviderContext, ResourceProvider, StackView } from './provider.js';
import { RESOURCE_KINDS, type ResourceAttributes } from './registry.js';
import { readOrGone } from './shared.js';

/**
 * What the load balancer kinds share (cloud_load_balancer, cloud_lb_listener, cloud_lb_pool):
 * the platform's one lock per balancer. Every write to a balancer or to one of its listeners,
 * pools, members or monitors is a task on the balancer, and the balancer refuses any other write
 * while one runs (409, `PENDING_UPDATE`). So the writes of one balancer go one at a time
 * (`onBalancer`: a queue per balancer and run, each write waiting for the one before it, its task
 * included), and a 409 answered while the balancer shows a running task (another tool's, or one
 * this run could not see) waits for that task and sends the request again: the 409 proves it was
 * refused, so sending it again is safe. Writes to other balancers proceed in parallel.
 */

/** How many times a write refused by a busy balancer is sent again (each after its task ended). */
export const MAX_BUSY_WAITS = 5;

/** The fields of a balancer answer the busy wait reads: its lock and status. */
const balancerLock = z.looseObject({ provisioning_status: z.string().nullish(), task_id: z.string().nullish() });

/** A balancer's item path. */
export const balancerPath = (p: number, r: number, id: string) => apiPath`/cloud/v1/loadbalancers/${p}/${r}/${id}`;

/** The writes under way per balancer, per run (the run's API client). */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

/** Whether a balancer id is known (a reference to a balancer still to be created is not, at plan). */
export function balancerKnown(id: string | undefined): id is string {
  return typeof id === 'string' && id !== '' && id !== KNOWN_AFTER_APPLY && !id.includes('${');
}

/**
 * Runs `write` (a change of the balancer `lbId` or of one of its children) after every write of
 * that balancer queued before it in this run has ended, and sends it again while the balancer
 * answers 409 with a task running (waiting for that task first; at most MAX_BUSY_WAITS times).
 * A 409 without a running task (two listeners on one port) is the write's own failure.
 */
export async function onBalancer(ctx: ProviderContext, scope: CloudScope, lbId: string | undefined, write: () => Promise<ApplyResult>): Promise<ApplyResult> {
  if (!balancerKnown(lbId)) return write();
  let perRun = queues.get(ctx.api);
  if (!perRun) queues.set(ctx.api, (perRun = new Map()));
  const before = perRun.get(lbId) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => writeWhenFree(ctx, scope, lbId, write));
  const settled = mine.catch(() => undefined);
  perRun.set(lbId, settled);
  void settled.then(() => {
    if (perRun.get(lbId) === settled) perRun.delete(lbId);
  });
  return mine;
}

/**
 * Sends `write`, waiting out a busy balancer (see onBalancer). A 409 after which the balancer
 * shows no task may be one that ended in between: the write is sent once more, and a second such
 * 409 is the write's own failure.
 */
async function writeWhenFree(ctx: ProviderContext, scope: CloudScope, lbId: string, write: () => Promise<ApplyResult>): Promise<ApplyResult> {
  let sentAgainWhenFree = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= MAX_BUSY_WAITS) throw error;
      const lock = await busyTask(ctx, scope, lbId);
      if (lock === null) {
        if (sentAgainWhenFree) throw error;
        sentAgainWhenFree = true;
        continue;
      }
      ctx.progress(`load balancer ${lbId} is busy with task ${lock}: waiting for it, then sending again`, { taskIds: [lock] });
      await ctx.waitForTasks([lock], { scope: { projectId: scope.project_id, regionId: scope.region_id } });
    }
  }
}

/** The task a balancer is busy with (its `task_id` while PENDING_*), or null. */
async function busyTask(ctx: ProviderContext, scope: CloudScope, lbId: string): Promise<string | null> {
  const lb = (await ctx.api.get(balancerPath(scope.project_id, scope.region_id, lbId), { schema: balancerLock, signal: ctx.signal })).body;
  return lb.task_id && (lb.provisioning_status ?? '').startsWith('PENDING_') ? lb.task_id : null;
}

/**
 * The balancers a stack owns for prune of their children: each `cloud_load_balancer` block the
 * stack declares (not `ensure: absent`, whose children go with it) whose read found it, by id,
 * with the block's address and place. Listeners and pools carry no tags: only those of these
 * balancers are ever pruned.
 */
export function ownedBalancers(stack: StackView | undefined): Map<string, { address: string; scope: CloudScope }> {
  const owned = new Map<string, { address: string; scope: CloudScope }>();
  if (stack?.read === undefined) return owned;
  for (const block of stack.read('cloud_load_balancer')) {
    if (block.attributes.ensure === 'absent' || block.observation?.exists !== true) continue;
    const id = block.observation.state.load_balancer_id as string;
    if (!owned.has(id)) owned.set(id, { address: block.address, scope: { project_id: block.attributes.project_id, region_id: block.attributes.region_id } });
  }
  return owned;
}

/** The kinds that are children of a balancer: written on its lock, found by (parent, name), pruned only inside a balancer the stack owns. */
export type BalancerChildType = 'cloud_lb_listener' | 'cloud_lb_pool' | 'cloud_lb_l7policy';

/** The balancer of each listener the stack's `cloud_lb_listener` blocks found (by listener id). */
function listenerBalancers(stack: StackView | undefined): Map<string, string> {
  const found = new Map<string, string>();
  for (const block of stack?.read?.('cloud_lb_listener') ?? []) {
    if (block.observation?.exists !== true) continue;
    const { listener_id, load_balancer_id } = block.observation.state;
    if (typeof listener_id === 'string' && typeof load_balancer_id === 'string') found.set(listener_id, load_balancer_id);
  }
  return found;
}

/** What a child kind declares for its reads and prune (see defineChildReads). */
export interface ChildSpec<T extends BalancerChildType, Item> {
  type: T;
  /** What the kind is called in messages: "listener". */
  noun: string;
  /** Every child of the kind in a project and region (one list serves all the place's balancers). */
  list: KindList<CloudScope, Item>;
  /** GET one by id (throws NotFoundError on 404). */
  get(ctx: ProviderContext, desired: ResourceAttributes[T], id: string): Promise<Item>;
  itemId(item: Item): string;
  /**
   * The balancer an item belongs to (null: none it names or known); `listeners` maps the
   * listeners the stack's blocks found to their balancers, for a child that names only its listener.
   */
  balancerOf(item: Item, listeners: ReadonlyMap<string, string>): string | null;
  /** The block field naming the child's parent, by which (with the name) it is found: its balancer (the default) or its listener. */
  parentField?: 'load_balancer_id' | 'listener_id';
  /** The parent an item belongs to (see parentField); default balancerOf. */
  parentOf?(item: Item): string | null;
  itemName(item: Item): string;
  observe(item: Item): Observation & { exists: true };
  /** A block's observation when it needs more than the list's item (a policy's rules); default observe. */
  detail?(ctx: ProviderContext, desired: ResourceAttributes[T], item: Item): Promise<Observation>;
}

/** The attributes every child kind has. */
interface ChildAttributes {
  project_id: number;
  region_id: number;
  load_balancer_id?: string;
  listener_id?: string;
  name: string;
}

/**
 * The reads and prune listing of a balancer's child kind (listeners, pools). A block names its
 * platform id or is found by its balancer and name; every block of a project and region, of every
 * balancer, is read from one list of the place's children (its pages), so a no-change plan of N
 * balancers with their listeners and pools costs the list pages, not a request per child. A block
 * whose balancer is still to be created (its id known after apply) has no child yet: known absent
 * without a request of its own. A child is pruned only when it belongs to a balancer a
 * `cloud_load_balancer` block of the stack declares and no block of the kind declares it.
 */
export function defineChildReads<T extends BalancerChildType, Item>(
  spec: ChildSpec<T, Item>,
): {
  read: ResourceProvider<T>['read'];
  groupRead: GroupRead<T>;
  readOrGone(ctx: ProviderContext, d: ResourceAttributes[T], id: string): Promise<Item | null>;
  findByName(ctx: ProviderContext, d: ResourceAttributes[T]): Promise<Item | null>;
  pruneListing: NonNullable<ResourceProvider<T>['pruneListing']>;
} {
  // Both child kinds' shapes have these fields, which the generic attribute type of T does not show.
  const attrs = (d: ResourceAttributes[T]) => d as unknown as ChildAttributes;
  // The kind's id field, stated once in its KindSpec.
  const idField = RESOURCE_KINDS[spec.type].idField;
  // Read by its name: the id field is not a field of ChildAttributes.
  const idOf = (d: ResourceAttributes[T]) => (d as unknown as Record<string, unknown>)[idField] as string | undefined;
  const place = (d: ResourceAttributes[T]): CloudScope => ({ project_id: attrs(d).project_id, region_id: attrs(d).region_id });
  const keyOf = (parent: string, name: string) => `${parent}/${name}`;
  const parentField = spec.parentField ?? 'load_balancer_id';
  const parentNoun = parentField === 'listener_id' ? 'listener' : 'load balancer';
  const parentOf = spec.parentOf ?? ((item: Item) => spec.balancerOf(item, new Map()));
  const parent = (d: ResourceAttributes[T]) => attrs(d)[parentField] ?? '';
  const pick = (d: ResourceAttributes[T], matches: readonly Item[]) => {
    const identity = `name ${JSON.stringify(attrs(d).name)} in ${parentNoun} ${parent(d)}`;
    const item = onlyMatch(
      matches.filter((m) => parentOf(m) === parent(d) && spec.itemName(m) === attrs(d).name),
      spec.itemId,
      { type: spec.type, identity },
    );
    return item === null ? null : { item, foundBy: identity };
  };
  const readOne = (ctx: ProviderContext, d: ResourceAttributes[T], id: string) => readOrGone(() => spec.get(ctx, d, id));
  const findByName = async (ctx: ProviderContext, d: ResourceAttributes[T]) => {
    if (!balancerKnown(parent(d))) return null;
    return pick(d, await listAll(ctx, spec.list, place(d), spec.itemId))?.item ?? null;
  };
  const endpoint = {
    paging: spec.list.paging,
    describe: ([d]: readonly ResourceAttributes[T][]) => `GET ${spec.list.path(place(d!))}`,
  };
  const reads = defineListReads<T, Item>({
    readOne: (ctx, d) => readOne(ctx, d, idOf(d) ?? ''),
    project: (ctx, d, item) => (spec.detail ? spec.detail(ctx, d, item) : spec.observe(item)),
    hasId: (d) => idOf(d) !== undefined,
    async find(ctx, d) {
      if (!balancerKnown(parent(d))) return null;
      return pick(d, await listAll(ctx, spec.list, place(d), spec.itemId));
    },
    findInList: {
      key: (d) => keyOf(parent(d), attrs(d).name),
      itemKey: (item) => keyOf(parentOf(item) ?? '', spec.itemName(item)),
      pick: (d, matches) => pick(d, matches),
    },
    list: {
      ...endpoint,
      group: (d) => `${attrs(d).project_id}/${attrs(d).region_id}`,
      memberId: (d) => idOf(d) ?? '',
      itemId: spec.itemId,
      fetchPage: (ctx, [d], page) => fetchListPage(ctx, spec.list, place(d), page),
    },
  });
  const pruneListing = childPruneListing(spec, { idField, parentField, parentOf, idOf, attrs });
  return { read: reads.read, groupRead: reads.groupRead, readOrGone: readOne, findByName, pruneListing };
}

/** How defineChildReads reads a child kind's blocks, for its prune listing. */
interface ChildFields<T extends BalancerChildType, Item> {
  idField: string;
  parentField: 'load_balancer_id' | 'listener_id';
  parentOf(item: Item): string | null;
  idOf(d: ResourceAttributes[T]): string | undefined;
  attrs(d: ResourceAttributes[T]): ChildAttributes;
}

/**
 * A child kind's prune listing: the children of the balancers the stack's `cloud_load_balancer`
 * blocks declare (prune: true) that no block of the kind declares or may be (a block whose read
 * failed may be any child of its name in its parent).
 */
function childPruneListing<T extends BalancerChildType, Item>(
  spec: ChildSpec<T, Item>,
  { idField, parentField, parentOf, idOf, attrs }: ChildFields<T, Item>,
): NonNullable<ResourceProvider<T>['pruneListing']> {
  return {
    afterReads: true,
    async list(ctx, declared, stack) {
      const stackName = stack?.name ?? null;
      const balancers = ownedBalancers(stack);
      if (stackName === null || balancers.size === 0 || stack?.read === undefined) return [];
      const taken = new Set<string>();
      for (const d of declared) if (idOf(d) !== undefined) taken.add(idOf(d)!);
      const blocks = stack.read(spec.type);
      for (const block of blocks) if (block.observation?.exists === true) taken.add(block.observation.state[idField] as string);
      // A block whose read failed (two children of its name) may be any child of its name in its balancer.
      const unread = blocks.filter((b) => b.observation === undefined).map((b) => attrs(b.attributes));
      const listeners = listenerBalancers(stack);
      const places = new Map([...balancers.values()].map(({ scope }) => [`${scope.project_id}/${scope.region_id}`, scope]));
      const found: OwnedResource<T>[] = [];
      for (const scope of places.values()) {
        for (const item of (await readOrGone(() => listAll(ctx, spec.list, scope, spec.itemId))) ?? []) {
          const lb = spec.balancerOf(item, listeners);
          const owner = lb === null ? undefined : balancers.get(lb);
          if (owner === undefined || taken.has(spec.itemId(item))) continue;
          const of = parentOf(item);
          if (unread.some((d) => d.name === spec.itemName(item) && (d[parentField] === of || !balancerKnown(d[parentField])))) continue;
          found.push({
            stack: stackName,
            address: `${spec.type}.${lb}/${spec.itemId(item)}`,
            place: `${scope.project_id}/${scope.region_id}`,
            // A pruned child's block as the planner takes it: the fields its delete needs, keyed by the kind's id field.
            desired: {
              ...scope,
              [idField]: spec.itemId(item),
              load_balancer_id: lb,
              [parentField]: of,
              name: spec.itemName(item),
              ensure: 'absent',
            } as unknown as ResourceAttributes[T],
            observation: spec.observe(item),
            pruneReason: `no block declares it, and it is a ${spec.noun} (${JSON.stringify(spec.itemName(item))}) of ${owner.address}, which this stack declares (prune: true)`,
          });
        }
      }
      return found;
    },
  };
}

/** The field of a listener answer a child naming only its listener needs: its balancer. */
const listenerBalancer = z.looseObject({ load_balancer_id: z.string().nullish() });

/**
 * The balancer of a listener, for a write of a child that names only its listener (an L7 policy)
 * to wait its turn on (onBalancer): one GET of the listener. Undefined when the listener is gone
 * (its children went with it) or names none.
 */
export async function balancerOfListener(ctx: ProviderContext, scope: CloudScope, listenerId: string): Promise<string | undefined> {
  if (!balancerKnown(listenerId)) return undefined;
  const listener = await readOrGone(
    async () => (await ctx.api.get(apiPath`/cloud/v1/lblisteners/${scope.project_id}/${scope.region_id}/${listenerId}`, { schema: listenerBalancer, signal: ctx.signal })).body,
  );
  return listener?.load_balancer_id ?? undefined;
}

/** A child's declared fields against its state: what plan shows and what its PATCH sends (see diffChildFields). */
export interface ChildFieldsDiff {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  changes: FieldChange[];
  /** The fields that differ and change in place, with their declared values: the PATCH body. */
  body: Record<string, unknown>;
}

/**
 * The diff of a listener's or pool's name and plain fields: a field the block leaves out
 * (`want` undefined) is not managed; one that differs is a change, forcing replacement when it is
 * among `createOnly` and otherwise sent in the PATCH body. `before`/`after` start from the child's
 * id, balancer and name. Pure.
 */
export function diffChildFields<Field extends string>(
  state: Record<string, unknown>,
  declared: { idField: string; name: string },
  fields: { createOnly: readonly Field[]; inPlace: readonly Field[] },
  want: (field: Field) => unknown,
): ChildFieldsDiff {
  const before: Record<string, unknown> = { [declared.idField]: state[declared.idField], load_balancer_id: state.load_balancer_id, name: state.name };
  const after: Record<string, unknown> = { ...before, name: declared.name };
  const changes: FieldChange[] = [];
  const body: Record<string, unknown> = {};
  if (declared.name !== state.name) {
    changes.push({ path: ['name'], op: 'update', before: state.name, after: declared.name });
    body.name = declared.name;
  }
  for (const field of [...fields.createOnly, ...fields.inPlace]) {
    const value = want(field);
    if (value === undefined) continue;
    before[field] = state[field];
    after[field] = value;
    if (canonicalJson(value) === canonicalJson(state[field])) continue;
    const forces = fields.createOnly.includes(field);
    changes.push({ path: [field], op: 'update', before: state[field], after: value, ...(forces ? { forces_replacement: true } : {}) });
    if (!forces) body[field] = value;
  }
  return { before, after, changes, body };
}

/**
 * The plan error of a child adopted by its platform id (`idField` set) whose change would replace
 * it: the new one could no longer be named by that id. None when nothing forces a replacement or
 * the block names no id (found by its parent and name, it is simply made again).
 */
export function adoptedReplaceErrors(changes: readonly FieldChange[], adopted: { idField: string; id: string | undefined; noun: string; parent: string }): PlanProblem[] {
  const forced = changes.filter((c) => c.forces_replacement);
  if (forced.length === 0 || adopted.id === undefined) return [];
  return [
    {
      field: String(forced[0]!.path[0]),
      summary: `${forced.map((c) => c.path[0]).join(' and ')} of ${adopted.noun} ${adopted.id} cannot change in place`,
      detail: `edgeform would destroy the ${adopted.noun} and create a new one, which ${adopted.idField} could no longer name: remove ${adopted.idField} (the ${adopted.noun} is found by its ${adopted.parent} and name), or declare what the ${adopted.noun} has.`,
    },
  ];
}
