/**
 * The executor's dependency walk: which changes may be decided now and in what order, and what
 * a finished change releases. Bookkeeping only, no I/O; what a change does lives in the
 * executor.
 *
 * Checks are nodes of the graph too: never executed, they gate their dependants with the result
 * the plan evaluated (a check that did not pass is a root cause, like a failure). A node's state
 * is 'ok' (done and good), 'pending', or the root cause of why it never will be; a change may be
 * decided once what it depends on is all 'ok', or as soon as one of it has a root cause.
 *
 * Changes are taken in passes, as a scan of the plan in declaration order would take them: a
 * pass hands out the ready changes by increasing position, and a change that becomes ready
 * during a pass behind the position the pass has reached waits for the next pass. Each change is
 * queued once, each dependency edge is followed once (when its source stops being pending), and
 * the queue is a binary heap: a walk costs O((N + E) log N) however the work completes, where a
 * scan of every change after each completion cost O(N²).
 */
import TinyQueue from 'tinyqueue';
import { applyEdges, buildGraph, transitiveDependants, type DependencyGraph } from '../plan/graph.js';
import type { CheckResult, Plan, ResourceChange } from '../plan/types.js';
import type { ResourceOutcome } from './outcome.js';

/** Where a node of the walk stands: done and good, not yet, or never (naming the root cause). */
export type NodeState = 'ok' | 'pending' | { rootCause: string };

/** The dependency walk of one apply (see the module comment). */
export interface ApplyWalk {
  /** Every outcome recorded so far, by address. */
  readonly outcomes: ReadonlyMap<string, ResourceOutcome>;
  /** Starts a pass: the changes that became ready behind the last pass's position join this one. */
  startPass(): void;
  /** The next change of this pass that is ready to decide, by declaration order; undefined when none is left. */
  nextReady(): ResourceChange | undefined;
  /** The state of what a node depends on: 'ok' when all of it is, else the first root cause in dependency order, else 'pending'. */
  dependenciesState(address: string): NodeState;
  /**
   * Marks a no-op that is reported unchanged although something it depends on will never be
   * done: its dependants see `rootCause` as theirs. Called before its outcome is recorded.
   */
  gate(address: string, rootCause: string): void;
  /** Records a change's outcome and releases its dependants (the changes that wait for it may become ready). */
  record(address: string, outcome: ResourceOutcome): void;
  /** The changes that depend on `address` directly or through others and have no outcome yet, in topological order. */
  undecidedDependants(address: string): ResourceChange[];
}

/** Builds the walk of a plan: its changes and checks, with the edges apply follows (applyEdges). */
export function createApplyWalk(plan: Plan): ApplyWalk {
  const changes = new Map(plan.resource_changes.map((c) => [c.address, c]));
  const position = new Map(plan.resource_changes.map((c, i) => [c.address, i]));
  const checks = new Map(plan.checks.map((c) => [c.address, c]));
  const graph = buildGraph([...applyEdges(plan.resource_changes), ...plan.checks.map((n) => ({ address: n.address, dependsOn: n.depends_on }))]);
  const outcomes = new Map<string, ResourceOutcome>();
  const gatedNoOps = new Map<string, string>();
  const counts = countDependencies(graph);
  const ready = new TinyQueue<number>();
  const queued = new Set<string>();
  /** Changes that became ready during a pass behind its position: the next pass takes them. */
  let deferred: number[] = [];
  /** The position the current (or the last) pass has reached. */
  let reached = -1;

  const stateOf = (address: string): NodeState => {
    const check = checks.get(address);
    if (check) return checkState(check);
    const o = outcomes.get(address);
    if (o === undefined) return 'pending';
    if (o.status === 'applied' || o.status === 'unchanged') {
      const rootCause = gatedNoOps.get(address);
      return rootCause === undefined ? 'ok' : { rootCause };
    }
    return { rootCause: o.skippedBecause ?? address };
  };
  const checkState = (check: CheckResult): NodeState => (check.status !== 'pass' ? { rootCause: check.address } : dependenciesState(check.address));
  const dependenciesState = (address: string): NodeState => {
    let pending = false;
    for (const dep of graph.dependencies.get(address) ?? []) {
      const state = stateOf(dep);
      if (typeof state === 'object') return state;
      if (state === 'pending') pending = true;
    }
    return pending ? 'pending' : 'ok';
  };

  /** Queues a change whose dependencies no longer keep it waiting. */
  const enqueue = (address: string): void => {
    const at = position.get(address);
    if (at === undefined || queued.has(address) || outcomes.has(address)) return;
    queued.add(address);
    if (at < reached) deferred.push(at);
    else ready.push(at);
  };

  /**
   * A node stopped being pending (`gated`: with a root cause): each dependant has one pending
   * dependency less, and one with a root cause more. A check among them may stop being pending
   * in turn (worked through without recursion, for long chains of checks).
   */
  const release = (address: string, gated: boolean): void => {
    const work: Array<[string, boolean]> = [[address, gated]];
    for (let item = work.pop(); item !== undefined; item = work.pop()) {
      const [from, fromGated] = item;
      for (const dependant of graph.dependants.get(from) ?? []) {
        const count = counts.get(dependant)!;
        const wasWaiting = count.pending > 0 && count.gated === 0;
        count.pending -= 1;
        if (fromGated) count.gated += 1;
        if (!wasWaiting || (count.pending > 0 && count.gated === 0)) continue;
        const check = checks.get(dependant);
        if (check === undefined) enqueue(dependant);
        else if (check.status === 'pass') work.push([dependant, count.gated > 0]);
      }
    }
  };

  // What is not pending from the start: checks that did not pass (root causes), and passing
  // checks with nothing to wait for.
  for (const check of plan.checks) {
    const count = counts.get(check.address)!;
    if (check.status !== 'pass') release(check.address, true);
    else if (count.pending === 0) release(check.address, false);
  }
  for (const change of plan.resource_changes) {
    const count = counts.get(change.address)!;
    if (count.pending === 0 || count.gated > 0) enqueue(change.address);
  }

  return {
    outcomes,
    startPass() {
      for (const at of deferred) ready.push(at);
      deferred = [];
      reached = -1;
    },
    nextReady() {
      for (let at = ready.pop(); at !== undefined; at = ready.pop()) {
        reached = at;
        const change = plan.resource_changes[at]!;
        // Skipped since it was queued (a dependency failed).
        if (!outcomes.has(change.address)) return change;
      }
      return undefined;
    },
    dependenciesState,
    gate(address, rootCause) {
      gatedNoOps.set(address, rootCause);
    },
    record(address, outcome) {
      const first = !outcomes.has(address);
      outcomes.set(address, outcome);
      if (first) release(address, typeof stateOf(address) === 'object');
    },
    undecidedDependants(address) {
      const found: ResourceChange[] = [];
      for (const dependant of transitiveDependants(graph, address)) {
        const change = changes.get(dependant);
        if (change && !outcomes.has(dependant)) found.push(change);
      }
      return found;
    },
  };
}

/** Per node: its dependencies still pending, and those with a root cause (none yet). */
function countDependencies(graph: DependencyGraph): Map<string, { pending: number; gated: number }> {
  const counts = new Map<string, { pending: number; gated: number }>();
  for (const node of graph.nodes) counts.set(node, { pending: graph.dependencies.get(node)?.length ?? 0, gated: 0 });
  return counts;
}
