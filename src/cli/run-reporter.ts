import type { ExchangeEvent, RetryEvent } from '../api/client.js';
import type { CliIO } from './io.js';

/**
 * What a run reports on stderr besides its view's output: the reading progress on a terminal,
 * one line per retry, and with `EDGEFORM_LOG=debug` one line per request. plan, apply and drift
 * hand it to planStack, which wires it to the API client (onRetry, onExchange) and readStack.
 */
export interface RunReporter {
  /** Resources and checks read so far of `total`. */
  reading(done: number, total: number): void;
  /** The API client waits and retries a request. */
  retry(event: RetryEvent): void;
  /** A request was answered (or failed without an answer). */
  exchange(event: ExchangeEvent): void;
  /** Removes the progress line, if one is shown; call before the view prints. */
  finish(): void;
}

/** The variable that turns on the request log (`EDGEFORM_LOG=debug`). */
export const LOG_ENV = 'EDGEFORM_LOG';

/** True on a CI runner (`CI` set to anything but empty, `0` or `false`): no progress line there. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * The reporter of a run. The progress line (`Reading 340/1000`) is drawn only when stderr is a
 * terminal and the run is not in CI, redrawn in place (carriage return) each time the share
 * read passes another whole percent, and erased when reading ends or another line is written,
 * so logs never hold it. Retry lines and the debug log go through io.err: the output boundary
 * redacts the key (the client has redacted them already) and escapes control characters.
 */
export function createRunReporter(io: Pick<CliIO, 'env' | 'stderr' | 'err'>): RunReporter {
  const live = io.stderr.isTTY === true && !isCI(io.env);
  const debug = (io.env[LOG_ENV] ?? '').toLowerCase() === 'debug';
  let shown = false;
  let lastPercent = -1;
  const erase = () => {
    if (!shown) return;
    // Raw bytes, not io.err: the boundary would escape the carriage return and the erase sequence.
    io.stderr.write('\r\u001b[K');
    shown = false;
  };
  return {
    reading(done, total) {
      if (!live || total === 0) return;
      if (done >= total) {
        erase();
        return;
      }
      const percent = Math.floor((done * 100) / total);
      if (percent === lastPercent && shown) return;
      lastPercent = percent;
      io.stderr.write(`\rReading ${done}/${total}`);
      shown = true;
    },
    retry(event) {
      erase();
      io.err(`Retrying ${event.method} ${event.path} in ${formatDelay(event.delayMs)}: attempt ${event.attempt} failed (${event.reason})`);
    },
    exchange(event) {
      if (!debug) return;
      erase();
      io.err(`debug: ${event.method} ${event.path} -> ${event.outcome} in ${event.durationMs} ms${event.requestId ? ` [request id ${event.requestId}]` : ''}`);
    },
    finish: erase,
  };
}

/** `850 ms`, `1.2 s`, `30 s`. */
function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}
