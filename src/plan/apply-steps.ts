import { buildGraph, reachedFrom } from '../model/graph.js';
import type { ResourceChange } from './types.js';

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
