import { canonicalJson } from '../model/fingerprint.js';
import { checkResolvedAttributes, parseResolvedAttributes, pendingSources, resolvePending } from '../plan/references.js';
import { formatPath, setAtPath } from '../model/references.js';
import { KNOWN_AFTER_APPLY, type FieldChange, type ResourceChange } from '../plan/types.js';
import type { OwnerSeal } from '../kinds/owner-seal.js';
import type { ProviderPlan, ProviderRegistry, ResourceRef } from '../kinds/provider.js';

/**
 * A change whose pending references (see PendingReference) are resolved from the states its
 * blocks were left in by this apply (`stateOf`): `desired` holds the values; a create's `after`,
 * `changes` and `payload` are its create plan again (an update or replace is planned again
 * against the fresh read, see replanResolved). Either the change, or why it cannot be made: a
 * block without a value for the reference, or a value the kind's schema refuses.
 */
export function resolveChange(
  change: ResourceChange,
  stateOf: (address: string) => Readonly<Record<string, unknown>> | undefined,
  providers: ProviderRegistry['resources'],
  stack: string | null,
  seal?: OwnerSeal,
): { change: ResourceChange } | { error: string } {
  let desired = change.desired as Record<string, unknown>;
  for (const reference of change.references ?? []) {
    const resolved = resolvePending(reference, stateOf);
    if (resolved === undefined) {
      const sources = pendingSources(reference).join(', ');
      return { error: `${formatPath(reference.path)}: ${reference.template} has no value: ${sources} ${sources.includes(',') ? 'show' : 'shows'} none after apply` };
    }
    desired = setAtPath(desired, reference.path, resolved.value);
  }
  const problem = checkResolvedAttributes(change.type, desired, change.desired as Record<string, unknown>, change.references ?? []);
  if (problem !== undefined) return { error: problem };
  const resolved = { ...change, desired: parseResolvedAttributes(change.type, desired) } as ResourceChange;
  if (change.action !== 'create') return { change: resolved };
  const plan = createPlanOf(resolved, providers, stack, seal);
  if (plan.errors.length > 0) return { error: plan.errors.map((e) => e.summary).join('; ') };
  return { change: { ...withoutSensitive(resolved), after: plan.after, changes: plan.changes, payload: plan.payload, ...sensitiveOf(plan) } as ResourceChange };
}

/**
 * The change a resolved update or replace sends: its `after`, `changes` and `payload` from the
 * fresh plan (`fresh`, already checked to be the planned change with the unknowns resolved) or,
 * for a replace, from the create plan of the resolved attributes.
 */
export function replanResolved(change: ResourceChange, fresh: ProviderPlan, providers: ProviderRegistry['resources'], stack: string | null, seal?: OwnerSeal): ResourceChange {
  if (change.action === 'replace') {
    const create = createPlanOf(change, providers, stack, seal);
    return { ...withoutSensitive(change), after: create.after, changes: fresh.changes, payload: create.payload, ...sensitiveOf(create) } as ResourceChange;
  }
  return {
    ...withoutSensitive(change),
    after: fresh.after,
    changes: fresh.changes,
    payload: fresh.payload,
    unchanged_elements: fresh.unchanged_elements,
    ...sensitiveOf(fresh),
  } as ResourceChange;
}

/** The sensitive values of a provider plan, as a change carries them (absent when none). */
function sensitiveOf(plan: ProviderPlan): { sensitive?: ResourceChange['sensitive'] } {
  return plan.sensitive && plan.sensitive.length > 0 ? { sensitive: plan.sensitive } : {};
}

function withoutSensitive(change: ResourceChange): ResourceChange {
  const { sensitive: _sensitive, ...rest } = change;
  return rest as ResourceChange;
}

function createPlanOf(change: ResourceChange, providers: ProviderRegistry['resources'], stack: string | null, seal: OwnerSeal | undefined): ProviderPlan {
  const provider = providers[change.type] as ProviderRegistry['resources'][typeof change.type];
  const create = provider.create as { plan(desired: unknown, ref: ResourceRef): ProviderPlan } | undefined;
  if (create === undefined) throw new Error(`${change.address}: ${change.type} cannot be created`);
  // A claiming create (a pruning stack's zone) is planned again as a pruning stack's.
  return create.plan(change.desired, { address: change.address, stack, ...(seal ? { seal } : {}), ...(change.claim ? { prune: true } : {}) });
}

/**
 * Whether a value of a fresh plan is what the plan showed, a KNOWN_AFTER_APPLY of the plan
 * matching any value (what a pending reference resolved to).
 */
export function matchesPlanned(planned: unknown, fresh: unknown): boolean {
  if (planned === KNOWN_AFTER_APPLY) return true;
  if (planned !== null && fresh !== null && typeof planned === 'object' && typeof fresh === 'object') {
    if (Array.isArray(planned) !== Array.isArray(fresh)) return false;
    const keys = new Set([...Object.keys(planned), ...Object.keys(fresh)]);
    for (const key of keys) if (!matchesPlanned((planned as Record<string, unknown>)[key], (fresh as Record<string, unknown>)[key])) return false;
    return true;
  }
  return canonicalJson(planned) === canonicalJson(fresh);
}

/** Whether a fresh field change is a planned one, its unknown values resolved. */
export function matchesPlannedChange(planned: FieldChange, fresh: FieldChange): boolean {
  return (
    canonicalJson(planned.path) === canonicalJson(fresh.path) &&
    planned.op === fresh.op &&
    canonicalJson(planned.before ?? null) === canonicalJson(fresh.before ?? null) &&
    matchesPlanned(planned.after ?? null, fresh.after ?? null)
  );
}
