import { InterruptedError } from '../errors.js';
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
