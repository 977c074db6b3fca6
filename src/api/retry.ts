/**
 * Retry policy of the API client: which failures are retried in which mode, how long to wait
 * (pure functions of attempt, headers, clock and random source, so tests inject both), and the
 * run-wide retry quota that makes an outage fail fast instead of multiplying waits.
 */
import { ApiConnectionError, ApiError, type RequestSent } from './errors.js';

/**
 * How a request may be retried, chosen by the caller who knows what the request does:
 * - `idempotent`: repeating it cannot do harm (GET, DELETE, a synchronous settings PATCH), so
 *   every transient failure is retried.
 * - `never-reached-only`: it starts work (POSTs that create tasks), so it is repeated only
 *   when the platform provably never acted on it: the connection was never made, or the
 *   platform answered 429 / 503 (refused at the door).
 * - `none`: never retried here, because the caller repeats the request on its own schedule
 *   (task polls) and must not spend the run-wide retry quota on it.
 */
export type RetryMode = 'idempotent' | 'never-reached-only' | 'none';

/** Tunables of the backoff. Defaults in {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** Total attempts per request when the platform answered (429, 5xx), the first included. */
  maxAttempts: number;
  /**
   * Total attempts per request when the last one got no answer (connection refused or lost, a
   * timeout): a platform that is down should be reported in seconds, not after a long backoff.
   */
  maxConnectionAttempts: number;
  /** Backoff before the first retry; doubles per attempt. */
  baseDelayMs: number;
  /** Cap of the exponential backoff (before jitter). */
  maxDelayMs: number;
  /** Longest Retry-After / Retry-After-Ms edgeform honours; a longer one means give up. */
  maxRetryAfterMs: number;
  /** `full`: uniform in [0, d]; `equal`: uniform in [d/2, d] (never retries instantly). */
  jitter: 'full' | 'equal';
}

/**
 * 6 attempts while the platform answers (so a request gets through 15% of 429/503 answers with
 * odds of 10⁻⁵ of failing: a 200-resource apply survives them), 4 while it does not answer at
 * all; 0.5 s·2ⁿ capped at 8 s with equal jitter, Retry-After honoured up to 60 s. The run-wide
 * retry quota bounds the total either way.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  maxConnectionAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  jitter: 'equal',
});

/** Statuses that mean "try again later" for an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Statuses that prove the platform did not act on the request (rate limited or unavailable),
 * so even a task-starting POST may be sent again.
 */
export const NEVER_REACHED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Statuses after which the platform may or may not have acted on a request: the transient ones
 * that are not refusals at the door (a timeout or a gateway / server error can come after the
 * work was started). Derived, so the three sets cannot disagree.
 */
export const UNKNOWN_OUTCOME_STATUSES: ReadonlySet<number> = new Set([...RETRYABLE_STATUSES].filter((status) => !NEVER_REACHED_STATUSES.has(status)));

/**
 * Whether a failed send leaves its outcome unknown: the connection was lost after sending (or
 * may have been), or the platform answered one of {@link UNKNOWN_OUTCOME_STATUSES} (408, 500,
 * 502, 504), which can come after it acted. Callers that start work re-read instead of resending.
 */
export function isUnknownOutcome(error: unknown): boolean {
  if (error instanceof ApiConnectionError) return error.requestSent !== false;
  return error instanceof ApiError && UNKNOWN_OUTCOME_STATUSES.has(error.status);
}

/** What went wrong with one attempt, as far as the retry decision needs to know. */
export type AttemptFailure =
  | { kind: 'status'; status: number }
  | {
      kind: 'network';
      /** Whether the request reached the server: false only when that is proven. */
      requestSent: RequestSent;
      /** False for failures that repeating cannot cure (TLS certificate, invalid request). */
      transient: boolean;
    };

/** Whether a failure may be retried in a mode (attempt counts and quota aside). */
export function isRetryableFailure(mode: RetryMode, failure: AttemptFailure): boolean {
  if (mode === 'none') return false;
  if (failure.kind === 'status') {
    return (mode === 'idempotent' ? RETRYABLE_STATUSES : NEVER_REACHED_STATUSES).has(failure.status);
  }
  if (!failure.transient) return false;
  return mode === 'idempotent' || failure.requestSent === false;
}

/** Inputs of {@link computeRetryDelay}; everything time- or chance-dependent is injected. */
export interface RetryDelayInput {
  /** How many attempts have failed so far (1 after the first failure). */
  attempt: number;
  /** The `Retry-After` response header, seconds or an HTTP date, if any. */
  retryAfterHeader?: string | readonly string[] | null;
  /** The `Retry-After-Ms` response header, milliseconds, if any (takes precedence). */
  retryAfterMsHeader?: string | readonly string[] | null;
  /** Current time in epoch milliseconds, to turn an HTTP-date Retry-After into a delay. */
  now: number;
  /** A random number in [0, 1). */
  random: () => number;
  policy?: Readonly<RetryPolicy>;
}

/**
 * The wait before the next attempt, in milliseconds, or `give-up` when the platform asked for
 * a longer wait than edgeform is willing to spend. A valid Retry-After(-Ms) is used as given
 * (the platform knows best); otherwise exponential backoff with jitter. Pure.
 */
export function computeRetryDelay(input: RetryDelayInput): number | 'give-up' {
  const policy = input.policy ?? DEFAULT_RETRY_POLICY;
  const asked = parseRetryAfter(input.retryAfterHeader, input.retryAfterMsHeader, input.now);
  if (asked !== null) return asked > policy.maxRetryAfterMs ? 'give-up' : asked;
  return computeBackoff(input.attempt, input.random, policy);
}

/** Exponential backoff with jitter for the given failed-attempt count (≥ 1). Pure. */
export function computeBackoff(attempt: number, random: () => number, policy: Readonly<RetryPolicy> = DEFAULT_RETRY_POLICY): number {
  const exponent = Math.max(0, attempt - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 30));
  const r = clampUnit(random());
  const delay = policy.jitter === 'full' ? ceiling * r : ceiling / 2 + (ceiling / 2) * r;
  return Math.round(delay);
}

/**
 * The delay a response asks for, in ms, or null when it asks for none or the headers are
 * malformed. `Retry-After-Ms` wins over `Retry-After`; a date in the past means 0.
 */
export function parseRetryAfter(
  retryAfterHeader: string | readonly string[] | null | undefined,
  retryAfterMsHeader: string | readonly string[] | null | undefined,
  now: number,
): number | null {
  const ms = firstValue(retryAfterMsHeader);
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = firstValue(retryAfterHeader);
  if (value === undefined) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return null;
  return Math.max(0, date - now);
}

/**
 * The run's retry quota, modelled on the AWS SDKs' "standard" retry mode: a bucket of tokens
 * shared by every request of the run. A retry takes tokens (more after a timeout or a
 * connection failure, which cost the platform and the run more); every success puts tokens
 * back: the cost of the retry that led to it, or a small increment when it needed none. While
 * most requests succeed the bucket stays full however long the run, so the allowance scales
 * with the work; when the platform is really down nothing refills it, retries stop once it is
 * empty, and the run fails fast instead of multiplying waits by the number of resources.
 */
export interface RetryQuota {
  /** Tokens when full (and at the start of the run). */
  readonly capacity: number;
  /** Tokens left now. */
  readonly available: number;
  /** Tokens a retry after this failure costs. */
  costOf(failure: AttemptFailure): number;
  /** Whether a retry of that cost can be paid for now. */
  canAfford(cost: number): boolean;
  /** Takes the tokens of one retry (the caller checked canAfford). */
  take(cost: number): void;
  /**
   * Records a successful request: refunds `retryCost`, the cost of the retry that led to the
   * success, or adds the no-retry increment when it succeeded at once (null); never above capacity.
   */
  recordSuccess(retryCost: number | null): void;
  /** A clause for error messages, e.g. "3 of 500 tokens left; a retry costs 5, 10 after a timeout or connection failure". */
  describe(): string;
}

/** Sizes of a {@link RetryQuota}; the defaults are the AWS SDKs' standard retry mode. */
export interface RetryQuotaOptions {
  /** Tokens when full; default 500. */
  capacity?: number;
  /** Cost of retrying after an HTTP answer (429, 5xx); default 5. */
  retryCost?: number;
  /** Cost of retrying after a timeout or a connection failure; default 10. */
  connectionRetryCost?: number;
  /** Tokens a request that succeeded without a retry adds; default 1. */
  noRetryIncrement?: number;
}

/** The AWS SDKs' standard-mode sizes: 500 tokens, 5 a retry, 10 after a timeout, 1 back per success. */
export const DEFAULT_RETRY_QUOTA: Readonly<Required<RetryQuotaOptions>> = Object.freeze({
  capacity: 500,
  retryCost: 5,
  connectionRetryCost: 10,
  noRetryIncrement: 1,
});

/** Creates a full retry quota for one run; share it between every client of the run. */
export function createRetryQuota(options: RetryQuotaOptions = {}): RetryQuota {
  const { capacity, retryCost, connectionRetryCost, noRetryIncrement } = { ...DEFAULT_RETRY_QUOTA, ...options };
  let available = capacity;
  return {
    capacity,
    get available() {
      return available;
    },
    costOf: (failure) => (failure.kind === 'network' ? connectionRetryCost : retryCost),
    canAfford: (cost) => cost <= available,
    take: (cost) => {
      available = Math.max(0, available - cost);
    },
    recordSuccess: (cost) => {
      available = Math.min(capacity, available + (cost ?? noRetryIncrement));
    },
    describe: () => `${available} of ${capacity} tokens left; a retry costs ${retryCost}, ${connectionRetryCost} after a timeout or connection failure, and successes refill it`,
  };
}

/** Why a failed attempt is not retried. */
export type GiveUpReason = 'not-retryable' | 'attempts-exhausted' | 'retry-after-too-long' | 'quota-exhausted';

/**
 * Outcome of {@link decideRetry}. A retry carries the tokens it costs when there is a quota;
 * `note` is a clause for the error message ('' when nothing to add).
 */
export type RetryDecision = { retry: true; delayMs: number; cost?: number } | { retry: false; reason: GiveUpReason; note: string };

/** Inputs of {@link decideRetry}. */
export interface RetryDecisionInput extends RetryDelayInput {
  mode: RetryMode;
  failure: AttemptFailure;
  quota?: RetryQuota;
}

/**
 * Decides whether to retry a failed attempt and after how long: retryable in this mode,
 * attempts left, Retry-After acceptable, tokens left in the quota. Pure apart from reading the
 * quota (the caller takes the cost when it acts on a `retry: true`).
 */
export function decideRetry(input: RetryDecisionInput): RetryDecision {
  const policy = input.policy ?? DEFAULT_RETRY_POLICY;
  const after = input.attempt > 1 ? ` after ${input.attempt} attempts` : '';
  if (!isRetryableFailure(input.mode, input.failure)) {
    const unsafe =
      input.failure.kind === 'network' && input.failure.transient && input.mode === 'never-reached-only'
        ? 'not retried: the request may have reached the platform and is not safe to send twice'
        : '';
    return { retry: false, reason: 'not-retryable', note: [unsafe, after.trim()].filter(Boolean).join('; ') };
  }
  if (input.attempt >= (input.failure.kind === 'network' ? policy.maxConnectionAttempts : policy.maxAttempts)) {
    return { retry: false, reason: 'attempts-exhausted', note: `gave up${after}` };
  }
  const delay = computeRetryDelay({ ...input, policy });
  if (delay === 'give-up') {
    const asked = parseRetryAfter(input.retryAfterHeader, input.retryAfterMsHeader, input.now) ?? 0;
    return {
      retry: false,
      reason: 'retry-after-too-long',
      note: `the platform asked to retry after ${formatSeconds(asked)}, longer than the ${formatSeconds(policy.maxRetryAfterMs)} edgeform waits${after}`,
    };
  }
  if (!input.quota) return { retry: true, delayMs: delay };
  const cost = input.quota.costOf(input.failure);
  if (!input.quota.canAfford(cost)) {
    return {
      retry: false,
      reason: 'quota-exhausted',
      note: `not retried: the run's retry quota is exhausted, too many requests are failing (${input.quota.describe()})${after}`,
    };
  }
  return { retry: true, delayMs: delay, cost };
}

function firstValue(header: string | readonly string[] | null | undefined): string | undefined {
  if (header === null || header === undefined) return undefined;
  const value = typeof header === 'string' ? header : header[0];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function clampUnit(n: number): number {
  if (!Number.isFinite(n) || n < 0) return 0;
  return n >= 1 ? 1 : n;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * Failures that by themselves prove the platform cannot be reached at its base URL: the host
 * answered the connection with a reset (nothing listens there) or its name does not resolve.
 * Retrying them in a second cannot help, and no request of the run can succeed.
 */
export const DECISIVE_NETWORK_FAILURES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/** What the outage breaker made of one failed attempt. */
export type OutageVerdict =
  /** Proves the platform unreachable on its own (see DECISIVE_NETWORK_FAILURES): the run stops. */
  | 'down'
  /** A 5xx or a lost connection: counts toward the run's outage budget. */
  | 'counted'
  /** Says nothing about the platform being down (a 4xx, a 429: it answered). */
  | 'ignored';

/**
 * The run's outage breaker, shared by every request of a run (as the retry quota is): it decides
 * once, for the whole run, that the platform is down, instead of letting each request retry on
 * its own schedule (which multiplies the waits and the retry lines by the number of reads).
 * - A refused connection or an unresolvable host (DECISIVE_NETWORK_FAILURES) is decisive at once.
 * - 5xx answers and lost connections open a streak that any success of the run closes. Once the
 *   streak holds `minFailures` failed attempts, a retry that would start more than `budgetMs`
 *   after the streak began is refused: the platform is declared down.
 * Once down (`trip`), `signal` aborts (every retry wait of the run ends at once) and `tripped`
 * holds the error that decided it, which every request still running rejects with. A 429 or a
 * lone 503 in a run whose other requests succeed never trips it: the platform is up.
 */
export interface OutageBreaker {
  /** The error that declared the platform down, or null while it is not. */
  readonly tripped: Error | null;
  /** Aborts (with `tripped` as reason) when the platform is declared down. */
  readonly signal: AbortSignal;
  /** Records an answered request (2xx): the platform is up, the streak ends. */
  recordSuccess(): void;
  /** Records a failed attempt and says what it proves. */
  recordFailure(failure: AttemptFailure, reason: string): OutageVerdict;
  /** Whether a retry after `delayMs` stays within the run's outage budget. */
  allowsRetry(delayMs: number): boolean;
  /** Declares the platform down with `error` (the first call wins). */
  trip(error: Error): void;
  /** A clause for the error message: why the platform was declared down. */
  describe(verdict: 'down' | 'budget', reason: string): string;
}

/** Sizes of an {@link OutageBreaker}. */
export interface OutageBreakerOptions {
  /** Longest span of failures with no success before the run stops; default 3000 ms. */
  budgetMs?: number;
  /** Failed attempts in a streak before the budget applies; default 3. */
  minFailures?: number;
  /** Injected for tests: the clock (epoch ms). */
  now?: () => number;
}

/** 3 s of nothing but failures (after at least 3 of them) and the platform is down. */
export const DEFAULT_OUTAGE_BUDGET: Readonly<Required<Omit<OutageBreakerOptions, 'now'>>> = Object.freeze({ budgetMs: 3_000, minFailures: 3 });

/** Creates the outage breaker of one run; share it between every client of the run. */
export function createOutageBreaker(options: OutageBreakerOptions = {}): OutageBreaker {
  const { budgetMs, minFailures } = { ...DEFAULT_OUTAGE_BUDGET, ...options };
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  let tripped: Error | null = null;
  let streakStart: number | null = null;
  let streakFailures = 0;
  return {
    get tripped() {
      return tripped;
    },
    signal: controller.signal,
    recordSuccess() {
      streakStart = null;
      streakFailures = 0;
    },
    recordFailure(failure, reason) {
      if (failure.kind === 'network' && failure.requestSent === false && DECISIVE_NETWORK_FAILURES.has(reason)) return 'down';
      const outage = failure.kind === 'network' ? failure.transient : failure.status >= 500;
      if (!outage) return 'ignored';
      streakStart ??= now();
      streakFailures++;
      return 'counted';
    },
    allowsRetry(delayMs) {
      if (streakStart === null || streakFailures < minFailures) return true;
      return now() + delayMs - streakStart <= budgetMs;
    },
    trip(error) {
      if (tripped !== null) return;
      tripped = error;
      controller.abort(error);
    },
    describe(verdict, reason) {
      if (verdict === 'down') return `not retried: ${reason === 'ENOTFOUND' ? 'the host name does not resolve' : 'nothing accepts connections there'}`;
      const span = streakStart === null ? 0 : now() - streakStart;
      return `every request failed for ${formatSeconds(span)} (${streakFailures} attempts, none succeeded): not retried further`;
    },
  };
}
