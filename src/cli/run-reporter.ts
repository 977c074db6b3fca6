import type { ExchangeEvent, RetryEvent } from '../api/client.js';
import type { CliIO } from './io.js';

/**
 * What a run reports on stderr besides its view's output: the reading progress on a terminal,
 * one line per retry wait long enough to notice, and with `EDGEFORM_LOG=debug` one line per
 * request and per retry. plan, apply and drift
 * hand it to planStack, which wires it to the API client (onRetry, onExchange) and readStack.
 */
export interface RunReporter {
  /** Resources and checks read so far of `total`. */
  reading(done: number, total: number): void;
  /** The API client waits and retries a request (see createRunReporter for what is shown). */
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

/** A retry wait at least this long gets a line on stderr (shorter ones only in the debug log). */
export const NOTICEABLE_WAIT_MS = 1_000;

/** Settings of {@link createRunReporter}; injected for tests. */
export interface RunReporterOptions {
  /** The clock that tells whether an announced wait is still running (epoch ms). */
  now?: () => number;
}

/**
 * The reporter of a run. The progress line (`Reading 340/1000`) is drawn only when stderr is a
 * terminal and the run is not in CI, redrawn in place (carriage return) each time the share
 * read passes another whole percent, and erased when reading ends or another line is written,
 * so logs never hold it. A retry is a debug line (`EDGEFORM_LOG=debug`); besides, a wait of
 * NOTICEABLE_WAIT_MS or more gets one line (`platform answered 503, retrying in 4 s`) unless
 * a wait announced earlier is still running: requests waiting side by side make one line, not
 * one per request, and a platform that is down shows its one error, not a line per read.
 * Everything goes through io.err: the output boundary redacts the key (the client has
 * redacted it already) and escapes control characters.
 */
export function createRunReporter(io: Pick<CliIO, 'env' | 'stderr' | 'err'>, options: RunReporterOptions = {}): RunReporter {
  const now = options.now ?? Date.now;
  const live = io.stderr.isTTY === true && !isCI(io.env);
  const debug = (io.env[LOG_ENV] ?? '').toLowerCase() === 'debug';
  // When the last announced retry wait ends: until then, further waits are not announced.
  let announcedUntil = -Infinity;
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
      if (debug) {
        erase();
        io.err(`debug: retrying ${event.method} ${event.path} in ${formatDelay(event.delayMs)}: attempt ${event.attempt} failed (${event.reason})`);
      }
      const at = now();
      if (event.delayMs < NOTICEABLE_WAIT_MS || at < announcedUntil) return;
      announcedUntil = at + event.delayMs;
      erase();
      const what = event.status === null ? `platform did not answer (${event.reason})` : `platform answered ${event.status}`;
      io.err(`${what}, retrying in ${formatDelay(event.delayMs)}`);
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
