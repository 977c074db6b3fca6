import { AmbiguousIdentityError } from '../errors.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../plan/types.js';
import type { ProviderPlan } from './provider.js';

/**
 * The create plan of a resource (ResourceProvider.create.plan): `after` is what the stack
 * declares (`declared`, only fields the block sets) with the platform id `(known after apply)`,
 * each declared field is an `add`, and `payload` is what apply sends. Pure.
 */
export function createPlan(
  declared: Record<string, unknown>,
  idField: string,
  payload: Record<string, unknown>,
  extra: Partial<Pick<ProviderPlan, 'errors' | 'warnings' | 'notes' | 'sensitive'>> = {},
): ProviderPlan {
  const fields = Object.entries(declared).filter(([field, value]) => field !== idField && value !== undefined);
  const changes: FieldChange[] = fields.map(([field, after]) => ({ path: [field], op: 'add', after }));
  return {
    action: 'create',
    before: {},
    after: { [idField]: KNOWN_AFTER_APPLY, ...Object.fromEntries(fields) },
    changes,
    payload,
    ...(extra.sensitive && extra.sensitive.length > 0 ? { sensitive: extra.sensitive } : {}),
    errors: extra.errors ?? [],
    warnings: extra.warnings ?? [],
    notes: extra.notes ?? [],
  };
}

/**
 * The one item among `matches` (the resources a block's identity matched), null when none;
 * more than one throws AmbiguousIdentityError naming every candidate's id.
 */
export function onlyMatch<Item>(matches: readonly Item[], idOf: (item: Item) => string | number, what: { type: string; identity: string; idField: string }): Item | null {
  if (matches.length === 0) return null;
  if (matches.length === 1) return matches[0]!;
  throw new AmbiguousIdentityError(
    what,
    matches.map((m) => String(idOf(m))),
  );
}
