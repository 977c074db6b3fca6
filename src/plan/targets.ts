import { distance } from 'fastest-levenshtein';
import type { Diagnostic } from '../config/diagnostics.js';
import type { Stack } from '../config/types.js';
import { buildGraph } from './graph.js';

/**
 * The addresses a `--target` run covers: each target and everything it depends on,
 * transitively (as Terraform does). No targets means every block. Unknown targets are
 * errors with a did-you-mean, reported before anything is read.
 */
export function selectTargets(stack: Stack, targets: readonly string[]): { selected: Set<string>; diagnostics: Diagnostic[] } {
  const blocks = [...stack.resources, ...stack.checks];
  const all = blocks.map((b) => b.address);
  if (targets.length === 0) return { selected: new Set(all), diagnostics: [] };
  const graph = buildGraph(blocks);
  const diagnostics: Diagnostic[] = [];
  const selected = new Set<string>();
  for (const target of targets) {
    if (!graph.dependencies.has(target)) {
      const suggestion = all.map((a) => ({ a, d: distance(a, target) })).sort((x, y) => x.d - y.d)[0];
      diagnostics.push({
        severity: 'error',
        code: 'unknown-target',
        summary: `--target ${target}: no resource or check with this address in the stack`,
        detail: suggestion && suggestion.d <= Math.max(3, target.length / 3) ? `Did you mean "${suggestion.a}"?` : undefined,
        address: target,
      });
      continue;
    }
    const queue = [target];
    while (queue.length > 0) {
      const node = queue.pop()!;
      if (selected.has(node)) continue;
      selected.add(node);
      queue.push(...(graph.dependencies.get(node) ?? []));
    }
  }
  return { selected, diagnostics };
}
