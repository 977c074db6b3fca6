import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGraph, findCycles, topologicalOrder, transitiveDependants, type DependencyGraph } from '../../../src/model/graph.js';

const g = (spec: Record<string, string[]>) => buildGraph(Object.entries(spec).map(([address, dependsOn]) => ({ address, dependsOn })));

describe('dependency graph', () => {
  it('orders every node after its dependencies, keeping declaration order among ready nodes', () => {
    const graph = g({ c: ['a'], a: [], b: [], d: ['c', 'b'] });
    expect(topologicalOrder(graph)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('keeps declaration order when nothing depends on anything', () => {
    expect(topologicalOrder(g({ z: [], y: [], x: [] }))).toEqual(['z', 'y', 'x']);
  });

  it('finds a two-node cycle as a closed path from the first declared node', () => {
    expect(findCycles(g({ a: ['b'], b: ['a'], c: [] }))).toEqual([['a', 'b', 'a']]);
  });

  it('finds a three-node cycle and a self-loop separately', () => {
    const cycles = findCycles(g({ s: ['s'], a: ['c'], b: ['a'], c: ['b'] }));
    expect(cycles).toEqual([
      ['s', 's'],
      ['a', 'c', 'b', 'a'],
    ]);
  });

  it('finds no cycle in a diamond', () => {
    expect(findCycles(g({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'] }))).toEqual([]);
  });

  it('refuses to order a cyclic graph, naming the cycle', () => {
    expect(() => topologicalOrder(g({ a: ['b'], b: ['a'] }))).toThrow('a -> b -> a');
  });

  it('ignores dependencies on unknown nodes (validation reports them)', () => {
    expect(topologicalOrder(g({ a: ['ghost'] }))).toEqual(['a']);
  });

  it('lists transitive dependants in topological order', () => {
    const graph = g({ a: [], b: ['a'], c: ['b'], d: [], e: ['a', 'd'] });
    expect(transitiveDependants(graph, 'a')).toEqual(['b', 'c', 'e']);
    expect(transitiveDependants(graph, 'c')).toEqual([]);
  });

  it('handles a long chain without recursion limits', () => {
    const spec: Record<string, string[]> = {};
    for (let i = 0; i < 20_000; i++) spec[`n${i}`] = i === 0 ? [] : [`n${i - 1}`];
    expect(topologicalOrder(g(spec)).length).toBe(20_000);
    expect(findCycles(g(spec))).toEqual([]);
  });

  it('among five and more nodes ready at once, takes them in declaration order, whatever order they became ready in', () => {
    // z waits for everything; a..f become ready in the reverse of their declaration order.
    const graph = g({ z: ['a', 'b', 'c', 'd', 'e', 'f'], f: ['r'], e: ['f'], d: ['e'], c: ['d'], b: ['c'], a: ['b'], r: [] });
    expect(topologicalOrder(graph)).toEqual(['r', 'f', 'e', 'd', 'c', 'b', 'a', 'z']);
    // Six roots released together by one node, declared after what they release.
    const fan = g({ n1: ['gate'], n2: ['gate'], n3: ['gate'], n4: ['gate'], n5: ['gate'], n6: ['gate'], late: [], gate: [] });
    expect(topologicalOrder(fan)).toEqual(['late', 'gate', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
  });

  it('orders any acyclic graph as "the earliest-declared node whose dependencies are all placed, next"', () => {
    // The contract, written the slow obvious way: O(n²), no heap.
    const byDefinition = (graph: DependencyGraph): string[] => {
      const placed = new Set<string>();
      const out: string[] = [];
      while (out.length < graph.nodes.length) {
        const next = graph.nodes.find((n) => !placed.has(n) && graph.dependencies.get(n)!.every((d) => placed.has(d)))!;
        placed.add(next);
        out.push(next);
      }
      return out;
    };
    fc.assert(
      fc.property(acyclicGraph, (graph) => {
        expect(topologicalOrder(graph)).toEqual(byDefinition(graph));
        expect(findCycles(graph)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('finds no cycle in a diamond declared in any order (a node reached twice is not a cycle)', () => {
    expect(findCycles(g({ d: ['b', 'c'], b: ['a'], c: ['a'], a: [] }))).toEqual([]);
    expect(findCycles(g({ top: ['left', 'right'], left: ['base'], right: ['base'], base: [] }))).toEqual([]);
    expect(findCycles(g({ a: ['b', 'c'], c: ['d'], b: ['d'], d: [] }))).toEqual([]);
  });

  it('reports each cycle once, however many nodes lead into it', () => {
    expect(findCycles(g({ a: ['s'], s: ['s'] }))).toEqual([['s', 's']]);
    expect(findCycles(g({ a: ['b'], c: ['b'], b: ['d'], d: ['b'] }))).toEqual([['b', 'd', 'b']]);
  });

  it('lists cycles in the declaration order of their first nodes, whatever order the search closes them in', () => {
    // The a-b cycle depends on the c-d cycle, so the search closes c-d first.
    expect(findCycles(g({ a: ['b'], b: ['a', 'c'], c: ['d'], d: ['c'] }))).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'c'],
    ]);
  });

  it('names the shortest cycle back to the first-declared node of a tangle', () => {
    expect(findCycles(g({ a: ['b', 'c'], b: ['c'], c: ['a'] }))).toEqual([['a', 'c', 'a']]);
  });

  it('gives every cycle as a closed walk along real edges, each a set of nodes that really reach each other', () => {
    fc.assert(
      fc.property(acyclicGraph, fc.nat(), fc.nat(), (dag, i, j) => {
        // Adding one edge from an earlier-placed node to a later one closes exactly one cycle (or none).
        const order = topologicalOrder(dag);
        const from = order[i % order.length]!;
        const to = order[j % order.length]!;
        const spec = dag.nodes.map((n) => ({ address: n, dependsOn: n === from ? [...dag.dependencies.get(n)!, to] : dag.dependencies.get(n)! }));
        const graph = buildGraph(spec);
        const cycles = findCycles(graph);
        const closes = from === to || transitiveDependants(dag, from).includes(to);
        expect(cycles.length).toBe(closes ? 1 : 0);
        for (const cycle of cycles) {
          expect(cycle[0]).toBe(cycle.at(-1));
          for (let k = 0; k + 1 < cycle.length; k++) expect(graph.dependencies.get(cycle[k]!)).toContain(cycle[k + 1]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes a node the maps do not list as one without edges', () => {
    const graph: DependencyGraph = { nodes: ['a', 'b'], dependencies: new Map(), dependants: new Map() };
    expect(topologicalOrder(graph)).toEqual(['a', 'b']);
    expect(findCycles(graph)).toEqual([]);
    expect(transitiveDependants(graph, 'a')).toEqual([]);
    const half: DependencyGraph = { nodes: ['a', 'b'], dependencies: new Map([['b', ['a']]]), dependants: new Map([['a', ['b']]]) };
    expect(topologicalOrder(half)).toEqual(['a', 'b']);
    expect(findCycles(half)).toEqual([]);
    expect(transitiveDependants(half, 'a')).toEqual(['b']);
  });

  it('finds no dependants of a node nothing depends on, whatever the rest of the graph holds', () => {
    expect(transitiveDependants(g({ leaf: [], x: ['y'], y: ['x'] }), 'leaf')).toEqual([]);
  });

  it('lists each transitive dependant once, also one reached along two paths', () => {
    const graph = g({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'], e: ['d'] });
    expect(transitiveDependants(graph, 'a')).toEqual(['b', 'c', 'd', 'e']);
  });
});

/** A random acyclic graph of up to 12 nodes in a random declaration order: each node depends only on nodes of a hidden earlier rank. */
const acyclicGraph = fc
  .integer({ min: 1, max: 12 })
  .chain((n) =>
    fc.record({
      declared: fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
      edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
    }),
  )
  .map(({ declared, edges }) => {
    const deps = new Map(declared.map((rank) => [rank, new Set<number>()]));
    for (const [x, y] of edges) if (x !== y) deps.get(Math.max(x, y))!.add(Math.min(x, y));
    return buildGraph(declared.map((rank) => ({ address: `n${rank}`, dependsOn: [...deps.get(rank)!].map((d) => `n${d}`) })));
  });
