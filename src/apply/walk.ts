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

/** Builds the walk of a plan: its changes and checks, with the edges apply follows (applyEdges). */
export function createApplyWalk(plan: Plan): ApplyWalk {
  return new Walk(plan);
}

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

/** Per node of the graph: its dependencies still pending, and those with a root cause. */
interface Waiting {
  pending: number;
  gated: number;
}

class Walk implements ApplyWalk {
  readonly outcomes = new Map<string, ResourceOutcome>();
  private readonly changes: ReadonlyMap<string, ResourceChange>;
  private readonly position: ReadonlyMap<string, number>;
  private readonly checks: ReadonlyMap<string, CheckResult>;
  private readonly graph: DependencyGraph;
  private readonly gatedNoOps = new Map<string, string>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly ready = new TinyQueue<number>();
  private readonly queued = new Set<string>();
  /** Changes that became ready during a pass behind its position: the next pass takes them. */
  private deferred: number[] = [];
  /** The position the current (or the last) pass has reached. */
  private reached = -1;

  constructor(private readonly plan: Plan) {
    this.changes = new Map(plan.resource_changes.map((c) => [c.address, c]));
    this.position = new Map(plan.resource_changes.map((c, i) => [c.address, i]));
    this.checks = new Map(plan.checks.map((c) => [c.address, c]));
    this.graph = buildGraph([...applyEdges(plan.resource_changes), ...plan.checks.map((n) => ({ address: n.address, dependsOn: n.depends_on }))]);
    for (const node of this.graph.nodes) this.waiting.set(node, { pending: this.graph.dependencies.get(node)?.length ?? 0, gated: 0 });
    // What is not pending from the start: checks that did not pass (root causes), and passing
    // checks with nothing to wait for; then every change with nothing to wait for is ready.
    for (const check of plan.checks) {
      if (check.status !== 'pass') this.release(check.address, true);
      else if (this.waiting.get(check.address)!.pending === 0) this.release(check.address, false);
    }
    for (const change of plan.resource_changes) {
      const waiting = this.waiting.get(change.address)!;
      if (waiting.pending === 0 || waiting.gated > 0) this.enqueue(change.address);
    }
  }

  startPass(): void {
    for (const at of this.deferred) this.ready.push(at);
    this.deferred = [];
    this.reached = -1;
  }

  nextReady(): ResourceChange | undefined {
    for (let at = this.ready.pop(); at !== undefined; at = this.ready.pop()) {
      this.reached = at;
      const change = this.plan.resource_changes[at]!;
      // Skipped since it was queued (a dependency failed).
      if (!this.outcomes.has(change.address)) return change;
    }
    return undefined;
  }

  dependenciesState(address: string): NodeState {
    let pending = false;
    for (const dep of this.graph.dependencies.get(address) ?? []) {
      const state = this.stateOf(dep);
      if (typeof state === 'object') return state;
      if (state === 'pending') pending = true;
    }
    return pending ? 'pending' : 'ok';
  }

  gate(address: string, rootCause: string): void {
    this.gatedNoOps.set(address, rootCause);
  }

  record(address: string, outcome: ResourceOutcome): void {
    const first = !this.outcomes.has(address);
    this.outcomes.set(address, outcome);
    if (first) this.release(address, typeof this.stateOf(address) === 'object');
  }

  undecidedDependants(address: string): ResourceChange[] {
    const found: ResourceChange[] = [];
    for (const dependant of transitiveDependants(this.graph, address)) {
      const change = this.changes.get(dependant);
      if (change && !this.outcomes.has(dependant)) found.push(change);
    }
    return found;
  }

  /** A node's state: a check's is the plan's result, then its dependencies'; a change's is its outcome's. */
  private stateOf(address: string): NodeState {
    const check = this.checks.get(address);
    if (check) return check.status !== 'pass' ? { rootCause: check.address } : this.dependenciesState(check.address);
    const o = this.outcomes.get(address);
    if (o === undefined) return 'pending';
    if (o.status === 'applied' || o.status === 'unchanged') {
      const rootCause = this.gatedNoOps.get(address);
      return rootCause === undefined ? 'ok' : { rootCause };
    }
    return { rootCause: o.skippedBecause ?? address };
  }

  /** Queues a change whose dependencies no longer keep it waiting: in this pass if it lies ahead of it, else in the next. */
  private enqueue(address: string): void {
    const at = this.position.get(address);
    if (at === undefined || this.queued.has(address) || this.outcomes.has(address)) return;
    this.queued.add(address);
    if (at < this.reached) this.deferred.push(at);
    else this.ready.push(at);
  }

  /**
   * A node stopped being pending (`gated`: with a root cause): each dependant has one pending
   * dependency less, and one with a root cause more. A change that no longer waits is queued; a
   * passing check that no longer waits stops being pending in turn (worked through without
   * recursion, for long chains of checks).
   */
  private release(address: string, gated: boolean): void {
    const work: Array<[string, boolean]> = [[address, gated]];
    for (let item = work.pop(); item !== undefined; item = work.pop()) {
      const [from, fromGated] = item;
      for (const dependant of this.graph.dependants.get(from) ?? []) {
        const waiting = this.waiting.get(dependant)!;
        const wasWaiting = waiting.pending > 0 && waiting.gated === 0;
        waiting.pending -= 1;
        if (fromGated) waiting.gated += 1;
        if (!wasWaiting || (waiting.pending > 0 && waiting.gated === 0)) continue;
        const check = this.checks.get(dependant);
        if (check === undefined) this.enqueue(dependant);
        else if (check.status === 'pass') work.push([dependant, waiting.gated > 0]);
      }
    }
  }
}
