import { describe, expect, it } from 'vitest';
import {
  computeBackoff,
  computeRetryDelay,
  createRetryBudget,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  isRetryableFailure,
  parseRetryAfter,
  type AttemptFailure,
  type RetryPolicy,
} from '../../../src/api/retry.js';

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

describe('createRetryBudget', () => {
  it('allows at most maxRetries retries', () => {
    const budget = createRetryBudget({ maxRetries: 2 });
    expect(budget.canAfford(10)).toBe(true);
    budget.consume(10);
    budget.consume(10);
    expect(budget.canAfford(0)).toBe(false);
    expect(budget.retriesUsed).toBe(2);
  });

  it('bounds the total backoff time', () => {
    const budget = createRetryBudget({ maxRetries: 100, maxDelayMs: 1000 });
    budget.consume(900);
    expect(budget.canAfford(100)).toBe(true);
    expect(budget.canAfford(101)).toBe(false);
    expect(budget.delayUsedMs).toBe(900);
  });

  it('defaults to 20 retries and 120 s', () => {
    const budget = createRetryBudget();
    expect([budget.maxRetries, budget.maxDelayMs]).toEqual([20, 120_000]);
  });
});

describe('decideRetry', () => {
  const base = { now: NOW, random: fixed(0), mode: 'idempotent' as const };

  it('retries with the computed delay while attempts are left', () => {
    expect(decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 503 } })).toEqual({ retry: true, delayMs: 250 });
    expect(decideRetry({ ...base, attempt: 3, failure: { kind: 'status', status: 503 } })).toEqual({ retry: true, delayMs: 1000 });
  });

  it('gives up after 4 attempts in total and says so', () => {
    const d = decideRetry({ ...base, attempt: 4, failure: { kind: 'status', status: 503 } });
    expect(d).toEqual({ retry: false, reason: 'attempts-exhausted', note: 'gave up after 4 attempts' });
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

  it('stops when the run-wide budget is exhausted and says so', () => {
    const budget = createRetryBudget({ maxRetries: 1 });
    budget.consume(250);
    const d = decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 503 }, budget });
    expect(d.retry).toBe(false);
    if (!d.retry) {
      expect(d.reason).toBe('budget-exhausted');
      expect(d.note).toMatch(/retry budget is exhausted \(1 of 1 retries/);
    }
  });

  it('does not consume the budget itself', () => {
    const budget = createRetryBudget({ maxRetries: 1 });
    decideRetry({ ...base, attempt: 1, failure: { kind: 'status', status: 503 }, budget });
    expect(budget.retriesUsed).toBe(0);
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
