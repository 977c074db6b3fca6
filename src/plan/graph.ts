import type { ResourceChange } from './types.js';
/**
 * A dependency graph of addresses: `dependsOn` edges point from a node to the nodes it waits
 * for. Pure; used by validation (cycles), the planner (order) and the executor (walk).
 */
export interface DependencyGraph {
  /** Nodes in declaration order; the tie-breaker for every ordering below. */
  readonly nodes: readonly string[];
  /** node → the nodes it depends on (only nodes of the graph). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
  /** node → the nodes that depend on it directly. */
  readonly dependants: ReadonlyMap<string, readonly string[]>;
}

/**
 * Builds a graph from nodes and their dependencies. Dependencies naming unknown nodes are
 * dropped here (validation reports them); duplicates are folded.
 */
export function buildGraph(entries: Iterable<{ address: string; dependsOn: readonly string[] }>): DependencyGraph {
  const list = [...entries];
  const known = new Set(list.map((e) => e.address));
  const dependencies = new Map<string, string[]>();
  const dependants = new Map<string, string[]>();
  for (const { address } of list) {
    dependencies.set(address, []);
    dependants.set(address, []);
  }
  for (const { address, dependsOn } of list) {
    const deps = dependencies.get(address)!;
    for (const dep of new Set(dependsOn)) {
      if (!known.has(dep)) continue;
      deps.push(dep);
      dependants.get(dep)!.push(address);
    }
  }
  return { nodes: list.map((e) => e.address), dependencies, dependants };
}

/**
 * Every cycle of the graph, one per strongly connected component with more than one node
 * (or a self-loop), each as a closed path `[a, b, ..., a]` starting at its earliest-declared
 * node. Tarjan's algorithm, iterative so deep graphs do not overflow the stack.
 */
export function findCycles(graph: DependencyGraph): string[][] {
  const order = new Map(graph.nodes.map((n, i) => [n, i]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of graph.nodes) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const deps = graph.dependencies.get(frame.node) ?? [];
      if (frame.next < deps.length) {
        const dep = deps[frame.next++]!;
        if (!index.has(dep)) {
          index.set(dep, counter);
          low.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          work.push({ node: dep, next: 0 });
        } else if (onStack.has(dep)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(dep)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = (graph.dependencies.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }

  return components.map((component) => cyclePath(graph, new Set(component), order)).sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/** A closed walk through one strongly connected component, from its earliest-declared node. */
function cyclePath(graph: DependencyGraph, members: Set<string>, order: Map<string, number>): string[] {
  const start = [...members].sort((a, b) => order.get(a)! - order.get(b)!)[0]!;
  // Breadth-first search for the shortest way back to start inside the component.
  const previous = new Map<string, string>();
  const queue = [start];
  for (let next = 0; next < queue.length; next++) {
    const node = queue[next]!;
    for (const dep of graph.dependencies.get(node) ?? []) {
      if (!members.has(dep)) continue;
      if (dep === start) {
        const back = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) back.push(at);
        back.push(start);
        return back.reverse();
      }
      if (!previous.has(dep)) {
        previous.set(dep, node);
        queue.push(dep);
      }
    }
  }
  return [start, start];
}

/**
 * Nodes ordered so every node comes after all of its dependencies; among nodes that are
 * ready at the same time, declaration order wins (stable, so plans read like the stack).
 * Throws if the graph has a cycle: validation rejects cyclic stacks before this is called.
 */
export function topologicalOrder(graph: DependencyGraph): string[] {
  const order = new Map(graph.nodes.map((n, i) => [n, i]));
  const remaining = new Map(graph.nodes.map((n) => [n, (graph.dependencies.get(n) ?? []).length]));
  // Ready nodes by declaration index, smallest first (a binary min-heap: O(n log n) overall).
  const heap: number[] = [];
  const push = (i: number) => {
    heap.push(i);
    for (let c = heap.length - 1; c > 0;) {
      const p = (c - 1) >> 1;
      if (heap[p]! <= heap[c]!) break;
      [heap[p], heap[c]] = [heap[c]!, heap[p]!];
      c = p;
    }
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let p = 0; ;) {
        const l = 2 * p + 1;
        const r = l + 1;
        let m = p;
        if (l < heap.length && heap[l]! < heap[m]!) m = l;
        if (r < heap.length && heap[r]! < heap[m]!) m = r;
        if (m === p) break;
        [heap[p], heap[m]] = [heap[m]!, heap[p]!];
        p = m;
      }
    }
    return top;
  };
  graph.nodes.forEach((n, i) => remaining.get(n) === 0 && push(i));
  const result: string[] = [];
  while (heap.length > 0) {
    const node = graph.nodes[pop()]!;
    result.push(node);
    for (const dependant of graph.dependants.get(node) ?? []) {
      const left = remaining.get(dependant)! - 1;
      remaining.set(dependant, left);
      if (left === 0) push(order.get(dependant)!);
    }
  }
  if (result.length !== graph.nodes.length) {
    const cycle = findCycles(graph)[0] ?? [];
    throw new Error(`dependency cycle: ${cycle.join(' -> ')}`);
  }
  return result;
}

/** Each graph's nodes' positions in topologicalOrder, computed once per graph (see transitiveDependants). */
const topologicalPositions = new WeakMap<DependencyGraph, ReadonlyMap<string, number>>();

/**
 * Every node that depends on `address`, directly or through others, in topological order. Costs
 * what it finds (plus one topological sort per graph): the executor asks for each failure.
 */
export function transitiveDependants(graph: DependencyGraph, address: string): string[] {
  const seen = new Set<string>(graph.dependants.get(address));
  const found = [...seen];
  for (let next = 0; next < found.length; next++) {
    for (const node of graph.dependants.get(found[next]!) ?? []) {
      if (seen.has(node)) continue;
      seen.add(node);
      found.push(node);
    }
  }
  if (found.length === 0) return found;
  let positions = topologicalPositions.get(graph);
  if (!positions) {
    positions = new Map(topologicalOrder(graph).map((node, i) => [node, i]));
    topologicalPositions.set(graph, positions);
  }
  const at = positions;
  return found.sort((a, b) => at.get(a)! - at.get(b)!);
}

/** Which part of its change a step of apply carries out (see ApplyStep). */
export type StepPhase = 'change' | 'destroy' | 'create';

/**
 * One step apply takes: a whole change (`change`), or one half of a replace, which apply runs as
 * two steps as Terraform does: `destroy` (the old resource) and `create` (its replacement).
 * `key` names the step in the walk's graph: the address for a whole change and for a replace's
 * create (what dependants wait for), `ADDRESS#destroy` for a replace's destroy.
 */
export interface ApplyStep {
  key: string;
  address: string;
  phase: StepPhase;
  dependsOn: string[];
}

/** The key of a replace's destroy step (see ApplyStep). */
export const destroyStepKey = (address: string): string => `${address}#destroy`;

/**
 * A node of the walk that is done once every delete prune planned is (see applySteps): prune
 * knows nothing of what a pruned resource used, so a replace's destroy waits for all of them.
 */
export const PRUNED_GATE = '#pruned';

/**
 * The steps apply walks and their dependency edges, Terraform's replacement order. What creates
 * or updates waits for what it depends on (a replaced dependency: for its create). What destroys
 * (a delete, a replace's destroy) waits instead for the destroys of what depends on it: a
 * dependant is destroyed before what it uses, so a chain of replacements destroys its dependants,
 * then its dependency, creates the dependency, then the dependants (a replace's create waits for
 * its own destroy). A replace's destroy waits for nothing else but the checks its block depends
 * on (gates); a delete also waits for what it depends on that no destroy comes before (an update,
 * a create), as it always has; what prune destroys comes before any replace's destroy (through
 * the gate PRUNED_GATE, in `gates`: nodes the walk treats as passing checks). A check has no step
 * of its own: it is a node with its dependencies.
 */
export function applySteps(
  changes: readonly Pick<ResourceChange, 'address' | 'action' | 'depends_on' | 'pruned'>[],
  checks: readonly { address: string; depends_on: readonly string[] }[] = [],
): { steps: ApplyStep[]; gates: Array<{ address: string; depends_on: string[] }> } {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const destroying = (address: string) => {
    const action = byAddress.get(address)?.action;
    return action === 'delete' || action === 'replace';
  };
  const destroyKey = (address: string) => (byAddress.get(address)?.action === 'replace' ? destroyStepKey(address) : address);
  const dependants = new Map<string, string[]>();
  for (const c of changes) {
    for (const dep of new Set(c.depends_on)) {
      const list = dependants.get(dep);
      if (list) list.push(c.address);
      else dependants.set(dep, [c.address]);
    }
  }
  // What waits, through any chain of changes and checks, for something destroyed: a delete never
  // waits for it, or a destroy could wait for a create that waits for that destroy.
  const graph = buildGraph([...changes.map((c) => ({ address: c.address, dependsOn: c.depends_on })), ...checks.map((c) => ({ address: c.address, dependsOn: c.depends_on }))]);
  const afterDestroy = reachedFrom(
    graph,
    changes.filter((c) => destroying(c.address)).map((c) => c.address),
  );
  const reversed = (address: string) => (dependants.get(address) ?? []).filter(destroying).map(destroyKey);
  // What prune destroys is destroyed first: a pruned instance may still use a subnet being replaced.
  const pruned = changes.filter((c) => c.pruned === true && c.action === 'delete').map((c) => c.address);
  const gates = pruned.length > 0 && changes.some((c) => c.action === 'replace') ? [{ address: PRUNED_GATE, depends_on: pruned }] : [];
  const steps: ApplyStep[] = [];
  for (const c of changes) {
    if (c.action === 'delete') {
      const forward = c.depends_on.filter((d) => !destroying(d) && !afterDestroy.has(d));
      steps.push({ key: c.address, address: c.address, phase: 'change', dependsOn: [...forward, ...reversed(c.address)] });
    } else if (c.action === 'replace') {
      const checksOf = c.depends_on.filter((d) => !byAddress.has(d));
      steps.push({ key: destroyStepKey(c.address), address: c.address, phase: 'destroy', dependsOn: [...checksOf, ...reversed(c.address), ...gates.map((g) => g.address)] });
      steps.push({ key: c.address, address: c.address, phase: 'create', dependsOn: [destroyStepKey(c.address), ...c.depends_on] });
    } else {
      steps.push({ key: c.address, address: c.address, phase: 'change', dependsOn: [...c.depends_on] });
    }
  }
  return { steps, gates };
}

/** Every node that depends, directly or through others, on one of `sources` (one breadth-first walk for all of them). */
function reachedFrom(graph: DependencyGraph, sources: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...sources];
  for (let next = 0; next < queue.length; next++) {
    for (const node of graph.dependants.get(queue[next]!) ?? []) {
      if (seen.has(node)) continue;
      seen.add(node);
      queue.push(node);
    }
  }
  return seen;
}
