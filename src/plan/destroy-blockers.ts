import type { Diagnostic } from '../config/diagnostics.js';
import type { Stack } from '../config/types.js';
import { RESOURCE_KINDS, type ResourceType } from '../kinds/registry.js';
import type { DestroyBlocker, OwnedRead, Plan, ReadResult, ResourceChange, ResourcePlanner } from './types.js';

/** The code of a destroy the platform would refuse because something this plan keeps still uses the resource. */
export const DESTROY_BLOCKED = 'destroy-blocked';

/** What is known of the platform's state at plan time: the reads of the stack's blocks and the prune listings. */
export interface DestroyInput {
  reads: ReadonlyMap<string, ReadResult>;
  owned?: readonly OwnedRead[];
  planners: { readonly [T in ResourceType]?: Pick<ResourcePlanner, 'destroyBlockers' | 'usedIds'> };
}

/**
 * The plan, with an error for each destroy (delete, the destroy half of a replace, a prune) the
 * platform would refuse because something still uses the resource and this plan does not
 * destroy it: an object the resource's own answer names (a network's subnets, a volume's
 * instances: ResourcePlanner.destroyBlockers), or a block of the stack whose resource uses it
 * (a listener's secret: ResourcePlanner.usedIds; an in-place update of that block comes after
 * the destroy, too late). Such an apply would fail half-way (the 409 comes once the destroys
 * ordered before it have run), and a second run would fail the same way: refused here instead,
 * before any write.
 * Objects of another stack (a `${stack:...}` reader) are the usual case: a run of the fleet
 * applies one stack after the other, so the reader's own replacement comes too late.
 */
export function refuseBlockedDestroys(plan: Plan, stack: Stack, input: DestroyInput): Plan {
  const destroys = plan.resource_changes.filter((c) => c.action === 'delete' || c.action === 'replace');
  if (destroys.length === 0) return plan;
  const states = destroyedStates(destroys, input);
  const destroyedIds = new Set<string>();
  for (const change of destroys) {
    const id = states.get(change.address)?.[RESOURCE_KINDS[change.type].idField];
    if (typeof id === 'string') destroyedIds.add(id);
  }
  const ranges = new Map(stack.resources.map((b) => [b.address, b.range]));
  const users = usersByUsedId(stack, destroys, input);
  const problems: Diagnostic[] = [];
  for (const change of destroys) {
    const state = states.get(change.address);
    const id = state?.[RESOURCE_KINDS[change.type].idField];
    // What the resource's answer names, unless this plan destroys it too; and the blocks this plan keeps that use it.
    const named = state === undefined ? [] : (input.planners[change.type]?.destroyBlockers?.(state) ?? []);
    const kept = [...named.filter((b) => !destroyedIds.has(b.id)), ...(typeof id === 'string' ? (users.get(id) ?? []) : [])];
    if (kept.length === 0) continue;
    const range = ranges.get(change.address);
    const what = change.action === 'replace' ? 'replaced (destroyed, then created again)' : change.pruned ? 'pruned' : 'destroyed';
    problems.push({
      severity: 'error',
      code: DESTROY_BLOCKED,
      address: change.address,
      ...(range ? { range } : {}),
      summary: `${change.address} cannot be ${what}: the platform refuses to delete it while ${kept.map((b) => b.label).join(', ')} ${kept.length === 1 ? 'uses' : 'use'} it, and this plan does not destroy ${kept.length === 1 ? 'that' : 'them'}`,
      detail:
        'Destroy or move what uses it first. In this stack, a block that reads it by reference is replaced or destroyed with it. ' +
        "If another stack's block uses it (through ${stack:...}), a run of the fleet applies that stack after this one: " +
        'first remove or repoint that block and apply the fleet with this block unchanged, then change this one. ' +
        'To replace it without a gap, declare the new resource under another block name, move its users to it, then remove the old block.',
    });
  }
  if (problems.length === 0) return plan;
  return { ...plan, diagnostics: [...plan.diagnostics, ...problems], errored: true, applyable: false };
}

/** The blocks this plan keeps (not destroyed) by each platform id their resource uses (ResourcePlanner.usedIds), as blockers of its delete. */
function usersByUsedId(stack: Stack, destroys: readonly ResourceChange[], input: DestroyInput): Map<string, DestroyBlocker[]> {
  const destroyed = new Set(destroys.map((c) => c.address));
  const users = new Map<string, DestroyBlocker[]>();
  for (const block of stack.resources) {
    const usedIds = input.planners[block.type]?.usedIds;
    const read = input.reads.get(block.address);
    if (usedIds === undefined || destroyed.has(block.address) || !read?.ok || !read.observation.exists) continue;
    for (const id of usedIds(read.observation.state)) users.set(id, [...(users.get(id) ?? []), { id, label: block.address }]);
  }
  return users;
}

/** The state each destroy was planned from: its block's read, or for a prune the listing that found it. */
function destroyedStates(destroys: readonly ResourceChange[], input: DestroyInput): Map<string, Record<string, unknown>> {
  const states = new Map<string, Record<string, unknown>>();
  const pruned = new Map<string, Record<string, unknown>>();
  for (const listing of input.owned ?? []) {
    if (!listing.ok) continue;
    for (const r of listing.resources) pruned.set(`${listing.type} ${r.address}`, r.observation.state);
  }
  for (const change of destroys) {
    const read = input.reads.get(change.address);
    const state = change.pruned ? pruned.get(`${change.type} ${change.address}`) : read?.ok && read.observation.exists ? read.observation.state : undefined;
    if (state !== undefined) states.set(change.address, state);
  }
  return states;
}
