import pLimit from 'p-limit';
import type { CheckBlock, ResourceBlock, Stack } from '../config/types.js';
import { EdgeformError } from '../errors.js';
import { resourceProvider, type CheckOutcome, type ProviderContext, type ProviderRegistry, type ReadResult } from './provider.js';

/** What reading a stack observed: per resource address a read result, per check its outcome. */
export interface StackObservations {
  reads: Map<string, ReadResult>;
  checks: Map<string, CheckOutcome>;
}

/**
 * Reads every selected resource and evaluates every selected check, at most `parallelism`
 * at a time (reads are independent of each other, whatever the dependency order). A failed
 * read is recorded with the platform's message so the rest of the stack is still planned.
 */
export async function readStack(
  ctx: ProviderContext,
  stack: Stack,
  registry: ProviderRegistry,
  options: { parallelism: number; selected?: ReadonlySet<string> },
): Promise<StackObservations> {
  const limit = pLimit(Math.max(1, options.parallelism));
  const isSelected = (address: string) => !options.selected || options.selected.has(address);
  const reads = new Map<string, ReadResult>();
  const checks = new Map<string, CheckOutcome>();

  const readResource = async (block: ResourceBlock): Promise<void> => {
    const provider = resourceProvider(registry.resources, block.type);
    try {
      reads.set(block.address, { ok: true, observation: await provider.read(ctx, block.attributes as Record<string, unknown>) });
    } catch (error) {
      reads.set(block.address, { ok: false, error: { summary: describeFailure(error, ctx.signal) } });
    }
  };
  const evaluateCheck = async (block: CheckBlock): Promise<void> => {
    const provider = registry.checks[block.type] as { evaluate(c: ProviderContext, d: unknown): Promise<CheckOutcome> };
    try {
      checks.set(block.address, await provider.evaluate(ctx, block.attributes));
    } catch (error) {
      checks.set(block.address, { status: 'error', message: describeFailure(error, ctx.signal) });
    }
  };

  await Promise.all([
    ...stack.resources.filter((b) => isSelected(b.address)).map((b) => limit(() => readResource(b))),
    ...stack.checks.filter((b) => isSelected(b.address)).map((b) => limit(() => evaluateCheck(b))),
  ]);
  return { reads, checks };
}

/** A failure's message for a plan diagnostic; an abort or anything unexpected (a bug) propagates. */
function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) throw signal.reason;
  if (error instanceof EdgeformError) return error.message;
  throw error;
}
