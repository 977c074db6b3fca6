import { appendFileSync } from 'node:fs';
import type { ExchangeEvent, RetryEvent } from '../api/client.js';
import { UsageError } from '../errors.js';
import type { CliIO } from './io.js';
import { PROGRESS_INTERVAL_ENV, progressIntervalFromEnv } from './plan-stack.js';

/**
 * What a run reports on stderr besides its view's output: the reading progress, one line per
 * retry wait long enough to notice, and with `EDGEFORM_LOG=debug` (or `trace`) one line per
 * request and per retry, on stderr or appended to `EDGEFORM_LOG_PATH`. plan, apply and drift
 * hand it to planStack, which wires it to the API client (onRetry, onExchange) and readStack.
 */
export interface RunReporter {
  /** Resources and checks read so far of `total` (or, in a sweep, `what`: `stacks`). */
  reading(done: number, total: number, what?: string): void;
  /** The API client waits and retries a request (see createRunReporter for what is shown). */
  retry(event: RetryEvent): void;
  /** A request was answered (or failed without an answer). */
  exchange(event: ExchangeEvent): void;
  /** Removes the progress line, if one is shown; call before the view prints. */
  finish(): void;
}

/** The variable that sets the log level (`EDGEFORM_LOG=debug`). */
export const LOG_ENV = 'EDGEFORM_LOG';

/** The variable naming a file the log is appended to instead of stderr. */
export const LOG_PATH_ENV = 'EDGEFORM_LOG_PATH';

/**
 * The levels EDGEFORM_LOG accepts (case-insensitive; Terraform's TF_LOG names and `off`).
 * `debug` and `trace` log every request; the others log nothing beyond what a run prints anyway
 * (its warnings and errors). `trace` is today the same as `debug`, the most edgeform logs.
 */
export const LOG_LEVELS = ['off', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How often a run without a live progress line prints "Reading N/TOTAL resources…", by default. */
export const DEFAULT_READING_LINE_INTERVAL_MS = 5_000;

/**
 * The log level of EDGEFORM_LOG: unset or empty is `off`, or `debug` when EDGEFORM_LOG_PATH
 * names a file (asking for a log file is asking for the log); an unknown level is a usage error
 * naming it and the accepted ones, rather than a silently quiet run.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv): LogLevel {
  const raw = env[LOG_ENV] ?? '';
  if (raw === '') return env[LOG_PATH_ENV] ? 'debug' : 'off';
  const level = LOG_LEVELS.find((l) => l === raw.toLowerCase());
  if (level === undefined) throw new UsageError(`${LOG_ENV}=${raw} is not a log level; use one of ${LOG_LEVELS.join(', ')} (or leave it unset)`);
  return level;
}

/** True on a CI runner (`CI` set to anything but empty, `0` or `false`): no progress line there. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** A retry wait at least this long gets a line on stderr (shorter ones only in the debug log). */
export const NOTICEABLE_WAIT_MS = 1_000;

/** What createRunReporter takes besides io; tests inject the clock. */
export interface RunReporterOptions {
  /** The clock of the periodic reading line and of announced retry waits (epoch ms; default Date.now). */
  now?: () => number;
}

/**
 * The reporter of a run. On a terminal outside CI the progress line (`Reading 340/1000`) is
 * redrawn in place (carriage return) each time the share read passes another whole percent, and
 * erased when reading ends or another line is written, so logs never hold it. Elsewhere (a CI
 * log, a pipe) a long read prints a whole line, `Reading 1,200/5,000 resources…`, once every
 * EDGEFORM_PROGRESS_INTERVAL ms (default {@link DEFAULT_READING_LINE_INTERVAL_MS}) counted from
 * the start of reading on the `now` clock, so a short read prints nothing. Retry lines and the
 * request log go through io.err, or for the log a file: redacted (the key, its fragments and
 * encodings) and escaped like all output. An unknown EDGEFORM_LOG, an unwritable
 * EDGEFORM_LOG_PATH or a bad interval is a usage error before anything is read.
 *
 * A retry is a log line (`EDGEFORM_LOG=debug`); besides, a wait of NOTICEABLE_WAIT_MS or more
 * gets one line on stderr (`platform answered 503, retrying in 4 s`) unless a wait announced
 * earlier is still running: requests waiting side by side make one line, not one per request,
 * and a platform that is down shows its one error, not a line per read.
 */
export function createRunReporter(io: Pick<CliIO, 'env' | 'stderr' | 'err' | 'sanitize'>, options: RunReporterOptions = {}): RunReporter {
  const now = options.now ?? Date.now;
  const live = io.stderr.isTTY === true && !isCI(io.env);
  const level = logLevelFromEnv(io.env);
  const requests = level === 'debug' || level === 'trace';
  const period = io.env[PROGRESS_INTERVAL_ENV] ? progressIntervalFromEnv(io.env) : DEFAULT_READING_LINE_INTERVAL_MS;
  const log = createLogSink(io, now);
  // When the last announced retry wait ends: until then, further waits are not announced.
  let announcedUntil = -Infinity;
  let shown = false;
  let lastPercent = -1;
  let nextLineAt: number | undefined;
  const erase = () => {
    if (!shown) return;
    // Raw bytes, not io.err: the boundary would escape the carriage return and the erase sequence.
    io.stderr.write('\r\u001b[K');
    shown = false;
  };
  return {
    reading(done, total, what = 'resources') {
      if (total === 0 || done >= total) {
        erase();
        nextLineAt = undefined;
        return;
      }
      if (!live) {
        const at = now();
        nextLineAt ??= at + period;
        if (at < nextLineAt) return;
        nextLineAt = at + period;
        io.err(`Reading ${count(done)}/${count(total)} ${what}…`);
        return;
      }
      const percent = Math.floor((done * 100) / total);
      if (percent === lastPercent && shown) return;
      lastPercent = percent;
      io.stderr.write(what === 'resources' ? `\rReading ${done}/${total}` : `\rReading ${done}/${total} ${what}`);
      shown = true;
    },
    retry(event) {
      if (requests) {
        erase();
        log.write(`${level}: retrying ${event.method} ${event.path} in ${formatDelay(event.delayMs)}: attempt ${event.attempt} failed (${event.reason})`);
      }
      const at = now();
      if (event.delayMs < NOTICEABLE_WAIT_MS || at < announcedUntil) return;
      announcedUntil = at + event.delayMs;
      erase();
      const what = event.status === null ? `platform did not answer (${event.reason})` : `platform answered ${event.status}`;
      const line = `${what}, retrying in ${formatDelay(event.delayMs)}`;
      io.err(line);
      if (log.toFile) log.write(line);
    },
    exchange(event) {
      if (!requests) return;
      erase();
      log.write(`${level}: ${event.method} ${event.path} -> ${event.outcome} in ${event.durationMs} ms${event.requestId ? ` [request id ${event.requestId}]` : ''}`);
    },
    finish: erase,
  };
}

/**
 * Where log lines go: stderr, or appended to EDGEFORM_LOG_PATH with a timestamp each (the file is
 * created when missing and never truncated). A path that cannot be written is refused at once;
 * should writing fail later, one warning on stderr and the rest of the log goes there.
 */
function createLogSink(io: Pick<CliIO, 'env' | 'err' | 'sanitize'>, now: () => number): { toFile: boolean; write(line: string): void } {
  let path = io.env[LOG_PATH_ENV] || undefined;
  if (path !== undefined) {
    try {
      appendFileSync(path, '');
    } catch (error) {
      throw new UsageError(`${LOG_PATH_ENV}: cannot write the log to ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  return {
    toFile: path !== undefined,
    write(line) {
      if (path === undefined) return io.err(line);
      try {
        appendFileSync(path, io.sanitize(`${new Date(now()).toISOString()} ${line}\n`));
      } catch (error) {
        io.err(`Warning: writing the log to ${path} failed (${(error as NodeJS.ErrnoException).code ?? String(error)}); the rest of the log goes to stderr.`);
        path = undefined;
        io.err(line);
      }
    },
  };
}

/** 1,200: a count as the reading line shows it. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `850 ms`, `1.2 s`, `30 s`. */
function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}
