import pLimit from 'p-limit';
import type { CheckBlock, ResourceBlock, Stack } from '../config/types.js';
import { EdgeformError, RunFatalError } from '../errors.js';
import type { CheckOutcome, ProviderContext, ProviderRegistry, ReadResult } from './provider.js';
import type { CheckType, ResourceType } from './registry.js';

/** What reading a stack observed: per resource address a read result, per check its outcome. */
export interface StackObservations {
  reads: Map<string, ReadResult>;
  checks: Map<string, CheckOutcome>;
}

/**
 * Reads every selected resource and evaluates every selected check, at most `parallelism`
 * at a time (reads are independent of each other, whatever the dependency order). A failed
 * read is recorded with the platform's message so the rest of the stack is still planned.
 * A RunFatalError (the key refused, the platform unavailable) stops the reading instead: reads
 * still queued never start, those in flight are aborted, and it rejects with that one error
 * rather than one diagnostic per resource.
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
  // The first run-fatal error: aborts the reads in flight (through their signal) and skips the rest.
  const halt = new AbortController();
  const readCtx: ProviderContext = { ...ctx, signal: AbortSignal.any([ctx.signal, halt.signal]) };
  let fatal: RunFatalError | null = null;
  /** The failure's message, or null when the reading stops (this error or an earlier one is fatal). */
  const failure = (error: unknown): string | null => {
    if (fatal === null && error instanceof RunFatalError && !ctx.signal.aborted) {
      fatal = error;
      halt.abort(error);
    }
    return fatal === null ? describeFailure(error, ctx.signal) : null;
  };

  const readResource = async <K extends ResourceType>(block: ResourceBlock<K>): Promise<void> => {
    if (fatal !== null) return;
    const provider = registry.resources[block.type];
    try {
      reads.set(block.address, { ok: true, observation: await provider.read(readCtx, block.attributes) });
    } catch (error) {
      const summary = failure(error);
      if (summary !== null) reads.set(block.address, { ok: false, error: { summary } });
    }
  };
  const evaluateCheck = async <K extends CheckType>(block: CheckBlock<K>): Promise<void> => {
    if (fatal !== null) return;
    const provider = registry.checks[block.type];
    try {
      checks.set(block.address, await provider.evaluate(readCtx, block.attributes));
    } catch (error) {
      const message = failure(error);
      if (message !== null) checks.set(block.address, { status: 'error', message });
    }
  };

  await Promise.all([
    ...stack.resources.filter((b) => isSelected(b.address)).map((b) => limit(() => readResource(b))),
    ...stack.checks.filter((b) => isSelected(b.address)).map((b) => limit(() => evaluateCheck(b))),
  ]);
  if (fatal !== null) throw fatal;
  return { reads, checks };
}

/** A failure's message for a plan diagnostic; an abort or anything unexpected (a bug) propagates. */
function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) throw signal.reason;
  if (error instanceof EdgeformError) return error.message;
  throw error;
}
