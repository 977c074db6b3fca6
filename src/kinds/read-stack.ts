import { defaultMaxListeners, setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { CheckBlock, ResourceBlock, Stack } from '../config/types.js';
import { EdgeformError, RunFatalError } from '../errors.js';
import type { CheckOutcome, GroupRead, GroupReadContext, MemberRead, OwnedRead, ProviderContext, ProviderRegistry, ReadBlock, ReadResult, StackView } from './provider.js';
import { RESOURCE_KINDS, RESOURCE_TYPES, type CheckType, type ResourceAttributes, type ResourceType } from './registry.js';
import { referenceAddress, templateTargets } from '../model/references.js';
import { resolveReferences } from '../plan/references.js';

/** What reading a stack observed: per resource address a read result, per check its outcome. */
export interface StackObservations {
  reads: Map<string, ReadResult>;
  checks: Map<string, CheckOutcome>;
  /**
   * What carries ownership tags (of any stack) in the places of a kind's blocks, by kind, listed
   * when the plan needs it: for prune (`prune: true`, no --target: the planner destroys this
   * stack's that no block declares; a kind without tags lists through its pruneListing), for moves (`moved_from`, `renamed_from`), and when a block
   * would be created (to warn of a rename). A failed listing is its kind's error.
   */
  owned: OwnedRead[];
}

/** Settings of {@link readStack}. */
export interface ReadStackOptions {
  /** Requests (and checks) under way at most at once. */
  parallelism: number;
  /** The addresses to read (--target and what they depend on); all when absent. */
  selected?: ReadonlySet<string>;
  /** Items per list page of grouped reads; default each endpoint's largest (tests page small worlds). */
  pageSize?: number;
  /** List pages one grouped read follows at most; default MAX_LIST_PAGES. */
  maxPages?: number;
  /**
   * Called as reading goes: resources and checks read so far (a group counts when its grouped
   * read ends) of those selected; for the progress line on a terminal.
   */
  onProgress?: (done: number, total: number) => void;
}

/** What the parts of one stack reading share (see readStack): what was read so far, and whether it stopped. */
interface StackReading {
  readonly stack: Stack;
  readonly registry: ProviderRegistry;
  readonly options: ReadStackOptions;
  /** The caller's context: its signal is an interrupt. */
  readonly ctx: ProviderContext;
  /** The reads' context: also aborted by the first run-fatal error, with readOnce and the stack's view. */
  readonly readCtx: ProviderContext;
  readonly limit: ReturnType<typeof pLimit>;
  readonly halt: AbortController;
  readonly view: StackView;
  readonly reads: Map<string, ReadResult>;
  readonly checks: Map<string, CheckOutcome>;
  readonly owned: OwnedRead[];
  /** The first run-fatal error: the reading stops on it. */
  fatal: RunFatalError | null;
  /** Resources and checks read so far, of `total`. */
  done: number;
  readonly total: number;
}

/**
 * Reads every selected resource and evaluates every selected check, at most `parallelism`
 * requests at a time (reads are independent of each other, whatever the dependency order).
 * Resources of a kind with a grouped read (ResourceProvider.groupRead) are read by group: the
 * resources of one group (one project and region, one reseller) go to the provider together,
 * which reads them through list pages or one by one, whichever takes fewer requests; every
 * request of a group read runs in the same pool. A failed read is recorded with the platform's
 * message so the rest of the stack is still planned; a failed list request fails each resource
 * it was for, each with its own diagnostic. A RunFatalError (the key refused, the platform
 * unavailable) stops the reading instead: reads still queued never start, those in flight are
 * aborted, and it rejects with that one error rather than one diagnostic per resource.
 */
export async function readStack(ctx: ProviderContext, stack: Stack, registry: ProviderRegistry, options: ReadStackOptions): Promise<StackObservations> {
  const r = startReading(ctx, stack, registry, options);
  const isSelected = (address: string) => !options.selected || options.selected.has(address);
  const selected = stack.resources.filter((b) => isSelected(b.address));
  const pruning = stack.prune && stack.name !== undefined && !options.selected;
  const hasOwnership = (type: ResourceType) => registry.resources[type].ownership !== undefined;
  // Prune and moves need the listing whatever the reads find: it goes alongside them.
  const pruneListed = (type: ResourceType, after: boolean) =>
    pruning && (registry.resources[type].pruneListing?.afterReads === true) === after && registry.resources[type].pruneListing !== undefined;
  const early = RESOURCE_TYPES.filter(
    (type) => (hasOwnership(type) && (pruning || selected.some((b) => b.type === type && b.movedFrom !== undefined))) || pruneListed(type, false),
  );
  // A block whose read needs a field that holds a reference (ResourceProvider.readNeeds) is read
  // after the block it refers to, with that reference resolved from its read: in waves.
  const needing = new Map(selected.map((b) => [b, readDependencies(b)]));
  const needs = (b: ResourceBlock) => needing.get(b) ?? [];
  const readIn = (blocks: readonly ResourceBlock[]) =>
    RESOURCE_TYPES.flatMap((type) =>
      readKind(
        r,
        type,
        blocks.filter((b) => b.type === type),
      ),
    );
  let waiting = selected.filter((b) => needs(b).length > 0);
  await Promise.all([
    ...early.map((type) => listOwned(r, type)),
    ...readIn(selected.filter((b) => needs(b).length === 0)),
    ...stack.checks.filter((b) => isSelected(b.address)).map((b) => r.limit(() => evaluateCheck(r, b))),
  ]);
  while (waiting.length > 0 && r.fatal === null) {
    // Blocks whose references all were read (or are not read in this run) go next; a cycle cannot
    // stand (references are dependencies), but a wave never stalls: the rest then go as they are.
    const ready = waiting.filter((b) => needs(b).every((address) => r.reads.has(address) || !waiting.some((w) => w.address === address)));
    const wave = ready.length > 0 ? ready : waiting;
    waiting = waiting.filter((b) => !wave.includes(b));
    await Promise.all(readIn(wave.map((b) => withReadReferences(b, r.reads))));
  }
  if (r.fatal !== null) throw r.fatal;
  // A block without id that nothing carries the tags of would be created: its kind's places are
  // listed too (one list a place), so that the plan can say when a resource carries its address
  // under another stack's name, or this stack's tags under an address no block declares (a rename).
  const wouldCreate = (b: ResourceBlock): boolean => {
    const read = r.reads.get(b.address);
    return (b.attributes as Record<string, unknown>)[RESOURCE_KINDS[b.type].idField] === undefined && read?.ok === true && !read.observation.exists;
  };
  const late = RESOURCE_TYPES.filter((type) => hasOwnership(type) && !early.includes(type) && selected.some((b) => b.type === type && wouldCreate(b)));
  // Prune listings that need the reads (the ids the stack's blocks were found by) go now too.
  await Promise.all([...late.map((type) => listOwned(r, type)), ...RESOURCE_TYPES.filter((type) => pruneListed(type, true)).map((type) => listOwned(r, type, afterReads(r)))]);
  if (r.fatal !== null) throw r.fatal;
  // Listings end in any order; the plan lists what they found in the registry's order of kinds.
  r.owned.sort((a, b) => RESOURCE_TYPES.indexOf(a.type) - RESOURCE_TYPES.indexOf(b.type));
  return { reads: r.reads, checks: r.checks, owned: r.owned };
}

/** A stack reading before its first read: its contexts, its pool, and nothing read yet. */
function startReading(ctx: ProviderContext, stack: Stack, registry: ProviderRegistry, options: ReadStackOptions): StackReading {
  const isSelected = (address: string) => !options.selected || options.selected.has(address);
  // The first run-fatal error: aborts the reads in flight (through their signal) and skips the rest.
  const halt = new AbortController();
  // The blocks of a kind, gathered once a reading: a kind's create facts ask for them once per
  // block (each record set to create, for its zone), which over the whole stack was quadratic.
  const byType = new Map<ResourceType, readonly unknown[]>();
  const view: StackView = {
    name: stack.name ?? null,
    blocks: <B extends ResourceType>(type: B) => {
      let found = byType.get(type) as readonly ResourceAttributes[B][] | undefined;
      if (found === undefined) byType.set(type, (found = stack.resources.filter((b) => b.type === type).map((b) => b.attributes as ResourceAttributes[B])));
      return found;
    },
  };
  // A sweep of many stacks hands its own readOnce (one page cache for the whole sweep): kept; else
  // a list page asked for twice in this reading (a grouped read and a prune listing) is fetched once.
  const readCtx: ProviderContext = { ...ctx, signal: AbortSignal.any([ctx.signal, halt.signal]), readOnce: ctx.readOnce ?? createReadOnce(), stack: view };
  // Each request in flight listens on this signal: up to `parallelism` at once is no leak.
  setMaxListeners(Math.max(defaultMaxListeners, options.parallelism + defaultMaxListeners), readCtx.signal);
  const limit = pLimit(Math.max(1, options.parallelism));
  return {
    stack,
    registry,
    options,
    ctx,
    readCtx,
    limit,
    halt,
    view,
    reads: new Map(),
    checks: new Map(),
    owned: [],
    fatal: null,
    done: 0,
    total: stack.resources.filter((b) => isSelected(b.address)).length + stack.checks.filter((b) => isSelected(b.address)).length,
  };
}

/**
 * A group read's context. A group read runs outside the pool and sends each unit of its I/O
 * through it, so it never holds a place while it waits; once the reading stops, no unit starts.
 */
function groupContext(r: StackReading): GroupReadContext {
  return {
    ...r.readCtx,
    schedule: (work) =>
      r.limit(() => {
        if (r.fatal !== null) throw r.fatal;
        return work();
      }),
    ...(r.options.pageSize !== undefined ? { pageSize: r.options.pageSize } : {}),
    ...(r.options.maxPages !== undefined ? { maxPages: r.options.maxPages } : {}),
  };
}

/** The failure's message, or null when the reading stops (this error or an earlier one is fatal). */
function failure(r: StackReading, error: unknown): string | null {
  if (r.fatal === null && error instanceof RunFatalError && !r.ctx.signal.aborted) {
    r.fatal = error;
    r.halt.abort(error);
  }
  return r.fatal === null ? describeFailure(error, r.ctx.signal) : null;
}

/** Records a failed read as the resource's diagnostic (unless the reading stops on it). */
function recordFailure(r: StackReading, address: string, error: unknown): void {
  const summary = failure(r, error);
  if (summary !== null) r.reads.set(address, { ok: false, error: { summary } });
}

function advance(r: StackReading, n: number): void {
  r.done += n;
  if (r.fatal === null) r.options.onProgress?.(r.done, r.total);
}

/** Reads one resource alone, through its provider's read. */
async function readResource<K extends ResourceType>(r: StackReading, block: ResourceBlock<K>): Promise<void> {
  if (r.fatal !== null) return;
  const provider = r.registry.resources[block.type];
  try {
    r.reads.set(block.address, { ok: true, observation: await provider.read(r.readCtx, block.attributes, { address: block.address, stack: r.stack.name ?? null }) });
  } catch (error) {
    recordFailure(r, block.address, error);
  }
  advance(r, 1);
}

/** Reads one group (blocks of one kind and group key) through the kind's grouped read. */
async function readGroup<K extends ResourceType>(r: StackReading, groupRead: GroupRead<K>, blocks: ReadonlyArray<ResourceBlock<K>>): Promise<void> {
  let outcomes: MemberRead[];
  try {
    outcomes = await groupRead.read(
      groupContext(r),
      blocks.map((b) => b.attributes),
      blocks.map((b) => ({ address: b.address, stack: r.stack.name ?? null })),
    );
  } catch (error) {
    // Aborted: an interrupt propagates from here, a run-fatal error stops the reading.
    for (const block of blocks) recordFailure(r, block.address, error);
    advance(r, blocks.length);
    return;
  }
  blocks.forEach((block, i) => {
    const outcome = outcomes[i];
    if (outcome === undefined) throw new Error(`the grouped read of ${block.type} answered for ${outcomes.length} of ${blocks.length} resources`);
    if (outcome.ok) r.reads.set(block.address, { ok: true, observation: outcome.observation });
    else recordFailure(r, block.address, outcome.error);
  });
  advance(r, blocks.length);
}

/** Reads the blocks of one kind: by group (its provider's group key) when it reads groups, else one by one. */
function readKind<K extends ResourceType>(r: StackReading, type: K, blocks: ReadonlyArray<ResourceBlock<K>>): Array<Promise<void>> {
  const groupRead = r.registry.resources[type].groupRead;
  if (!groupRead) return blocks.map((b) => r.limit(() => readResource(r, b)));
  const groups = new Map<string, Array<ResourceBlock<K>>>();
  // Only blocks that name their platform id are read by group, unless the group read finds
  // the others in its list too; one without (a creatable kind) is found by its own identity
  // (natural key or ownership tags).
  const byIdentity = groupRead.findsWithoutId ? [] : blocks.filter((b) => (b.attributes as Record<string, unknown>)[RESOURCE_KINDS[type].idField] === undefined);
  const alone = new Set<ResourceBlock<K>>(byIdentity);
  for (const block of blocks) {
    if (alone.has(block)) continue;
    const key = groupRead.key(block.attributes);
    const group = groups.get(key);
    if (group) group.push(block);
    else groups.set(key, [block]);
  }
  return [...groups.values()].map((group) => readGroup(r, groupRead, group)).concat(byIdentity.map((b) => r.limit(() => readResource(r, b))));
}

async function evaluateCheck<K extends CheckType>(r: StackReading, block: CheckBlock<K>): Promise<void> {
  if (r.fatal !== null) return;
  const provider = r.registry.checks[block.type];
  try {
    r.checks.set(block.address, await provider.evaluate(r.readCtx, block.attributes));
  } catch (error) {
    const message = failure(r, error);
    if (message !== null) r.checks.set(block.address, { status: 'error', message });
  }
  advance(r, 1);
}

/** What a prune listing run after the reads sees besides (StackView.read): each block's address and observation. */
function afterReads(r: StackReading): StackView {
  return {
    ...r.view,
    read: <B extends ResourceType>(type: B) =>
      r.stack.resources
        .filter((b) => b.type === type)
        .map((b): ReadBlock<B> => {
          const read = r.reads.get(b.address);
          return { address: b.address, attributes: b.attributes as ResourceAttributes[B], observation: read?.ok === true ? read.observation : undefined };
        }),
  };
}

/** Lists what carries ownership tags (or what the kind's prune listing counts as the stack's) for one kind. */
async function listOwned<K extends ResourceType>(r: StackReading, type: K, seen: StackView = r.view): Promise<void> {
  const provider = r.registry.resources[type];
  const lister = provider.ownership ?? provider.pruneListing;
  if (!lister || r.fatal !== null) return;
  try {
    r.owned.push({ type, ok: true, resources: await lister.list(r.readCtx, seen.blocks(type), seen) });
  } catch (error) {
    const summary = failure(r, error);
    if (summary !== null) r.owned.push({ type, ok: false, error: { summary } });
  }
}

/**
 * A page cache for ProviderContext.readOnce: a list page (by the kind's list object and its scope
 * and page) asked for more than once is fetched once, every caller getting that one answer (or
 * its error). One per reading of a stack, or one for a whole sweep of stacks.
 */
export function createReadOnce(): NonNullable<ProviderContext['readOnce']> {
  const fetched = new WeakMap<object, Map<string, Promise<unknown>>>();
  return <R>(list: object, key: string, fetch: () => Promise<R>): Promise<R> => {
    let pages = fetched.get(list);
    if (pages === undefined) fetched.set(list, (pages = new Map()));
    let answer = pages.get(key) as Promise<R> | undefined;
    if (answer === undefined) {
      answer = fetch();
      pages.set(key, answer);
    }
    return answer;
  };
}

/** The references in the fields a block's read needs (ResourceProvider.readNeeds). */
function readReferences(block: ResourceBlock): NonNullable<ResourceBlock['references']> {
  const needs = RESOURCE_KINDS[block.type].resolvedBeforeRead ?? [];
  return (block.references ?? []).filter((r) => needs.includes(String(r.path[0])));
}

/** The addresses of the blocks a block's read needs read first. */
function readDependencies(block: ResourceBlock): string[] {
  return [...new Set(readReferences(block).flatMap((r) => templateTargets(r.parts).map(referenceAddress)))];
}

/** The block with the references its read needs resolved from what was read (KNOWN_AFTER_APPLY where its block does not exist yet). */
function withReadReferences(block: ResourceBlock, reads: ReadonlyMap<string, ReadResult>): ResourceBlock {
  const resolved = resolveReferences(block.attributes as Record<string, unknown>, readReferences(block), { reads, changes: new Map() });
  return { ...block, attributes: resolved.attributes } as ResourceBlock;
}

/** A failure's message for a plan diagnostic; an abort or anything unexpected (a bug) propagates. */
function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) throw signal.reason;
  if (error instanceof EdgeformError) return error.message;
  throw error;
}
