import { EdgeformError, InterruptedError } from '../errors.js';
import type { RunFailure } from '../render/view.js';
import { ExitCode, type CliIO } from './io.js';

/**
 * Runs a read-only operation that SIGINT/SIGTERM cancel: the signal aborts in-flight
 * requests and the command exits 130. (apply has its own two-stage handling.)
 */
export async function withInterrupts(io: CliIO, run: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      io.err(`\nInterrupted (${name}); stopping. Nothing was changed.`);
      controller.abort(new InterruptedError());
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await run(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) return ExitCode.interrupted;
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * What an error that ended a plan or drift run before its document amounts to, for the views'
 * failure documents: an interrupt (exit 130), an edgeform error with its code and message (exit
 * 1; the platform named when the error knows it), or a bug (exit 1; its details stay on stderr).
 */
export function describeRunFailure(error: unknown, interrupted: boolean): RunFailure {
  if (interrupted || error instanceof InterruptedError)
    return { code: 'EDGEFORM_INTERRUPTED', message: 'interrupted; nothing was changed', exitCode: ExitCode.interrupted, baseUrl: null };
  if (error instanceof EdgeformError) {
    const baseUrl = (error as { baseUrl?: unknown }).baseUrl;
    return { code: error.code, message: error.message, exitCode: ExitCode.error, baseUrl: typeof baseUrl === 'string' ? baseUrl : null };
  }
  return { code: 'EDGEFORM_BUG', message: 'an unexpected error occurred; this is a bug in edgeform (see stderr)', exitCode: ExitCode.error, baseUrl: null };
}
