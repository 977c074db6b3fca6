/**
 * The run's outage breaker as pure logic on an injected clock: what each failure proves, and
 * the run-wide budget a retry must fit in.
 */
import { describe, expect, it } from 'vitest';
import { createOutageBreaker, type AttemptFailure } from '../../../src/api/retry.js';

const REFUSED: AttemptFailure = { kind: 'network', requestSent: false, transient: true };
const RESET: AttemptFailure = { kind: 'network', requestSent: 'unknown', transient: true };
const HTTP = (status: number): AttemptFailure => ({ kind: 'status', status });

function breaker() {
  let clock = 1_000;
  const b = createOutageBreaker({ now: () => clock });
  return { b, at: (ms: number) => void (clock = 1_000 + ms) };
}

describe('createOutageBreaker', () => {
  it('a refused connection or an unresolvable host proves the platform down; other connect failures only count', () => {
    const { b } = breaker();
    expect(b.recordFailure(REFUSED, 'ECONNREFUSED')).toBe('down');
    expect(b.recordFailure(REFUSED, 'ENOTFOUND')).toBe('down');
    expect(b.recordFailure(REFUSED, 'EAI_AGAIN')).toBe('counted');
    expect(b.recordFailure(RESET, 'ECONNRESET')).toBe('counted');
    expect(b.recordFailure({ kind: 'network', requestSent: false, transient: false }, 'ERR_TLS_CERT_ALTERED')).toBe('ignored');
  });

  it('5xx count toward an outage; 4xx and 429 (the platform answered) do not', () => {
    const { b } = breaker();
    expect([500, 502, 503, 504].map((s) => b.recordFailure(HTTP(s), `HTTP ${s}`))).toEqual(['counted', 'counted', 'counted', 'counted']);
    expect([400, 404, 409, 429].map((s) => b.recordFailure(HTTP(s), `HTTP ${s}`))).toEqual(['ignored', 'ignored', 'ignored', 'ignored']);
  });

  it('allows any retry until 3 failures; then only one that starts within 3 s of the first failure', () => {
    const { b, at } = breaker();
    b.recordFailure(HTTP(503), 'HTTP 503');
    expect(b.allowsRetry(60_000)).toBe(true);
    at(500);
    b.recordFailure(HTTP(503), 'HTTP 503');
    at(1_500);
    b.recordFailure(HTTP(503), 'HTTP 503');
    expect(b.allowsRetry(1_500)).toBe(true);
    expect(b.allowsRetry(1_501)).toBe(false);
    expect(b.describe('budget', 'HTTP 503')).toBe('every request failed for 1.5 s (3 attempts, none succeeded): not retried further');
  });

  it('a success ends the streak: failures spread over a healthy run never add up', () => {
    const { b, at } = breaker();
    for (let i = 0; i < 50; i++) {
      at(i * 1_000);
      b.recordFailure(HTTP(503), 'HTTP 503');
      expect(b.allowsRetry(4_000)).toBe(true);
      b.recordSuccess();
    }
  });

  it('trip: the first error wins, and the signal aborts with it', () => {
    const { b } = breaker();
    const first = new Error('first');
    b.trip(first);
    b.trip(new Error('second'));
    expect(b.tripped).toBe(first);
    expect(b.signal.aborted).toBe(true);
    expect(b.signal.reason).toBe(first);
  });
});
