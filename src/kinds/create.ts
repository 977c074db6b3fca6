import { AmbiguousIdentityError, must } from '../errors.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../plan/types.js';
import type { GroupRead, MemberRead, Observation, ProviderContext, ProviderPlan, ResourceProvider } from './provider.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from './registry.js';

/** The path of each top-level field (a kind's schema names them: a few dozen in all), made once. */
const FIELD_PATHS = new Map<string, string[]>();

/**
 * The path of a top-level field, `[field]`: one array for every create plan's change of that
 * field (nothing writes to a change's path), not one each: a zone file's 174,145 record sets
 * are as many creates of five fields each.
 */
function fieldPath(field: string): string[] {
  let path = FIELD_PATHS.get(field);
  if (path === undefined) FIELD_PATHS.set(field, (path = [field]));
  return path;
}

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
  const changes: FieldChange[] = fields.map(([field, after]) => ({ path: fieldPath(field), op: 'add', after }));
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
export function onlyMatch<Item>(matches: readonly Item[], idOf: (item: Item) => string | number, what: { type: ResourceType; identity: string }): Item | null {
  const [first] = matches;
  if (first === undefined) return null;
  if (matches.length === 1) return first;
  throw new AmbiguousIdentityError(
    { ...what, idField: RESOURCE_KINDS[what.type].idField },
    matches.map((m) => String(idOf(m))),
  );
}

/** The facts key of the state of the resource a replacement destroys first (see withCreateFacts): what it holds is free for the new one. */
export const REPLACED_STATE = 'replaced_state';

/**
 * A kind's reads (single and grouped) whose absent blocks also carry `facts`: what the block's
 * create plan checks its values against (ResourceProvider.create.plan), gathered by `facts` from
 * the platform's lists (undefined: nothing to check, e.g. a block that would not be created). A
 * block that exists carries them too when `replaces` says its plan is a replacement (the kind's
 * pure plan: the new resource's create is checked as a create's, before anything is destroyed),
 * with the old resource's state under REPLACED_STATE (what it holds is freed before the create).
 * A grouped member whose facts cannot be read fails with that error, as its read would. Gathered
 * only while readStack reads a stack (ProviderContext.stack): apply's reads skip them.
 */
export function withCreateFacts<T extends ResourceType>(
  reads: { read: ResourceProvider<T>['read']; groupRead: GroupRead<T> },
  facts: (ctx: ProviderContext, desired: ResourceAttributes[T]) => Promise<Readonly<Record<string, unknown>> | undefined>,
  replaces?: (desired: ResourceAttributes[T], state: Record<string, unknown>) => boolean,
): { read: ResourceProvider<T>['read']; groupRead: GroupRead<T> } {
  const add = async (ctx: ProviderContext, desired: ResourceAttributes[T], observation: Observation): Promise<Observation> => {
    // Only a plan checks them (readStack gives the stack): apply's reads before and after a create never read the lists again.
    if (ctx.stack === undefined) return observation;
    if (observation.exists) {
      if (replaces === undefined || !replacedBy(replaces, desired, observation.state)) return observation;
      const found = await facts(ctx, desired);
      // What the old resource holds is freed before the new one is made (its destroy goes first): REPLACED_STATE says which.
      return found === undefined ? observation : { ...observation, facts: { ...found, [REPLACED_STATE]: observation.state } };
    }
    const found = await facts(ctx, desired);
    return found === undefined ? observation : { exists: false, facts: { ...observation.facts, ...found } };
  };
  return {
    read: async (ctx, desired, ref) => add(ctx, desired, await reads.read(ctx, desired, ref)),
    groupRead: {
      ...reads.groupRead,
      async read(ctx, members, refs) {
        const results = await reads.groupRead.read(ctx, members, refs);
        return Promise.all(
          results.map(async (result, i): Promise<MemberRead> => {
            if (!result.ok) return result;
            try {
              return { ok: true, observation: await add(ctx, must(members[i], 'members[i]'), result.observation) };
            } catch (error) {
              return { ok: false, error };
            }
          }),
        );
      },
    },
  };
}

/**
 * Whether a kind's pure plan of a read block is a replacement. The block is as written (its
 * references not resolved yet): a plan that cannot judge it (throws) is no replacement here; the
 * planner plans the resolved block.
 */
function replacedBy<T extends ResourceType>(
  replaces: (desired: ResourceAttributes[T], state: Record<string, unknown>) => boolean,
  desired: ResourceAttributes[T],
  state: Record<string, unknown>,
): boolean {
  try {
    return replaces(desired, state);
  } catch {
    return false;
  }
}
