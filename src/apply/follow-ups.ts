import { RunFatalError } from '../errors.js';
import { buildGraph, type DependencyGraph } from '../model/graph.js';
import type { ResourceChange } from '../plan/types.js';
import type { ProviderContext, ProviderRegistry } from '../kinds/provider.js';
import type { FollowUpOutcome, ResourceOutcome } from './outcome.js';

/** What the executor hands its follow-ups once its walk is over. */
export interface FollowUpRun {
  changes: readonly ResourceChange[];
  providers: ProviderRegistry['resources'];
  ctx: ProviderContext;
  /** Each change's outcome, by address. */
  outcomes: ReadonlyMap<string, ResourceOutcome>;
  /** A change's desired attributes as it ran (references resolved); absent for one that did not run. */
  desired(address: string): Record<string, unknown> | undefined;
  /** The state a change left its resource in (its last read); absent for one that sent nothing. */
  state(address: string): Readonly<Record<string, unknown>> | undefined;
  /** True once the run stopped (an interrupt, a run-fatal error): no follow-up starts then. */
  stopped(): boolean;
  onRunError(error: RunFatalError): void;
  onStart?(change: ResourceChange): void;
  onProgress?(change: ResourceChange, message: string): void;
  onFinish?(change: ResourceChange, outcome: FollowUpOutcome): void;
}

/**
 * Runs the follow-ups of an apply's changes (ResourceChange.follow_up: a CDN purge) once every
 * change has ended, one at a time in plan order (a kind's follow-ups of one resource then never
 * race each other). A follow-up runs only when every change its block depends on, or that
 * depends on its block, directly or through others, ended applied or unchanged: it comes after
 * all of them, and a failure among them skips it (naming that change), so the next apply plans
 * it again. Nothing starts once the run stopped. Never throws: failures are outcomes.
 */
export async function runFollowUps(run: FollowUpRun): Promise<FollowUpOutcome[]> {
  const due = run.changes.filter((c) => c.follow_up !== undefined);
  if (due.length === 0) return [];
  const graph = buildGraph(run.changes.map((c) => ({ address: c.address, dependsOn: c.depends_on })));
  const outcomes: FollowUpOutcome[] = [];
  for (const change of due) {
    const step = change.follow_up!.step;
    const finish = (outcome: FollowUpOutcome) => {
      outcomes.push(outcome);
      run.onFinish?.(change, outcome);
    };
    const blocker = blockerOf(change.address, graph, run.outcomes);
    if (blocker !== undefined) {
      finish({ address: change.address, step, status: 'skipped', skippedBecause: blocker });
      continue;
    }
    if (run.stopped()) {
      finish({ address: change.address, step, status: 'not-started' });
      continue;
    }
    run.onStart?.(change);
    const started = Date.now();
    const ctx: ProviderContext = { ...run.ctx, progress: (message) => run.onProgress?.(change, message) };
    try {
      await runFollowUp(run.providers, change, ctx, run.desired(change.address), run.state(change.address));
      finish({ address: change.address, step, status: 'applied', elapsedMs: Date.now() - started });
    } catch (error) {
      if (error instanceof RunFatalError) run.onRunError(error);
      finish({ address: change.address, step, status: 'failed', error: error instanceof Error ? error.message : String(error), elapsedMs: Date.now() - started });
    }
  }
  return outcomes;
}

/** The first change around `address` (itself, what it depends on, what depends on it) that did not end applied or unchanged. */
function blockerOf(address: string, graph: DependencyGraph, outcomes: ReadonlyMap<string, ResourceOutcome>): string | undefined {
  for (const related of [address, ...reachable(graph.dependencies, address), ...reachable(graph.dependants, address)]) {
    const outcome = outcomes.get(related);
    // A check (or anything else the plan has no change for) has no outcome of its own.
    if (outcome === undefined) continue;
    if (outcome.status !== 'applied' && outcome.status !== 'unchanged') return outcome.skippedBecause ?? related;
  }
  return undefined;
}

/** Every node reachable from `address` along `edges`. */
function reachable(edges: ReadonlyMap<string, readonly string[]>, address: string): string[] {
  const seen = new Set<string>([address]);
  const found: string[] = [];
  for (let at = 0, queue = [address]; at < queue.length; at++) {
    for (const next of edges.get(queue[at]!) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      found.push(next);
      queue.push(next);
    }
  }
  return found;
}

/** Runs one change's follow-up through its own kind's provider. */
async function runFollowUp<K extends ResourceChange['type']>(
  providers: ProviderRegistry['resources'],
  change: ResourceChange<K>,
  ctx: ProviderContext,
  desired: Record<string, unknown> | undefined,
  state: Readonly<Record<string, unknown>> | undefined,
): Promise<void> {
  const followUp = providers[change.type].followUp;
  if (followUp === undefined) throw new Error(`${change.address}: a ${change.type} has no follow-up step, but the plan carries one`);
  await followUp.run(ctx, { desired: (desired ?? change.desired) as ResourceChange<K>['desired'], ...(state === undefined ? {} : { state }), followUp: change.follow_up! });
}
