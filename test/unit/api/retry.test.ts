import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeBackoff,
  computeRetryDelay,
  createRetryQuota,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  isRetryableFailure,
  isUnknownOutcome,
  parseRetryAfter,
  type AttemptFailure,
  type RetryMode,
  type RetryPolicy,
  type RetryQuota,
} from '../../../src/api/retry.js';
import { ApiConnectionError, createApiError } from '../../../src/api/errors.js';
import { seededRandom } from '../../helpers/seeded-random.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const fixed = (r: number) => () => r;
const noJitterTop = fixed(0.999999);

describe('computeBackoff', () => {
  it('doubles from 0.5 s per failed attempt and caps at 8 s (top of the jitter range)', () => {
    const full: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitter: 'full' };
    const delays = [1, 2, 3, 4, 5, 6, 10].map((a) => computeBackoff(a, noJitterTop, full));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('equal jitter stays within [d/2, d]', () => {
    for (const attempt of [1, 2, 3, 4, 5, 8]) {
      const ceiling = Math.min(8000, 500 * 2 ** (attempt - 1));
      expect(computeBackoff(attempt, fixed(0))).toBe(ceiling / 2);
      expect(computeBackoff(attempt, fixed(0.5))).toBe(Math.round(ceiling * 0.75));
      expect(computeBackoff(attempt, noJitterTop)).toBeLessThanOrEqual(ceiling);
      expect(computeBackoff(attempt, noJitterTop)).toBeGreaterThan(ceiling * 0.99);
    }
  });

  it('full jitter stays within [0, d]', () => {
    const full: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitter: 'full' };
    expect(computeBackoff(3, fixed(0), full)).toBe(0);
    expect(computeBackoff(3, fixed(0.25), full)).toBe(500);
  });

  it('survives a misbehaving random source (out of range, NaN)', () => {
    expect(computeBackoff(1, fixed(-3))).toBe(250);
    expect(computeBackoff(1, fixed(7))).toBe(500);
    expect(computeBackoff(1, fixed(Number.NaN))).toBe(250);
  });

  it('does not overflow for huge attempt numbers', () => {
    expect(computeBackoff(10_000, noJitterTop)).toBeLessThanOrEqual(8000);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', undefined, NOW)).toBe(3000);
    expect(parseRetryAfter(' 0 ', undefined, NOW)).toBe(0);
  });

  it('reads an HTTP date against the injected clock', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:07 GMT', undefined, NOW)).toBe(7000);
  });

  it('treats a date in the past as "now"', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', undefined, NOW)).toBe(0);
  });

  it('prefers Retry-After-Ms, including fractional values', () => {
    expect(parseRetryAfter('30', '250', NOW)).toBe(250);
    expect(parseRetryAfter(undefined, '12.2', NOW)).toBe(13);
  });

  it('ignores malformed values', () => {
    expect(parseRetryAfter('soon', undefined, NOW)).toBeNull();
    expect(parseRetryAfter('-5', 'abc', NOW)).toBeNull();
    expect(parseRetryAfter('', '', NOW)).toBeNull();
    expect(parseRetryAfter(undefined, undefined, NOW)).toBeNull();
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['2', '9'], undefined, NOW)).toBe(2000);
  });
});

describe('computeRetryDelay', () => {
  it('uses backoff when the platform asks for nothing', () => {
    expect(computeRetryDelay({ attempt: 2, now: NOW, random: fixed(0) })).toBe(500);
  });

  it('honours Retry-After exactly, without jitter', () => {
    expect(computeRetryDelay({ attempt: 1, retryAfterHeader: '5', now: NOW, random: fixed(0) })).toBe(5000);
    expect(computeRetryDelay({ attempt: 1, retryAfterMsHeader: '1500', now: NOW, random: fixed(0.9) })).toBe(1500);
  });

  it('honours up to 60 s and gives up beyond', () => {
    expect(computeRetryDelay({ attempt: 1, retryAfterHeader: '60', now: NOW, random: fixed(0) })).toBe(60_000);
    expect(computeRetryDelay({ attempt: 1, retryAfterHeader: '61', now: NOW, random: fixed(0) })).toBe('give-up');
    expect(computeRetryDelay({ attempt: 1, retryAfterMsHeader: '60001', now: NOW, random: fixed(0) })).toBe('give-up');
    expect(computeRetryDelay({ attempt: 1, retryAfterHeader: 'Wed, 01 Jan 2025 12:05:00 GMT', now: NOW, random: fixed(0) })).toBe('give-up');
  });

  it('falls back to backoff for a malformed Retry-After', () => {
    expect(computeRetryDelay({ attempt: 1, retryAfterHeader: 'later', now: NOW, random: fixed(0) })).toBe(250);
  });
});

describe('isRetryableFailure', () => {
  const status = (s: number): AttemptFailure => ({ kind: 'status', status: s });
  const net = (requestSent: boolean | 'unknown', transient = true): AttemptFailure => ({ kind: 'network', requestSent, transient });

  it('retries 408, 429, 500, 502, 503, 504 for idempotent requests and nothing else', () => {
    const retried = [400, 401, 403, 404, 408, 409, 422, 429, 500, 501, 502, 503, 504, 505].filter((s) => isRetryableFailure('idempotent', status(s)));
    expect(retried).toEqual([408, 429, 500, 502, 503, 504]);
  });

  it('retries only 429 and 503 for task-starting requests', () => {
    const retried = [408, 409, 429, 500, 502, 503, 504].filter((s) => isRetryableFailure('never-reached-only', status(s)));
    expect(retried).toEqual([429, 503]);
  });

  it('retries any transient connection failure for idempotent requests', () => {
    expect(isRetryableFailure('idempotent', net(false))).toBe(true);
    expect(isRetryableFailure('idempotent', net('unknown'))).toBe(true);
    expect(isRetryableFailure('idempotent', net(true))).toBe(true);
  });

  it('never re-sends a task-starting request that may have reached the platform', () => {
    expect(isRetryableFailure('never-reached-only', net(false))).toBe(true);
    expect(isRetryableFailure('never-reached-only', net('unknown'))).toBe(false);
    expect(isRetryableFailure('never-reached-only', net(true))).toBe(false);
  });

  it('retries nothing in mode none (the caller has its own schedule: task polls)', () => {
    expect([408, 429, 500, 502, 503, 504].filter((s) => isRetryableFailure('none', status(s)))).toEqual([]);
    expect([false, 'unknown', true].filter((sent) => isRetryableFailure('none', net(sent as boolean | 'unknown')))).toEqual([]);
  });

  it('never retries permanent failures (TLS, invalid request)', () => {
    expect(isRetryableFailure('idempotent', net(false, false))).toBe(false);
    expect(isRetryableFailure('never-reached-only', net(false, false))).toBe(false);
  });
});

describe('isUnknownOutcome', () => {
  const answered = (status: number) => createApiError({ method: 'POST', path: '/x', status, requestId: null, product: 'cloud', body: null, platformMessage: null });
  const lost = (requestSent: boolean | 'unknown') => new ApiConnectionError({ method: 'POST', path: '/x', requestSent, reason: 'UND_ERR_SOCKET', detail: 'other side closed' });

  it('leaves the outcome of a send unknown after exactly the transient answers that are not refusals at the door', () => {
    const unknown = [400, 404, 408, 409, 422, 429, 500, 501, 502, 503, 504].filter((s) => isUnknownOutcome(answered(s)));
    expect(unknown).toEqual([408, 500, 502, 504]);
  });

  it('leaves it unknown after a connection that may have reached the platform, never after one that provably did not', () => {
    expect(isUnknownOutcome(lost(true))).toBe(true);
    expect(isUnknownOutcome(lost('unknown'))).toBe(true);
    expect(isUnknownOutcome(lost(false))).toBe(false);
    expect(isUnknownOutcome(new Error('not from the API'))).toBe(false);
  });
});

const HTTP_503: AttemptFailure = { kind: 'status', status: 503 };
const REFUSED: AttemptFailure = { kind: 'network', requestSent: false, transient: true };

describe('createRetryQuota', () => {
  it('starts full with the AWS standard-mode sizes: 500 tokens, a retry costs 5, or 10 after a timeout or connection failure', () => {
    const quota = createRetryQuota();
    expect([quota.capacity, quota.available]).toEqual([500, 500]);
    expect(quota.costOf(HTTP_503)).toBe(5);
    expect(quota.costOf({ kind: 'status', status: 429 })).toBe(5);
    expect(quota.costOf(REFUSED)).toBe(10);
    expect(quota.costOf({ kind: 'network', requestSent: 'unknown', transient: true })).toBe(10);
  });

  it('pays for retries until fewer tokens are left than a retry costs', () => {
    const quota = createRetryQuota({ capacity: 12 });
    expect(quota.canAfford(5)).toBe(true);
    quota.take(5);
    quota.take(5);
    expect(quota.available).toBe(2);
    expect(quota.canAfford(5)).toBe(false);
  });

  it('refunds the cost of the retry that led to a success, and adds one for a success without retry, never above capacity', () => {
    const quota = createRetryQuota({ capacity: 20 });
    quota.take(10);
    quota.recordSuccess(10);
    expect(quota.available).toBe(20);
    quota.take(5);
    quota.recordSuccess(null);
    expect(quota.available).toBe(16);
    for (let i = 0; i < 10; i++) quota.recordSuccess(null);
    expect(quota.available).toBe(20);
  });

  it('stays between 0 and its capacity whatever happens', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(5, 10).map((c) => ({ take: c })),
            fc.option(fc.constantFrom(5, 10), { nil: null }).map((c) => ({ success: c })),
          ),
          { maxLength: 300 },
        ),
        (ops) => {
          const quota = createRetryQuota({ capacity: 50 });
          for (const op of ops) {
            if ('take' in op) {
              if (quota.canAfford(op.take)) quota.take(op.take);
            } else quota.recordSuccess(op.success);
            expect(quota.available).toBeGreaterThanOrEqual(0);
            expect(quota.available).toBeLessThanOrEqual(50);
          }
        },
      ),
    );
  });

  it('describes what is left and what a retry costs', () => {
    const quota = createRetryQuota({ capacity: 10 });
    quota.take(7);
    expect(quota.describe()).toBe('3 of 10 tokens left; a retry costs 5, 10 after a timeout or connection failure, and successes refill it');
  });
});

/**
 * Runs `requests` requests through decideRetry and one quota, each attempt failing with
 * `failureRate` (as the client does: take the cost on a retry, refund on success). Pure.
 */
function simulateRun(quota: RetryQuota, requests: number, failureRate: number, random: () => number, mode: RetryMode = 'idempotent') {
  const ends = { succeeded: 0, attemptsExhausted: 0, quotaExhausted: 0, retries: 0 };
  for (let r = 0; r < requests; r++) {
    let retryCost: number | null = null;
    for (let attempt = 1; ; attempt++) {
      if (random() >= failureRate) {
        quota.recordSuccess(retryCost);
        ends.succeeded += 1;
        break;
      }
      const d = decideRetry({ mode, failure: HTTP_503, attempt, now: NOW, random, quota });
      if (!d.retry) {
        if (d.reason === 'quota-exhausted') ends.quotaExhausted += 1;
        else ends.attemptsExhausted += 1;
        break;
      }
      quota.take(d.cost ?? 0);
      retryCost = d.cost ?? null;
      ends.retries += 1;
    }
  }
  return ends;
}

describe('the retry quota over a whole run', () => {
  it('scales with the work: 5,000 requests at a 15% failure rate never empty it', () => {
    const quota = createRetryQuota();
    const run = simulateRun(quota, 5_000, 0.15, seededRandom(1));
    expect(run.quotaExhausted).toBe(0);
    expect(run.retries).toBeGreaterThan(500);
    expect(run.succeeded + run.attemptsExhausted).toBe(5_000);
  });

  it('makes an API that is really down fail fast: at most 100 retries in all, then every request fails at its first attempt', () => {
    const quota = createRetryQuota();
    const run = simulateRun(quota, 1_000, 1, seededRandom(2));
    expect(run.retries).toBe(100);
    expect(run.succeeded).toBe(0);
    expect(run.quotaExhausted).toBeGreaterThan(950);
  });

  it('fills up again once requests succeed', () => {
    const quota = createRetryQuota();
    simulateRun(quota, 200, 1, seededRandom(3));
    expect(quota.available).toBeLessThan(5);
    simulateRun(quota, 600, 0, seededRandom(4));
    expect(quota.available).toBe(500);
  });
});

describe('decideRetry', () => {
  const base = { now: NOW, random: fixed(0), mode: 'idempotent' as const };

  it('retries with the computed delay while attempts are left', () => {
    expect(decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 503 } })).toEqual({ retry: true, delayMs: 250 });
    expect(decideRetry({ ...base, attempt: 3, failure: { kind: 'status', status: 503 } })).toEqual({ retry: true, delayMs: 1000 });
  });

  it('gives up after 6 attempts in total while the platform answers, and says so', () => {
    expect(decideRetry({ ...base, attempt: 5, failure: { kind: 'status', status: 503 } })).toMatchObject({ retry: true });
    const d = decideRetry({ ...base, attempt: 6, failure: { kind: 'status', status: 503 } });
    expect(d).toEqual({ retry: false, reason: 'attempts-exhausted', note: 'gave up after 6 attempts' });
  });

  it('gives up after 4 attempts when the platform does not answer, so an outage is reported in seconds', () => {
    const failure = { kind: 'network', requestSent: false, transient: true } as const;
    expect(decideRetry({ ...base, attempt: 3, failure })).toMatchObject({ retry: true });
    expect(decideRetry({ ...base, attempt: 4, failure })).toEqual({ retry: false, reason: 'attempts-exhausted', note: 'gave up after 4 attempts' });
  });

  it('gives up on a Retry-After longer than 60 s and says so', () => {
    const d = decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 429 }, retryAfterHeader: '120' });
    expect(d.retry).toBe(false);
    if (!d.retry) {
      expect(d.reason).toBe('retry-after-too-long');
      expect(d.note).toContain('120 s');
      expect(d.note).toContain('60 s');
    }
  });

  it('stops when the run-wide quota cannot pay for the retry and says so', () => {
    const quota = createRetryQuota({ capacity: 14 });
    quota.take(10);
    const d = decideRetry({ ...base, attempt: 2, failure: { kind: 'status', status: 503 }, quota });
    expect(d).toEqual({
      retry: false,
      reason: 'quota-exhausted',
      note: "not retried: the run's retry quota is exhausted, too many requests are failing (4 of 14 tokens left; a retry costs 5, 10 after a timeout or connection failure, and successes refill it) after 2 attempts",
    });
  });

  it('charges a connection failure more than an HTTP answer', () => {
    const quota = createRetryQuota({ capacity: 9 });
    expect(decideRetry({ ...base, attempt: 1, failure: HTTP_503, quota })).toEqual({ retry: true, delayMs: 250, cost: 5 });
    expect(decideRetry({ ...base, attempt: 1, failure: REFUSED, quota })).toMatchObject({ retry: false, reason: 'quota-exhausted' });
  });

  it('does not take from the quota itself', () => {
    const quota = createRetryQuota({ capacity: 5 });
    decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 503 }, quota });
    expect(quota.available).toBe(5);
  });

  it('explains why an ambiguous POST failure is not retried', () => {
    const d = decideRetry({ ...base, mode: 'never-reached-only', attempt: 1, failure: { kind: 'network', requestSent: 'unknown', transient: true } });
    expect(d).toMatchObject({ retry: false, reason: 'not-retryable' });
    if (!d.retry) expect(d.note).toContain('not safe to send twice');
  });

  it('adds nothing for a plain non-retryable status on the first attempt', () => {
    expect(decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 404 } })).toEqual({ retry: false, reason: 'not-retryable', note: '' });
    expect(decideRetry({ ...base, attempt: 2, failure: { kind: 'status', status: 404 } })).toEqual({ retry: false, reason: 'not-retryable', note: 'after 2 attempts' });
  });

  it('respects a custom policy', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, maxRetryAfterMs: 1000 };
    expect(decideRetry({ ...base, policy, attempt: 2, failure: { kind: 'status', status: 503 } })).toMatchObject({ retry: false, reason: 'attempts-exhausted' });
    expect(decideRetry({ ...base, policy, attempt: 1, failure: { kind: 'status', status: 429 }, retryAfterHeader: '2' })).toMatchObject({
      retry: false,
      reason: 'retry-after-too-long',
    });
  });
});
