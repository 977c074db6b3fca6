import type { GroupRead, GroupReadContext, MemberRead, Observation, ProviderContext, ResourceRef } from './provider.js';
import type { ResourceAttributes, ResourceType } from './registry.js';

/** Reads of one kind and group waiting for the turn of the event loop to end, and who waits on each. */
interface Batch<T extends ResourceType> {
  ctx: ProviderContext;
  members: Array<ResourceAttributes[T]>;
  refs: ResourceRef[];
  waiters: Array<{ resolve: (observation: Observation) => void; reject: (error: unknown) => void }>;
}

/** The batches of one run: those being gathered, and the grouped reads of blocks found by identity under way. */
interface RunBatches {
  gathering: Map<string, Batch<ResourceType>>;
  /** By batch key: the grouped read of blocks without their id in flight (the next one of the key waits for it). */
  finding: Map<string, Promise<void>>;
}

/**
 * The batches of each run: per API client (one client serves one run) and run signal, by kind
 * and group key. Both are held weakly: a run that ended leaves nothing behind.
 */
const runs = new WeakMap<object, WeakMap<AbortSignal, RunBatches>>();

/**
 * Reads one resource of a kind that reads by group (ResourceProvider.groupRead), together with
 * every other read of the same kind and group asked for in the same turn of the event loop with
 * the same client and signal: apply's actions each read their own resource (before acting, and
 * to confirm) and start or finish their tasks in waves, so a wave's reads become one grouped
 * read, which lists the group or reads each resource alone, whichever takes fewer requests (a
 * read alone is one single GET, as before). Blocks without their platform id (found by a natural
 * key or ownership tags, `ref`, for a kind whose group read finds them: GroupRead.findsWithoutId)
 * are read together too, apart from those with an id: while such a read of a group is under way,
 * the reads of that group asked for meanwhile wait for it to end and then go together, so that
 * creates confirmed one after another (each as its own answer comes) cost one list per round of
 * reads, not one per resource. Each read starts only after it was asked for, so it observes the
 * platform at least as late as a read of its own would; it resolves with the same observation
 * and fails with the same error as a single read would (a failed list request fails every
 * resource it was for, with that request's error). Apply only: the plan reads groups through
 * readStack, and a provider's own `read` stays a single read.
 */
export function readTogether<T extends ResourceType>(
  type: T,
  groupRead: GroupRead<T>,
  ctx: ProviderContext,
  desired: ResourceAttributes[T],
  ref: ResourceRef,
  found = false,
): Promise<Observation> {
  let bySignal = runs.get(ctx.api);
  if (!bySignal) {
    bySignal = new WeakMap();
    runs.set(ctx.api, bySignal);
  }
  let run = bySignal.get(ctx.signal);
  if (!run) {
    run = { gathering: new Map(), finding: new Map() };
    bySignal.set(ctx.signal, run);
  }
  const { gathering, finding } = run;
  const key = `${type}\u0000${groupRead.key(desired)}${found ? '\u0000found' : ''}`;
  let batch = gathering.get(key) as Batch<T> | undefined;
  if (!batch) {
    const started: Batch<T> = { ctx, members: [], refs: [], waiters: [] };
    batch = started;
    // The map holds batches of every kind; its key names the kind, so each is read back as its own.
    gathering.set(key, started as unknown as Batch<ResourceType>);
    const start = () => {
      gathering.delete(key);
      const done = readBatch(groupRead, started);
      if (!found) return;
      finding.set(key, done);
      void done.then(() => {
        if (finding.get(key) === done) finding.delete(key);
      });
    };
    const underWay = found ? finding.get(key) : undefined;
    if (underWay) void underWay.then(() => setImmediate(start));
    else setImmediate(start);
  }
  const joined = batch;
  joined.members.push(desired);
  joined.refs.push(ref);
  return new Promise<Observation>((resolve, reject) => joined.waiters.push({ resolve, reject }));
}

async function readBatch<T extends ResourceType>(groupRead: GroupRead<T>, batch: Batch<T>): Promise<void> {
  // Requests are bounded by the client (--parallelism); a batch needs no pool of its own.
  const ctx: GroupReadContext = { ...batch.ctx, schedule: (work) => work() };
  let outcomes: MemberRead[];
  try {
    outcomes = await groupRead.read(ctx, batch.members, batch.refs);
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
