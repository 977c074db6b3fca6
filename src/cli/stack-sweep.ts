import type { AssessOptions } from '../kinds/plan-economics.js';
import pLimit from 'p-limit';
import type { ApiClient } from '../api/client.js';
import { resolveBaseUrl } from '../api/base-url.js';
import { hasErrors, type Diagnostic } from '../config/diagnostics.js';
import { parseShard } from '../config/shards.js';
import { sensitiveValues } from '../config/sensitive-fields.js';
import { withSensitiveFiles } from '../config/file-fields.js';
import type { Stack } from '../config/types.js';
import { UsageError, must } from '../errors.js';
import type { ProviderContext, ReadResult } from '../kinds/provider.js';
import { createReadOnce } from '../kinds/read-stack.js';
import type { Plan } from '../plan/types.js';
import type { SweptStack } from '../render/sweep-view.js';
import { changedFilesSince } from './git-changes.js';
import { describeRunFailure } from './interrupt.js';
import { connect, readAndPlanStack } from './plan-stack.js';
import type { RunReporter } from './run-reporter.js';
import { selectStacks, toFleetMember } from './stacks.js';
import { fleetOrder, type FleetStack } from './fleet-order.js';
import { foreignReader } from './fleet-references.js';

/** Settings of a sweep (`plan|drift|apply --stacks ROOT`). */
export interface SweepOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  parallelism: number;
  signal: AbortSignal;
  /** `--shard I/N`. */
  shard?: string | undefined;
  /** `--changed-since REF`. */
  changedSince?: string | undefined;
  /** Where retries and the request log go, and the progress line (stacks done of total). */
  reporter?: RunReporter;
  /** Given the sensitive values of every stack once they are loaded (CliIO.protect). */
  protect?: (values: readonly string[]) => void;
  /** The quota check and prices of each stack's plan (assessPlan), as `plan --check-quota --cost` asks. */
  assess?: AssessOptions;
}

/** The stacks a sweep plans at once (each reads at most --parallelism requests at once through the one shared client). */
const STACKS_AT_ONCE = 8;

/** The selection of a sweep: the stacks, in dependency order, each valid one with its fleet diagnostics. */
export interface Fleet {
  /** Every selected stack, in dependency order (a stack after the stacks its `${stack:...}` references read). */
  stacks: FleetStack[];
}

/**
 * The stacks a sweep works on: discovered under the root, of the shard, changed since the ref,
 * each loaded, their references to other stacks checked against the whole fleet under the root
 * (a stack read by a selected one need not be selected itself) and put in dependency order.
 * Offline: no request.
 */
export async function loadFleet(options: Pick<SweepOptions, 'root' | 'env' | 'shard' | 'changedSince'>): Promise<Fleet> {
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  if (options.shard !== undefined && shard === undefined) throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N ≤ 1000 (e.g. 2/8), not "${options.shard}"`);
  const changed = options.changedSince === undefined ? undefined : await changedFilesSince(options.changedSince, options.root, options.env);
  const selection = await selectStacks(options.root, { shard, changed }, options.env);
  const selected = new Set(selection.selected.map((s) => s.listed.path));
  // References may read stacks outside the selection: the whole fleet is known to check them.
  const whole = shard === undefined && changed === undefined ? selection : await selectStacks(options.root, {}, options.env);
  return { stacks: fleetOrder(whole.selected.map(toFleetMember)).filter((s) => selected.has(s.path)) };
}

/** One connection per platform a sweep talks to: one client (one request limit, one retry quota), one page cache. */
interface SweepConnection {
  api: ApiClient;
  ctx: ProviderContext;
}

/**
 * Plans every stack of the fleet in one process (`plan|drift --stacks`): stacks that talk to the
 * same platform share one client (one request limit, one retry quota, one outage breaker) and one
 * page cache, and the blocks found by ownership tags are found in the list filtered by the
 * ownership tag key only (ProviderContext.sharedOwnerLists), so a list of a kind in a place is
 * read once for the whole sweep and each stack picks its own items. A stack is planned once the
 * stacks it reads (`${stack:...}`) are, so their plans say what those references will read.
 * Each stack's result goes to `onStack` as soon as it is known (an invalid stack first, before
 * any request); one stack's failure never stops the others (an interrupt stops the sweep).
 */
export async function sweepStacks(fleet: Fleet, options: SweepOptions, onStack: (result: SweptStack) => void): Promise<void> {
  const connections = new Map<string, SweepConnection>();
  const secrets = fleet.stacks.flatMap((s) => (s.stack ? sensitiveValues(s.stack.resources, withSensitiveFiles(options.env, s.stack)) : []));
  options.protect?.(secrets);
  const total = fleet.stacks.length;
  let done = 0;
  const finish = (result: SweptStack) => {
    done++;
    options.reporter?.reading(done, total, 'stacks');
    if (done === total) options.reporter?.finish();
    onStack(result);
  };
  const planned = new Map<string, Plan>();
  const reads = new Map<string, ReadonlyMap<string, ReadResult>>();
  const foreign = foreignReader(fleet.stacks, { policy: 'plan', planOf: (name) => planned.get(name), readsOf: (name) => reads.get(name) });
  const connectionOf = (stack: Stack): SweepConnection => {
    const baseUrl = resolveBaseUrl({ env: options.env, stackBaseUrl: stack.provider.base_url });
    let connection = connections.get(baseUrl);
    if (connection === undefined) {
      const { api, ctx } = connect(baseUrl, { ...options, secrets });
      connection = { api, ctx: { ...ctx, readOnce: createReadOnce(), sharedOwnerLists: true } };
      connections.set(baseUrl, connection);
    }
    return connection;
  };
  const limit = pLimit(STACKS_AT_ONCE);
  const waits = new Map<string, Promise<void>>();
  const planOne = async (item: FleetStack): Promise<void> => {
    const identity = { path: item.path, name: item.name };
    if (!item.valid || item.stack === undefined || hasErrors(item.diagnostics)) {
      finish({ ...identity, kind: 'invalid', diagnostics: item.diagnostics, files: item.files });
      return;
    }
    // The stacks it reads are planned first (their plans say what its references will read).
    await Promise.all(item.reads.map((name) => waits.get(name)));
    await limit(async () => {
      options.signal.throwIfAborted();
      const stack = must(item.stack, 'item.stack');
      try {
        const { api, ctx } = connectionOf(stack);
        const plan = await readAndPlanStack(ctx, stack, {
          parallelism: options.parallelism,
          baseUrl: api.baseUrl,
          diagnostics: item.diagnostics,
          foreign,
          ...(options.assess ? { assess: options.assess } : {}),
          ...(stack.name === undefined ? {} : { keepReads: (r: ReadonlyMap<string, ReadResult>) => reads.set(must(stack.name, 'stack.name'), r) }),
        });
        if (stack.name !== undefined) planned.set(stack.name, plan);
        finish({ ...identity, kind: 'planned', plan, files: item.files });
      } catch (error) {
        if (options.signal.aborted) throw error;
        finish({ ...identity, kind: 'failed', failure: describeRunFailure(error, false) });
      }
    });
  };
  try {
    // Dependency order: every stack's wait is registered before any starts (fleetOrder put readers after what they read).
    for (const item of fleet.stacks) {
      const wait = planOne(item);
      if (item.name !== null)
        waits.set(
          item.name,
          wait.catch(() => {}),
        );
      waits.set(`path:${item.path}`, wait);
    }
    await Promise.all(fleet.stacks.map((item) => waits.get(`path:${item.path}`)));
  } finally {
    await Promise.all([...connections.values()].map((c) => c.api.close()));
  }
}
