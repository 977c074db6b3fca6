import type { GroupRead, GroupReadContext, MemberRead, Observation, ProviderContext } from './provider.js';
import type { ResourceAttributes, ResourceType } from './registry.js';

/** Reads of one kind and group waiting for the turn of the event loop to end, and who waits on each. */
interface Batch<T extends ResourceType> {
  ctx: ProviderContext;
  members: Array<ResourceAttributes[T]>;
  waiters: Array<{ resolve: (observation: Observation) => void; reject: (error: unknown) => void }>;
}

/**
 * The batches being gathered: per API client (one client serves one run) and run signal, by kind
 * and group key. Both are held weakly: a run that ended leaves nothing behind.
 */
const gathering = new WeakMap<object, WeakMap<AbortSignal, Map<string, Batch<ResourceType>>>>();

/**
 * Reads one resource of a kind that reads by group (ResourceProvider.groupRead), together with
 * every other read of the same kind and group asked for in the same turn of the event loop with
 * the same client and signal: apply's actions each read their own resource (before acting, and
 * to confirm) and start or finish their tasks in waves, so a wave's reads become one grouped
 * read, which lists the group or reads each resource alone, whichever takes fewer requests (a
 * read alone is one single GET, as before). Each read starts only after it was asked for, so
 * it observes the platform at least as late as a read of its own would; it resolves with the same
 * observation and fails with the same error as a single read would (a failed list request fails
 * every resource it was for, with that request's error). Apply only: the plan reads groups
 * through readStack, and a provider's own `read` stays a single read.
 */
export function readTogether<T extends ResourceType>(type: T, groupRead: GroupRead<T>, ctx: ProviderContext, desired: ResourceAttributes[T]): Promise<Observation> {
  let bySignal = gathering.get(ctx.api);
  if (!bySignal) {
    bySignal = new WeakMap();
    gathering.set(ctx.api, bySignal);
  }
  let batches = bySignal.get(ctx.signal);
  if (!batches) {
    batches = new Map();
    bySignal.set(ctx.signal, batches);
  }
  const key = `${type}\u0000${groupRead.key(desired)}`;
  let batch = batches.get(key) as Batch<T> | undefined;
  if (!batch) {
    const started: Batch<T> = { ctx, members: [], waiters: [] };
    batch = started;
    batches.set(key, started as unknown as Batch<ResourceType>);
    const gathered = batches;
    setImmediate(() => {
      gathered.delete(key);
      void readBatch(groupRead, started);
    });
  }
  const joined = batch;
  joined.members.push(desired);
  return new Promise<Observation>((resolve, reject) => joined.waiters.push({ resolve, reject }));
}

async function readBatch<T extends ResourceType>(groupRead: GroupRead<T>, batch: Batch<T>): Promise<void> {
  // Requests are bounded by the client (--parallelism); a batch needs no pool of its own.
  const ctx: GroupReadContext = { ...batch.ctx, schedule: (work) => work() };
  let outcomes: MemberRead[];
  try {
    outcomes = await groupRead.read(ctx, batch.members);
  } catch (error) {
    for (const waiter of batch.waiters) waiter.reject(error);
    return;
  }
  batch.waiters.forEach((waiter, i) => {
    const outcome = outcomes[i];
    if (outcome === undefined) waiter.reject(new Error(`the grouped read answered for ${outcomes.length} of ${batch.members.length} resources`));
    else if (outcome.ok) waiter.resolve(outcome.observation);
    else waiter.reject(outcome.error);
  });
}
