/**
 * The API client: the one place edgeform talks HTTP. One undici Pool for the platform's origin
 * (bounded connections, keep-alive), the auth and identity headers, JSON in and out, connect /
 * headers / body / whole-request timeouts, retries by mode within a run-wide retry quota, a cap
 * on the size of answers, answers checked against the caller's schema, typed errors, and secret
 * redaction of everything it throws.
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { Pool } from './pool.js';
import type { z } from 'zod';
import { checkAnswer, type AnswerForm } from './answer.js';
import { authorizationHeader } from './auth.js';
import { normalizeBaseUrl } from './base-url.js';
import { parseErrorBody, productOf, toOneLine } from './error-body.js';
import {
  ApiConnectionError,
  ApiResponseParseError,
  ApiResponseTooLargeError,
  ApiTimeoutError,
  createApiError,
  toRunFatalError,
  UnexpectedResponseError,
  type TimeoutPhase,
} from './errors.js';
import { classifyNetworkError, isUnreachable } from './network-failure.js';
import { redact } from './redact.js';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter, type AttemptFailure, type OutageBreaker, type RetryMode, type RetryQuota, type RetryPolicy } from './retry.js';
import { redactDeep, sanitizeError, scrubOwnError } from './sanitize.js';
import { createRequestLimiter, type RequestLimiter } from './request-limiter.js';
import { abortReason, sleep as realSleep, type Sleep } from './sleep.js';
import { EdgeformError, must } from '../errors.js';
import { VERSION } from '../version.js';

/** HTTP methods the platform's API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A query parameter value; arrays become repeated keys (`?state=NEW&state=RUNNING`); null/undefined are left out. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/** Query parameters of a request. */
export type Query = Readonly<Record<string, QueryValue>>;

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One API call; `T` is the answer's type, which `schema` checks. */
export interface ApiRequestOptions<T = unknown> {
  method: HttpMethod;
  /** Path under the base URL, starting with the product: `/cloud/v1/tasks/…`. Build it with apiPath. */
  path: string;
  query?: Query;
  /** Sent as JSON when not undefined (null is sent as `null`). */
  body?: unknown;
  /** Cancels the request and any retry wait; the request then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Retry mode. Defaults: GET, PUT and DELETE `idempotent`; POST and PATCH
   * `never-reached-only` (pass `idempotent` for a PATCH that is synchronous and idempotent).
   */
  retry?: RetryMode;
  /** Overrides the whole-request timeout for this call. */
  timeoutMs?: number;
  /**
   * Goes ahead of the requests waiting for a slot (see ApiClientOptions.maxConcurrentRequests):
   * for task polls, whose answers free the work waiting on those tasks.
   */
  urgent?: boolean;
  /**
   * The shape of the fields the caller uses of a 2xx answer (loose objects, so extra fields are
   * fine). The body is parsed with it, and an answer that does not fit is refused with
   * UnexpectedResponseError naming the request and the field. Every answer whose body is read
   * should give one: the platform's answers are untrusted input.
   */
  schema?: z.ZodType<T>;
}

/** Options of the convenience methods: everything but method, path and body. */
export type ApiCallOptions<T = unknown> = Omit<ApiRequestOptions<T>, 'method' | 'path' | 'body'>;

/** A successful (2xx) answer. `body` is the parsed JSON, the text of a non-JSON answer, or null when empty. */
export interface ApiResponse<T> {
  status: number;
  headers: ResponseHeaders;
  body: T;
  /** The `X-Request-ID` header, when the platform sent one. */
  requestId: string | null;
}

/** Timeouts in milliseconds; defaults in {@link DEFAULT_TIMEOUTS}. */
export interface ApiTimeouts {
  /** To establish the TCP/TLS connection (a timeout here proves nothing was sent). */
  connectMs: number;
  /** From sending the request to receiving the response headers. */
  headersMs: number;
  /** Between chunks of the response body. */
  bodyMs: number;
  /** The whole attempt, connect to last body byte. */
  requestMs: number;
}

/**
 * The largest answer body read by default, 16 MiB: far above any answer edgeform reads (a full
 * page of 1000 cloud resources is a few MiB), far below what would exhaust memory when several
 * reads run at once.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** 10 s to connect, 30 s for headers, 30 s between body chunks, 90 s per attempt. */
export const DEFAULT_TIMEOUTS: Readonly<ApiTimeouts> = Object.freeze({
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  requestMs: 90_000,
});

/** Reported before each retry wait, for progress output and logs (already redacted). */
export interface RetryEvent {
  method: HttpMethod;
  path: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  /** What failed, e.g. `HTTP 503` or `ECONNREFUSED`. */
  reason: string;
  /** The status the platform answered, or null when no answer came (then `reason` names the failure). */
  status: number | null;
}

/**
 * One request and its answer, reported after each attempt (for `EDGEFORM_LOG=debug`): already
 * redacted. `status` is null when no answer came (then `outcome` names the failure).
 */
export interface ExchangeEvent {
  method: HttpMethod;
  /** The path with its query, as sent (after the base URL's own path). */
  path: string;
  status: number | null;
  /** `200`, `HTTP 503`, or the network failure (`ECONNRESET`, `request timeout`). */
  outcome: string;
  /** From sending to the end of the answer's body. */
  durationMs: number;
  /** The platform's `x-request-id` header, when it sent one. */
  requestId: string | null;
}

/** Settings of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Resolved base URL (see resolveBaseUrl); validated again here. */
  baseUrl: string;
  apiKey: string;
  /**
   * Most requests on the wire at once (--parallelism; default `connections`, else 10). A request holds its slot from
   * sending to the end of its answer's body, not while it waits to be retried, so waiting never
   * takes a slot from the requests that could go. The whole-request timeout starts once it has one.
   */
  maxConcurrentRequests?: number;
  /** Connections in the pool (default maxConcurrentRequests, so that a request with a slot never waits for a connection). */
  connections?: number;
  timeouts?: Partial<ApiTimeouts>;
  /**
   * The largest answer body read (default {@link DEFAULT_MAX_RESPONSE_BYTES}). A larger 2xx
   * answer is refused with ApiResponseTooLargeError without being buffered: a Content-Length
   * over it before reading, otherwise once the bytes read pass it. A larger error answer keeps
   * its status but not its body. Either way the connection is closed.
   */
  maxResponseBytes?: number;
  retryPolicy?: Partial<RetryPolicy>;
  /** The run-wide retry quota; share one between all clients of a run. None = unlimited. */
  retryQuota?: RetryQuota;
  /**
   * The run's outage breaker (see createOutageBreaker); share one between all clients of a run.
   * Once it declares the platform down, every request of the run rejects with that one error,
   * retry waits included. None = each request decides alone.
   */
  outage?: OutageBreaker;
  /** Injected for tests: waits between retries. */
  sleep?: Sleep;
  /** Injected for tests: jitter source in [0, 1). */
  random?: () => number;
  /** Injected for tests: clock for HTTP-date Retry-After. */
  now?: () => number;
  onRetry?: (event: RetryEvent) => void;
  /** Called after every attempt with what was sent and answered (see ExchangeEvent); for debug logs. */
  onExchange?: (event: ExchangeEvent) => void;
  /** More strings to redact besides the API key. */
  secrets?: readonly string[];
}

/** The platform API, as providers and the task poller see it. */
export interface ApiClient {
  /** The normalised base URL requests go to. */
  readonly baseUrl: string;
  /**
   * Sends a request, retrying per its mode, and resolves with a 2xx answer (its body parsed
   * with `schema` when given). Rejects with an ApiError subclass for other statuses,
   * ApiConnectionError / ApiTimeoutError when there was no answer, UnexpectedResponseError (or
   * its subclasses for a body that is not JSON or too large) for a 2xx answer it cannot use,
   * or the signal's reason when aborted. Nothing it rejects with contains a secret.
   */
  request<T = unknown>(options: ApiRequestOptions<T>): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, options?: ApiCallOptions<T>): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions<T>): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions<T>): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions<T>): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, options?: ApiCallOptions<T>): Promise<ApiResponse<T>>;
  /** Redacts this client's secrets from a text (for callers that print platform text). */
  redact(text: string): string;
  /** Closes the connection pool after in-flight requests finish. */
  close(): Promise<void>;
  /**
   * For a client made around another (clientAround): the client it was made around, first of
   * the chain. What a run caches per client (an instance's flavors) keys by it, so a wrapper made
   * for some requests only (urgent reads) shares the run's cache. Absent: the client itself.
   */
  readonly cacheKey?: object;
}

/** Why the client gave up on a request, for the error it throws. */
interface GaveUp {
  /** Clause appended to the message ('' when nothing to add). */
  note: string;
  quotaExhausted: boolean;
  /** The run's outage breaker declared the platform down on this failure. */
  platformDown: boolean;
}

/**
 * What a client holds for its life: its settings, resolved once, the connection pool and the
 * request slots. Every step of a request reads it.
 */
interface Transport {
  options: ApiClientOptions;
  baseUrl: string;
  /** The base URL's own path, put before every API path. */
  prefix: string;
  timeouts: ApiTimeouts;
  maxResponseBytes: number;
  policy: RetryPolicy;
  secrets: string[];
  sleep: Sleep;
  random: () => number;
  now: () => number;
  baseHeaders: Readonly<Record<string, string>>;
  limiter: RequestLimiter;
  pool: UndiciPool;
}

/** How one attempt of a request ended. */
type Outcome<T> =
  | { kind: 'ok'; response: ApiResponse<T> }
  | { kind: 'aborted'; reason: unknown }
  | { kind: 'fatal'; error: Error }
  /** The run's outage breaker had declared the platform down: nothing was sent. */
  | { kind: 'down'; error: Error }
  | Failed;

/** An attempt that failed in a way the retry policy decides on. */
interface Failed {
  kind: 'failed';
  failure: AttemptFailure;
  reason: string;
  retryAfter?: string | string[] | undefined;
  retryAfterMs?: string | string[] | undefined;
  /** The answer's x-request-id (redacted), when there was an answer with one. */
  requestId?: string | null;
  toError: (why: GaveUp) => Error;
}

/** Builds a client for one platform endpoint and key. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const transport = createTransport(options);
  return clientAround({ baseUrl: transport.baseUrl, redact: (text) => redact(text, transport.secrets), close: () => transport.pool.close() }, (req) =>
    requestWithRetries(transport, req),
  );
}

/** Resolves a client's settings and opens its pool. */
function createTransport(options: ApiClientOptions): Transport {
  const baseUrl = normalizeBaseUrl(options.baseUrl, 'base URL');
  const url = new URL(baseUrl);
  const timeouts: ApiTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const limiter = createRequestLimiter(options.maxConcurrentRequests ?? options.connections ?? 10);
  return {
    options,
    baseUrl,
    prefix: url.pathname.replace(/\/+$/, ''),
    timeouts,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retryPolicy },
    secrets: [options.apiKey, ...(options.secrets ?? [])].filter((s) => s.length > 0),
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    baseHeaders: {
      authorization: authorizationHeader(options.apiKey),
      'user-agent': `edgeform/${VERSION}`,
      accept: 'application/json',
    },
    limiter,
    pool: new Pool(url.origin, {
      connections: options.connections ?? limiter.concurrency,
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 4_000,
    }),
  };
}

/**
 * One request: attempts until one succeeds or the retry mode, the policy, the quota or the
 * outage breaker says stop (see decideNextAttempt). What it rejects with is redacted.
 */
async function requestWithRetries<T>(t: Transport, req: ApiRequestOptions<T>): Promise<ApiResponse<T>> {
  try {
    // Serialised once, outside the transport, so a bad body is a plain programming error.
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const breaker = t.options.outage;
    // Retry waits end at once when the run's outage breaker declares the platform down.
    const waitSignal = breaker ? (req.signal ? AbortSignal.any([req.signal, breaker.signal]) : breaker.signal) : req.signal;
    // The cost of the last retry, refunded to the quota when the request then succeeds.
    let retryCost: number | null = null;
    for (let n = 1; ; n++) {
      if (req.signal?.aborted) throw abortReason(req.signal);
      const outcome = await attempt<T>(t, req, payload);
      if (outcome.kind === 'ok') {
        t.options.retryQuota?.recordSuccess(retryCost);
        breaker?.recordSuccess();
        return outcome.response;
      }
      if (outcome.kind === 'aborted') throw outcome.reason;
      if (outcome.kind === 'down') throw outcome.error;
      if (outcome.kind === 'fatal') throw scrubOwnError(outcome.error, t.secrets);
      const retry = decideNextAttempt(t, req, outcome, n);
      if (retry.cost !== undefined) retryCost = retry.cost;
      try {
        await t.sleep(retry.delayMs, waitSignal);
      } catch (error) {
        // The breaker cut the wait short: the run's error, not the wait's.
        if (breaker?.tripped && !req.signal?.aborted) throw breaker.tripped;
        throw error;
      }
    }
  } catch (error) {
    // Aborts surface as the caller's own reason; anything unexpected is sanitized.
    if (req.signal?.aborted && error === req.signal.reason) throw error;
    if (error instanceof EdgeformError) throw error;
    if (req.signal?.aborted) throw abortReason(req.signal);
    throw sanitizeError(error, t.secrets);
  }
}

/**
 * After failed attempt `n`: the wait before the next one (and the quota it took), reported
 * through onRetry; or throws the error to give up with: the platform is down (the breaker, now
 * or by another request meanwhile), or the retry mode, the policy or the quota says no.
 */
function decideNextAttempt<T>(t: Transport, req: ApiRequestOptions<T>, outcome: Failed, n: number): { delayMs: number; cost?: number } {
  const breaker = t.options.outage;
  const quota = t.options.retryQuota;
  // Another request declared the platform down while this one was on the wire.
  if (breaker?.tripped) throw breaker.tripped;
  const verdict = breaker?.recordFailure(outcome.failure, outcome.reason) ?? 'ignored';
  if (breaker && verdict === 'down') throw declareDown(t, breaker, outcome.toError({ note: breaker.describe('down', outcome.reason), quotaExhausted: false, platformDown: true }));
  const decision = decideRetry({
    mode: req.retry ?? defaultRetryMode(req.method),
    failure: outcome.failure,
    attempt: n,
    retryAfterHeader: outcome.retryAfter,
    retryAfterMsHeader: outcome.retryAfterMs,
    now: t.now(),
    random: t.random,
    policy: t.policy,
    ...(quota ? { quota } : {}),
  });
  if (!decision.retry) throw scrubOwnError(outcome.toError({ note: decision.note, quotaExhausted: decision.reason === 'quota-exhausted', platformDown: false }), t.secrets);
  if (breaker && verdict === 'counted' && !breaker.allowsRetry(decision.delayMs)) {
    throw declareDown(t, breaker, outcome.toError({ note: breaker.describe('budget', outcome.reason), quotaExhausted: false, platformDown: true }));
  }
  const charged = quota && decision.cost !== undefined;
  if (charged) quota.take(must(decision.cost, 'decision.cost'));
  t.options.onRetry?.({
    method: req.method,
    path: redact(req.path, t.secrets),
    attempt: n,
    delayMs: decision.delayMs,
    reason: outcome.reason,
    status: outcome.failure.kind === 'status' ? outcome.failure.status : null,
  });
  return charged ? { delayMs: decision.delayMs, cost: must(decision.cost, 'decision.cost') } : { delayMs: decision.delayMs };
}

/** Trips the breaker with the (redacted) error that proves the platform down; returns what the run rejects with. */
function declareDown(t: Transport, breaker: OutageBreaker, error: Error): Error {
  breaker.trip(scrubOwnError(error, t.secrets));
  return breaker.tripped ?? error;
}

/** One attempt: waits for a request slot, sends unless aborted or the platform is down, and reports the exchange. */
async function attempt<T>(t: Transport, req: ApiRequestOptions<T>, payload: string | undefined): Promise<Outcome<T>> {
  const release = await t.limiter.acquire(req.urgent === true);
  try {
    // Aborted while it waited for a slot: give the slot straight back.
    if (req.signal?.aborted) return { kind: 'aborted', reason: abortReason(req.signal) };
    const down = t.options.outage?.tripped;
    if (down) return { kind: 'down', error: down };
    if (!t.options.onExchange) return await attemptWithSlot(t, req, payload);
    const started = performance.now();
    const outcome = await attemptWithSlot(t, req, payload);
    reportExchange(t, req, outcome, performance.now() - started);
    return outcome;
  } finally {
    release();
  }
}

/** Tells onExchange what an attempt sent and what came back (redacted). */
function reportExchange<T>(t: Transport, req: ApiRequestOptions<T>, outcome: Outcome<T>, durationMs: number): void {
  if (outcome.kind === 'aborted' || outcome.kind === 'down') return;
  const onExchange = t.options.onExchange;
  const path = redact(buildPath(t.prefix, req.path, req.query), t.secrets);
  const base = { method: req.method, path, durationMs: Math.round(durationMs) };
  if (outcome.kind === 'ok') {
    onExchange?.({ ...base, status: outcome.response.status, outcome: String(outcome.response.status), requestId: outcome.response.requestId });
  } else if (outcome.kind === 'fatal') {
    const status = (outcome.error as { status?: unknown }).status;
    const requestId = (outcome.error as { requestId?: unknown }).requestId;
    onExchange?.({
      ...base,
      status: typeof status === 'number' ? status : null,
      outcome: typeof status === 'number' ? `${status}, refused: ${outcome.error.name}` : outcome.error.name,
      requestId: typeof requestId === 'string' ? requestId : null,
    });
  } else {
    onExchange?.({
      ...base,
      status: outcome.failure.kind === 'status' ? outcome.failure.status : null,
      outcome: outcome.reason,
      requestId: outcome.requestId ?? null,
    });
  }
}

/** One attempt on the wire, holding a slot: sends the request within the whole-request timeout and reads its answer, up to the cap. */
async function attemptWithSlot<T>(t: Transport, req: ApiRequestOptions<T>, payload: string | undefined): Promise<Outcome<T>> {
  const timeoutMs = req.timeoutMs ?? t.timeouts.requestMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('request timed out', 'TimeoutError')), timeoutMs);
  // One run-wide signal is shared by every request in flight: AbortSignal.any follows it
  // without adding a listener to it per request (which Node warns about past 10).
  const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
  try {
    const headers = payload === undefined ? t.baseHeaders : { ...t.baseHeaders, 'content-type': 'application/json' };
    const res = await t.pool.request({
      path: buildPath(t.prefix, req.path, req.query),
      method: req.method,
      headers,
      body: payload,
      signal,
    });
    const answer = answerHeaders(t, res);
    const text = await readCapped(res.body, answer.declaredBytes, t.maxResponseBytes);
    return answer.status >= 200 && answer.status < 300 ? successOf(t, req, { ...answer, text }) : failedStatus(t, req, { ...answer, text });
  } catch (error) {
    if (req.signal?.aborted) return { kind: 'aborted', reason: abortReason(req.signal) };
    return noAnswer(t, req, error, controller.signal.aborted ? timeoutMs : null);
  } finally {
    clearTimeout(timer);
  }
}

/** What an answer's status line and headers say (the request id redacted). */
function answerHeaders(t: Transport, res: Dispatcher.ResponseData): Omit<Answer, 'text'> {
  const headers = res.headers as ResponseHeaders;
  const rawRequestId = firstHeader(headers['x-request-id']);
  return {
    status: res.statusCode,
    headers,
    requestId: rawRequestId === undefined ? null : redact(rawRequestId, t.secrets),
    contentType: firstHeader(headers['content-type']),
    declaredBytes: parseContentLength(firstHeader(headers['content-length'])),
  };
}

/** An answer's status and headers, and its body (null when over the cap). */
interface Answer {
  status: number;
  headers: ResponseHeaders;
  /** The x-request-id header, redacted. */
  requestId: string | null;
  contentType: string | undefined;
  declaredBytes: number | null;
  text: string | null;
}

/** A 2xx answer: its body parsed and checked against the caller's schema, or refused (too large, not JSON, not the shape). */
function successOf<T>(t: Transport, req: ApiRequestOptions<T>, answer: Answer): Outcome<T> {
  const exchange = { method: req.method, path: redact(req.path, t.secrets), status: answer.status, requestId: answer.requestId };
  if (answer.text === null) {
    const declared = answer.declaredBytes !== null && answer.declaredBytes > t.maxResponseBytes ? answer.declaredBytes : null;
    return { kind: 'fatal', error: new ApiResponseTooLargeError({ ...exchange, limitBytes: t.maxResponseBytes, declaredBytes: declared }) };
  }
  const parsed = parseSuccessBody(answer.text, answer.contentType);
  if (!parsed.ok) return { kind: 'fatal', error: new ApiResponseParseError({ ...exchange, detail: redact(parsed.detail, t.secrets) }) };
  let body = parsed.value as T;
  if (req.schema) {
    const checked = checkAnswer(req.schema, parsed.value, parsed.form, (text) => redact(text, t.secrets));
    if (!checked.ok) return { kind: 'fatal', error: new UnexpectedResponseError({ ...exchange, ...checked.mismatch }) };
    body = checked.value;
  }
  return { kind: 'ok', response: { status: answer.status, headers: answer.headers, body, requestId: answer.requestId } };
}

/** Any other status: a failure the retry policy decides on, whose error carries the platform's message (an answer too large to read keeps its status). */
function failedStatus<T>(t: Transport, req: ApiRequestOptions<T>, answer: Answer): Failed {
  const parsed = parseErrorBody(answer.text ?? '', answer.contentType);
  const { status, requestId } = answer;
  const retryAfter = answer.headers['retry-after'];
  const retryAfterMs = answer.headers['retry-after-ms'];
  return {
    kind: 'failed',
    failure: { kind: 'status', status },
    reason: `HTTP ${status}`,
    retryAfter,
    retryAfterMs,
    requestId,
    toError: ({ note, quotaExhausted, platformDown }) =>
      createApiError({
        method: req.method,
        path: redact(req.path, t.secrets),
        status,
        requestId: requestId ?? (parsed.requestId === null ? null : redact(parsed.requestId, t.secrets)),
        product: productOf(req.path),
        body: redactDeep(parsed.body, t.secrets),
        platformMessage: parsed.platformMessage === null ? null : toOneLine(redact(parsed.platformMessage, t.secrets)),
        retryAfterMs: parseRetryAfter(retryAfter, retryAfterMs, t.now()),
        note,
        quotaExhausted,
        platformDown,
      }),
  };
}

/**
 * No answer: the whole-request timeout (`timedOutAfterMs`, when it fired) or a network failure,
 * classified by whether the request may have been sent.
 */
function noAnswer<T>(t: Transport, req: ApiRequestOptions<T>, error: unknown, timedOutAfterMs: number | null): Failed {
  const cause = sanitizeError(error, t.secrets);
  const path = redact(req.path, t.secrets);
  if (timedOutAfterMs !== null) {
    return {
      kind: 'failed',
      failure: { kind: 'network', requestSent: 'unknown', transient: true },
      reason: 'request timeout',
      toError: ({ note, quotaExhausted, platformDown }) =>
        new ApiTimeoutError({
          method: req.method,
          path,
          requestSent: 'unknown',
          reason: 'EDGEFORM_REQUEST_TIMEOUT',
          detail: cause.message,
          phase: 'request',
          timeoutMs: timedOutAfterMs,
          note,
          quotaExhausted,
          platformDown,
          cause,
        }),
    };
  }
  const failure = classifyNetworkError(error);
  const detail = cause.message === '' ? failure.reason : cause.message.includes(failure.reason) ? cause.message : `${failure.reason}: ${cause.message}`;
  const base = { method: req.method, path, requestSent: failure.requestSent, reason: failure.reason, detail, cause, unreachable: isUnreachable(failure) };
  const phase = failure.timeoutPhase;
  return {
    kind: 'failed',
    failure: { kind: 'network', requestSent: failure.requestSent, transient: failure.transient },
    reason: failure.reason,
    toError: ({ note, quotaExhausted, platformDown }) =>
      phase
        ? new ApiTimeoutError({ ...base, phase, timeoutMs: phaseTimeout(phase, t.timeouts), note, quotaExhausted, platformDown })
        : new ApiConnectionError({ ...base, note, quotaExhausted, platformDown }),
  };
}

/**
 * A client whose every call goes through `request`: the convenience methods are built on it, so
 * a wrapper (withRunFatalErrors, a test's recorder) sees every request whichever method was used.
 */
export function clientAround(base: Pick<ApiClient, 'baseUrl' | 'redact' | 'close' | 'cacheKey'>, request: ApiClient['request']): ApiClient {
  // `base` is read when asked, not now: a wrapper may be made before its client is used (or exists).
  return {
    get baseUrl() {
      return base.baseUrl;
    },
    get cacheKey() {
      return base.cacheKey ?? base;
    },
    request,
    get: (path, opts) => request({ ...opts, method: 'GET', path }),
    post: (path, body, opts) => request({ ...opts, method: 'POST', path, body }),
    patch: (path, body, opts) => request({ ...opts, method: 'PATCH', path, body }),
    put: (path, body, opts) => request({ ...opts, method: 'PUT', path, body }),
    delete: (path, opts) => request({ ...opts, method: 'DELETE', path }),
    redact: (text) => base.redact(text),
    close: () => base.close(),
  };
}

/**
 * The same client, except that a failure which means no request of this run can succeed (see
 * toRunFatalError: the key refused, the platform unreachable after retries, the retry quota
 * empty) rejects with a RunFatalError naming the platform, its `cause` the original error. The
 * provider context hands providers this view, so plan, drift and apply all stop on one error.
 */
export function withRunFatalErrors(api: ApiClient): ApiClient {
  const request = async <T>(req: ApiRequestOptions<T>): Promise<ApiResponse<T>> => {
    try {
      return await api.request<T>(req);
    } catch (error) {
      throw toRunFatalError(error, { baseUrl: api.baseUrl, singleAttempt: (req.retry ?? defaultRetryMode(req.method)) === 'none' }) ?? error;
    }
  };
  return clientAround(api, request);
}

/** The retry mode a method gets when the caller does not choose one. */
export function defaultRetryMode(method: HttpMethod): RetryMode {
  return method === 'POST' || method === 'PATCH' ? 'never-reached-only' : 'idempotent';
}

/** Joins the base path prefix, the API path and the query (arrays as repeated keys). */
export function buildPath(prefix: string, path: string, query?: Query): string {
  const joined = `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
  if (!query) return joined;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value as ReadonlyArray<string | number | boolean>) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const qs = params.toString();
  if (qs === '') return joined;
  return `${joined}${joined.includes('?') ? '&' : '?'}${qs}`;
}

/** A response body as text, or null when it is larger than `limit` bytes (the stream is then destroyed, unread). */
async function readCapped(body: Dispatcher.ResponseData['body'], declaredBytes: number | null, limit: number): Promise<string | null> {
  // Destroying an unfinished undici body aborts the request (closing the connection) and emits
  // the abort as an 'error' nobody else listens to.
  const discard = () => {
    body.on('error', () => undefined);
    body.destroy();
  };
  if (declaredBytes !== null && declaredBytes > limit) {
    discard();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      discard();
      return null;
    }
    chunks.push(chunk);
  }
  // TextDecoder drops a leading byte order mark, as undici's body.text() does.
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** A Content-Length header's value, or null when absent or not a plain decimal number. */
function parseContentLength(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
}

type SuccessBody = { ok: true; value: unknown; form: AnswerForm } | { ok: false; detail: string };

function parseSuccessBody(text: string, contentType: string | undefined): SuccessBody {
  if (text.trim() === '') return { ok: true, value: null, form: { kind: 'empty' } };
  const claimsJson = /json/i.test(contentType ?? '');
  const asText: SuccessBody = { ok: true, value: text, form: { kind: 'text', mediaType: mediaTypeOf(contentType) } };
  if (!claimsJson && !/^\s*[[{]/.test(text)) return asText;
  try {
    return { ok: true, value: JSON.parse(text) as unknown, form: { kind: 'json' } };
  } catch (error) {
    if (!claimsJson) return asText;
    return { ok: false, detail: error instanceof Error ? error.message : 'parse error' };
  }
}

/** The media type of a Content-Type (`text/html`), or null when absent or odd (it is printed). */
function mediaTypeOf(contentType: string | undefined): string | null {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return /^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,40}$/.test(type) ? type : null;
}

function phaseTimeout(phase: Exclude<TimeoutPhase, 'request'>, timeouts: ApiTimeouts): number {
  return phase === 'connect' ? timeouts.connectMs : phase === 'headers' ? timeouts.headersMs : timeouts.bodyMs;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
