/**
 * The run reporter's retry lines: every retry goes to the debug log; the terminal gets one line
 * per wait long enough to notice, and one for waits side by side. The clock is injected.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RetryEvent } from '../../../src/api/client.js';
import { createIO } from '../../../src/cli/io.js';
import { createRunReporter } from '../../../src/cli/run-reporter.js';

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
