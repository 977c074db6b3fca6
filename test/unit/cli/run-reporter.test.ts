import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { createIO } from '../../../src/cli/io.js';
import { createRunReporter, logLevelFromEnv } from '../../../src/cli/run-reporter.js';
import { captureStream } from '../../helpers/capture.js';

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
