import { describe, expect, it } from 'vitest';
import { buildGraph, findCycles, topologicalOrder, transitiveDependants } from '../../../src/model/graph.js';

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
});
