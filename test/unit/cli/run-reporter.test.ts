/**
 * The run reporter: the reading line without a terminal, EDGEFORM_LOG, and the retry lines: every retry goes to the debug log; the terminal gets one line
 * per wait long enough to notice, and one for waits side by side. The clock is injected.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RetryEvent } from '../../../src/api/client.js';
import { createIO } from '../../../src/cli/io.js';
import { createRunReporter, logLevelFromEnv } from '../../../src/cli/run-reporter.js';
import { UsageError } from '../../../src/errors.js';
import { captureStream } from '../../helpers/capture.js';

function sink(): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return Object.assign(stream, { isTTY: false, text: () => chunks.join('') });
}

function reporter(env: NodeJS.ProcessEnv = {}) {
  const stderr = sink();
  let clock = 0;
  const run = createRunReporter(createIO({ env, stdout: sink(), stderr }), { now: () => clock });
  return {
    run,
    lines: () =>
      stderr
        .text()
        .split('\n')
        .filter((l) => l !== ''),
    at: (ms: number) => void (clock = ms),
  };
}

const retry = (delayMs: number, extra: Partial<RetryEvent> = {}): RetryEvent => ({
  method: 'GET',
  path: '/cloud/v1/floatingips/1/76',
  attempt: 1,
  delayMs,
  reason: 'HTTP 503',
  status: 503,
  ...extra,
});

describe('retry lines', () => {
  it('a short wait prints nothing; a wait of a second or more prints one line saying what the platform answered', () => {
    const { run, lines } = reporter();
    run.retry(retry(400));
    run.retry(retry(999));
    expect(lines()).toEqual([]);
    run.retry(retry(4000));
    expect(lines()).toEqual(['platform answered 503, retrying in 4.0 s']);
  });

  it('waits side by side make one line; a wait after the announced one ended gets its own', () => {
    const { run, lines, at } = reporter();
    at(0);
    for (let i = 0; i < 9; i++) run.retry(retry(2000 + i, { path: `/r/${i}` }));
    expect(lines()).toHaveLength(1);
    at(1999);
    run.retry(retry(1500));
    expect(lines()).toHaveLength(1);
    at(2000);
    run.retry(retry(1200, { status: null, reason: 'ECONNRESET' }));
    expect(lines()).toEqual(['platform answered 503, retrying in 2.0 s', 'platform did not answer (ECONNRESET), retrying in 1.2 s']);
  });

  it('EDGEFORM_LOG=debug logs every retry, naming the request and why', () => {
    const { run, lines } = reporter({ EDGEFORM_LOG: 'debug' });
    run.retry(retry(250, { attempt: 2 }));
    expect(lines()).toEqual(['debug: retrying GET /cloud/v1/floatingips/1/76 in 250 ms: attempt 2 failed (HTTP 503)']);
  });
});

/** A reporter writing to captured streams, with a clock the test moves. */
function reporterWith(env: NodeJS.ProcessEnv, isTTY: boolean) {
  const stderr = captureStream({ isTTY });
  const io = createIO({ env, stdout: captureStream(), stderr });
  let clock = 1_000_000;
  const reporter = createRunReporter(io, { now: () => clock });
  return { reporter, stderr, advance: (ms: number) => void (clock += ms) };
}

const exchange = { method: 'GET' as const, path: '/cloud/v1/instances/1/76', status: 200, outcome: '200', durationMs: 12, requestId: 'r-1' };

describe('the reading line without a terminal', () => {
  it('prints "Reading N/TOTAL resources…" once a period has passed since reading began, then once a period', () => {
    const { reporter, stderr, advance } = reporterWith({}, false);
    reporter.reading(0, 5000);
    advance(4_999);
    reporter.reading(1200, 5000);
    expect(stderr.text()).toBe('');
    advance(1);
    reporter.reading(1200, 5000);
    expect(stderr.text()).toBe('Reading 1,200/5,000 resources…\n');
    advance(4_000);
    reporter.reading(2500, 5000);
    advance(999);
    reporter.reading(2600, 5000);
    expect(stderr.text().split('\n')).toHaveLength(2);
    advance(1);
    reporter.reading(2700, 5000);
    expect(stderr.text()).toBe('Reading 1,200/5,000 resources…\nReading 2,700/5,000 resources…\n');
    advance(60_000);
    reporter.reading(5000, 5000);
    reporter.finish();
    expect(stderr.text().split('\n')).toHaveLength(3);
  });

  it('prints nothing for a read shorter than the period, and takes the period from EDGEFORM_PROGRESS_INTERVAL', () => {
    const quick = reporterWith({}, false);
    quick.reporter.reading(0, 10);
    quick.advance(4_000);
    quick.reporter.reading(10, 10);
    expect(quick.stderr.text()).toBe('');
    const often = reporterWith({ EDGEFORM_PROGRESS_INTERVAL: '1000' }, false);
    often.reporter.reading(0, 3);
    for (const done of [1, 2]) {
      often.advance(1_000);
      often.reporter.reading(done, 3);
    }
    expect(often.stderr.text()).toBe('Reading 1/3 resources…\nReading 2/3 resources…\n');
  });

  it('prints whole lines in CI even on a terminal, and redraws in place on a terminal outside CI', () => {
    const ci = reporterWith({ CI: 'true' }, true);
    ci.reporter.reading(0, 2);
    ci.advance(5_000);
    ci.reporter.reading(1, 2);
    expect(ci.stderr.text()).toBe('Reading 1/2 resources…\n');
    const tty = reporterWith({}, true);
    tty.reporter.reading(1, 2);
    expect(tty.stderr.text()).toBe('\rReading 1/2');
  });
});

describe('EDGEFORM_LOG', () => {
  it('accepts trace (and the other TF_LOG names, in any case) and refuses an unknown level by name, listing the accepted ones', () => {
    expect(logLevelFromEnv({ EDGEFORM_LOG: 'trace' })).toBe('trace');
    expect(logLevelFromEnv({ EDGEFORM_LOG: 'TRACE' })).toBe('trace');
    expect(logLevelFromEnv({ EDGEFORM_LOG: 'Info' })).toBe('info');
    expect(logLevelFromEnv({})).toBe('off');
    expect(() => logLevelFromEnv({ EDGEFORM_LOG: 'verbose' })).toThrow(UsageError);
    expect(() => logLevelFromEnv({ EDGEFORM_LOG: 'verbose' })).toThrow('EDGEFORM_LOG=verbose is not a log level; use one of off, error, warn, info, debug, trace');
  });

  it('logs every request at trace as at debug, and none at info', () => {
    const trace = reporterWith({ EDGEFORM_LOG: 'trace' }, false);
    trace.reporter.exchange(exchange);
    expect(trace.stderr.text()).toBe('trace: GET /cloud/v1/instances/1/76 -> 200 in 12 ms [request id r-1]\n');
    const info = reporterWith({ EDGEFORM_LOG: 'info' }, false);
    info.reporter.exchange(exchange);
    expect(info.stderr.text()).toBe('');
  });
});
