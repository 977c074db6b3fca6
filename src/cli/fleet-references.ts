import type { Diagnostic } from '../config/diagnostics.js';
import type { ResourceBlock, Stack } from '../config/types.js';
import { EdgeformError, must } from '../errors.js';
import type { Observation, ProviderContext, ReadResult, ResourceRef } from '../kinds/provider.js';
import { providers } from '../kinds/providers.js';
import { stackReferenceAddress } from '../model/stack-reference.js';
import type { Plan } from '../plan/types.js';
import { referenceError, stackReferencesOf, type FleetStack } from './fleet-order.js';

/**
 * Reading what `${stack:NAME/TYPE.BLOCK.FIELD}` references name from the platform, where the other
 * stack's ownership tags (or its block's platform id or natural key) find it (the checks and the
 * order are fleet-order.ts).
 */

/** How a stack's references to others read them (see foreignReader). */
export interface ForeignReadOptions {
  /**
   * `plan`: a block the other stack's plan (planOf) creates, replaces or changes the field of is
   * known after apply (a sweep's plans show what an apply of the fleet would do). `apply`: only
   * what the platform holds counts; a block the other stack has not created is an error (apply
   * applies that stack first, then plans this one).
   */
  policy: 'plan' | 'apply';
  /** The other stack's plan in this sweep, when it was planned (policy `plan`). */
  planOf?: (name: string) => Plan | undefined;
  /** What the other stack's plan read, when it was planned in this sweep (its reads are not asked again). */
  readsOf?: (name: string) => ReadonlyMap<string, ReadResult> | undefined;
}

/**
 * The reader of a stack's references to other stacks (ReadAndPlanOptions.foreign), given the
 * fleet (checked by fleetOrder): each block named is read once per reader (a sweep's reader
 * serves every stack) through the provider context of the stack reading it, by the other stack's
 * block as declared there (its platform id, its natural key, or its ownership tags: that stack's
 * name and the block's address). The answer goes under the reference's address
 * (`stack:NAME/TYPE.BLOCK`), which the planner resolves as any reference: a value, known after
 * apply, or an error. A block the other stack has not created yet is a located error (policy
 * `apply`, or no plan of that stack creates it).
 */
export function foreignReader(
  fleet: readonly FleetStack[],
  options: ForeignReadOptions,
): (stack: Stack, ctx: ProviderContext) => Promise<{ reads: Map<string, ReadResult>; diagnostics: Diagnostic[] }> {
  const stacks = new Map(fleet.filter((s) => s.stack?.name !== undefined).map((s) => [must(s.stack?.name, "a valid stack's name"), must(s.stack, 's.stack')]));
  const cache = new Map<string, Promise<ReadResult>>();
  const readBlock = (ctx: ProviderContext, other: Stack, block: ResourceBlock): Promise<ReadResult> => {
    const key = stackReferenceAddress({ stack: must(other.name, 'other.name'), type: block.type, name: block.name });
    let read = cache.get(key);
    if (read === undefined) {
      const provider = providers.resources[block.type] as { read(ctx: ProviderContext, desired: unknown, ref: ResourceRef): Promise<Observation> };
      read = provider.read(ctx, block.attributes, { address: block.address, stack: other.name ?? null }).then(
        (observation): ReadResult => ({ ok: true, observation }),
        (error: unknown): ReadResult => {
          if (error instanceof EdgeformError && !ctx.signal.aborted) return { ok: false, error: { summary: error.message } };
          throw error;
        },
      );
      cache.set(key, read);
    }
    return read;
  };
  return async (stack, ctx) => {
    const reads = new Map<string, ReadResult>();
    const diagnostics: Diagnostic[] = [];
    for (const use of stackReferencesOf(stack)) {
      const address = stackReferenceAddress(use.target);
      if (reads.has(address)) continue;
      const other = stacks.get(use.target.stack);
      const block = other?.resources.find((b) => b.type === use.target.type && b.name === use.target.name);
      // Checked by fleetOrder: a stack that gets here has only references it found.
      if (other === undefined || block === undefined) continue;
      const change = options.policy === 'plan' ? options.planOf?.(use.target.stack)?.resource_changes.find((c) => c.address === block.address) : undefined;
      const changing =
        change !== undefined &&
        (change.action === 'create' || change.action === 'replace' || (change.action === 'update' && change.changes.some((c) => c.path[0] === use.target.field)));
      if (changing) {
        // Known after apply: the other stack's apply makes (or changes) it.
        reads.set(address, { ok: true, observation: { exists: false } });
        continue;
      }
      const read = options.readsOf?.(use.target.stack)?.get(block.address) ?? (await readBlock(ctx, other, block));
      if (!read.ok) {
        diagnostics.push(referenceError(use, `reading ${block.address} of stack "${use.target.stack}" failed: ${read.error.summary}`));
        continue;
      }
      if (!read.observation.exists) {
        diagnostics.push(
          referenceError(
            use,
            `stack "${use.target.stack}" has not created ${block.address} yet: nothing on the platform is found by it`,
            `Apply stack "${use.target.stack}" first (edgeform apply --stacks applies the fleet in the order its references make).`,
          ),
        );
        continue;
      }
      reads.set(address, read);
    }
    return { reads, diagnostics };
  };
}

/**
 * The foreign reader of a stack run alone (`plan FILE`, `apply FILE`, `drift FILE`): the other
 * stacks are not known there, so each `${stack:...}` reference is a located plan error that says
 * to run the fleet (`--stacks ROOT`), and nothing is applied on a value the plan could not show.
 */
export async function refuseStackReferences(stack: Stack): Promise<{ reads: Map<string, ReadResult>; diagnostics: Diagnostic[] }> {
  const diagnostics = stackReferencesOf(stack).map((use) =>
    referenceError(
      use,
      `stack "${use.target.stack}" is read only in a run of the fleet`,
      'Run edgeform plan|drift|apply --stacks ROOT, ROOT holding both stacks: the stacks are read, planned and applied in the order their references make.',
    ),
  );
  return { reads: new Map(), diagnostics };
}
