/**
 * The executor's dependency walk: which steps may be decided now and in what order, and what
 * a finished step releases. A step is a whole change, or one half of a replace (its destroy, its
 * create: see applySteps in src/plan/apply-steps.ts). Bookkeeping only, no I/O; what a step does lives
 * in the executor.
 *
 * Checks are nodes of the graph too: never executed, they gate their dependants with the result
 * the plan evaluated (a check that did not pass is a root cause, like a failure). A node's state
 * is 'ok' (done and good), 'pending', or the root cause of why it never will be (an address); a
 * step may be decided once what it depends on is all 'ok', or as soon as one of it has a root cause.
 *
 * Steps are taken in passes, as a scan of the plan in declaration order would take them (a
 * replace's destroy before its create): a pass hands out the ready steps by increasing position,
 * and a step that becomes ready during a pass behind the position the pass has reached waits for
 * the next pass. Each step is
 * queued once, each dependency edge is followed once (when its source stops being pending), and
 * the queue is a binary heap: a walk costs O((N + E) log N) however the work completes, where a
 * scan of every change after each completion cost O(N²).
 */
import TinyQueue from 'tinyqueue';
import { applySteps, type StepPhase } from '../plan/apply-steps.js';
import { buildGraph, transitiveDependants, type DependencyGraph } from '../model/graph.js';
import type { CheckResult, Plan, ResourceChange } from '../plan/types.js';
import type { ResourceOutcome } from './outcome.js';

/** Where a node of the walk stands: done and good, not yet, or never (naming the root cause). */
export type NodeState = 'ok' | 'pending' | { rootCause: string };

/** Builds the walk of a plan: its steps and checks, with the edges apply follows (applySteps). */
export function createApplyWalk(plan: Plan): ApplyWalk {
  return new Walk(plan);
}

/** A step of the walk with its change (see ApplyStep). */
export interface WalkStep {
  key: string;
  phase: StepPhase;
  change: ResourceChange;
}

/** The dependency walk of one apply (see the module comment). Steps are named by their key (ApplyStep.key). */
export interface ApplyWalk {
  /** Every outcome recorded so far, by step key. */
  readonly outcomes: ReadonlyMap<string, ResourceOutcome>;
  /** The steps of one change, in order: the change itself, or a replace's destroy and create. */
  stepsOf(address: string): readonly WalkStep[];
  /** Starts a pass: the steps that became ready behind the last pass's position join this one. */
  startPass(): void;
  /** The next step of this pass that is ready to decide, by declaration order; undefined when none is left. */
  nextReady(): WalkStep | undefined;
  /** The state of what a step depends on: 'ok' when all of it is, else the first root cause in dependency order, else 'pending'. */
  dependenciesState(key: string): NodeState;
  /**
   * Marks a no-op that is reported unchanged although something it depends on will never be
   * done: its dependants see `rootCause` as theirs. Called before its outcome is recorded.
   */
  gate(key: string, rootCause: string): void;
  /** Records a step's outcome and releases its dependants (the steps that wait for it may become ready). */
  record(key: string, outcome: ResourceOutcome): void;
  /** The steps that depend on `key` directly or through others and have no outcome yet, in topological order. */
  undecidedDependants(key: string): WalkStep[];
}

/** Per node of the graph: its dependencies still pending, and those with a root cause. */
interface Waiting {
  pending: number;
  gated: number;
}

class Walk implements ApplyWalk {
  readonly outcomes = new Map<string, ResourceOutcome>();
  private readonly steps: readonly WalkStep[];
  private readonly byKey: ReadonlyMap<string, WalkStep>;
  private readonly byAddress = new Map<string, WalkStep[]>();
  private readonly position: ReadonlyMap<string, number>;
  private readonly checks: ReadonlyMap<string, Pick<CheckResult, 'address' | 'status' | 'depends_on'>>;
  private readonly graph: DependencyGraph;
  private readonly gatedNoOps = new Map<string, string>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly ready = new TinyQueue<number>();
  private readonly queued = new Set<string>();
  /** Changes that became ready during a pass behind its position: the next pass takes them. */
  private deferred: number[] = [];
  /** The position the current (or the last) pass has reached. */
  private reached = -1;

  constructor(plan: Plan) {
    const { steps: planned, gates } = applySteps(plan.resource_changes, plan.checks);
    const changes = new Map(plan.resource_changes.map((c) => [c.address, c]));
    this.steps = planned.map((s) => ({ key: s.key, phase: s.phase, change: changes.get(s.address)! }));
    for (const step of this.steps) {
      const steps = this.byAddress.get(step.change.address);
      if (steps) steps.push(step);
      else this.byAddress.set(step.change.address, [step]);
    }
    this.byKey = new Map(this.steps.map((s) => [s.key, s]));
    this.position = new Map(this.steps.map((s, i) => [s.key, i]));
    // A gate is a check that always passes: it is done when what it depends on is.
    const checks = [...plan.checks, ...gates.map((g) => ({ ...g, status: 'pass' as const }))];
    this.checks = new Map(checks.map((c) => [c.address, c]));
    this.graph = buildGraph([...planned.map((s) => ({ address: s.key, dependsOn: s.dependsOn })), ...checks.map((n) => ({ address: n.address, dependsOn: n.depends_on }))]);
    for (const node of this.graph.nodes) this.waiting.set(node, { pending: this.graph.dependencies.get(node)?.length ?? 0, gated: 0 });
    // What is not pending from the start: checks that did not pass (root causes), and passing
    // checks with nothing to wait for; then every change with nothing to wait for is ready.
    for (const check of checks) {
      if (check.status !== 'pass') this.release(check.address, true);
      else if (this.waiting.get(check.address)!.pending === 0) this.release(check.address, false);
    }
    for (const step of this.steps) {
      const waiting = this.waiting.get(step.key)!;
      if (waiting.pending === 0 || waiting.gated > 0) this.enqueue(step.key);
    }
  }

  stepsOf(address: string): readonly WalkStep[] {
    return this.byAddress.get(address) ?? [];
  }

  startPass(): void {
    for (const at of this.deferred) this.ready.push(at);
    this.deferred = [];
    this.reached = -1;
  }

  nextReady(): WalkStep | undefined {
    for (let at = this.ready.pop(); at !== undefined; at = this.ready.pop()) {
      this.reached = at;
      const step = this.steps[at]!;
      // Skipped since it was queued (a dependency failed).
      if (!this.outcomes.has(step.key)) return step;
    }
    return undefined;
  }

  dependenciesState(key: string): NodeState {
    let pending = false;
    for (const dep of this.graph.dependencies.get(key) ?? []) {
      const state = this.stateOf(dep);
      if (typeof state === 'object') return state;
      if (state === 'pending') pending = true;
    }
    return pending ? 'pending' : 'ok';
  }

  gate(key: string, rootCause: string): void {
    this.gatedNoOps.set(key, rootCause);
  }

  record(key: string, outcome: ResourceOutcome): void {
    const first = !this.outcomes.has(key);
    this.outcomes.set(key, outcome);
    if (first) this.release(key, typeof this.stateOf(key) === 'object');
  }

  undecidedDependants(key: string): WalkStep[] {
    const found: WalkStep[] = [];
    for (const dependant of transitiveDependants(this.graph, key)) {
      const step = this.byKey.get(dependant);
      if (step && !this.outcomes.has(dependant)) found.push(step);
    }
    return found;
  }

  /** A node's state: a check's is the plan's result, then its dependencies'; a step's is its outcome's (a root cause names an address). */
  private stateOf(key: string): NodeState {
    const check = this.checks.get(key);
    if (check) return check.status !== 'pass' ? { rootCause: check.address } : this.dependenciesState(check.address);
    const o = this.outcomes.get(key);
    if (o === undefined) return 'pending';
    if (o.status === 'applied' || o.status === 'unchanged') {
      const rootCause = this.gatedNoOps.get(key);
      return rootCause === undefined ? 'ok' : { rootCause };
    }
    return { rootCause: o.skippedBecause ?? o.address };
  }

  /** Queues a step whose dependencies no longer keep it waiting: in this pass if it lies ahead of it, else in the next. */
  private enqueue(key: string): void {
    const at = this.position.get(key);
    if (at === undefined || this.queued.has(key) || this.outcomes.has(key)) return;
    this.queued.add(key);
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
