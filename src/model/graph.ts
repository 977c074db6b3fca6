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

/** Every node that depends, directly or through others, on one of `sources` (one breadth-first walk for all of them). */
export function reachedFrom(graph: DependencyGraph, sources: readonly string[]): Set<string> {
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
