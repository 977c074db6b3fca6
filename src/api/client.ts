/**
 * The API client: the one place edgeform talks HTTP. One undici Pool for the platform's origin
 * (bounded connections, keep-alive), the auth and identity headers, JSON in and out, connect /
 * headers / body / whole-request timeouts, retries by mode within a run-wide retry quota, typed
 * errors, and secret redaction of everything it throws.
 */
import { Pool } from 'undici';
import { authorizationHeader } from './auth.js';
import { normalizeBaseUrl } from './base-url.js';
import { parseErrorBody, productOf } from './error-body.js';
import { ApiConnectionError, ApiResponseParseError, ApiTimeoutError, createApiError, toRunFatalError, type TimeoutPhase } from './errors.js';
import { classifyNetworkError, isUnreachable } from './network-failure.js';
import { redact } from './redact.js';
import {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  parseRetryAfter,
  type AttemptFailure,
  type RetryMode,
  type RetryQuota,
  type RetryPolicy,
} from './retry.js';
import { redactDeep, sanitizeError, scrubOwnError } from './sanitize.js';
import { abortReason, sleep as realSleep, type Sleep } from './sleep.js';
import { EdgeformError } from '../errors.js';
import { VERSION } from '../version.js';

/** HTTP methods the platform's API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A query parameter value; arrays become repeated keys (`?state=NEW&state=RUNNING`); null/undefined are left out. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/** Query parameters of a request. */
export type Query = Readonly<Record<string, QueryValue>>;

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One API call. */
export interface ApiRequestOptions {
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
}

/** Options of the convenience methods: everything but method, path and body. */
export type ApiCallOptions = Omit<ApiRequestOptions, 'method' | 'path' | 'body'>;

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
}

/** Settings of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Resolved base URL (see resolveBaseUrl); validated again here. */
  baseUrl: string;
  apiKey: string;
  /** Most concurrent connections to the platform (default 10). */
  connections?: number;
  timeouts?: Partial<ApiTimeouts>;
  retryPolicy?: Partial<RetryPolicy>;
  /** The run-wide retry quota; share one between all clients of a run. None = unlimited. */
  retryQuota?: RetryQuota;
  /** Injected for tests: waits between retries. */
  sleep?: Sleep;
  /** Injected for tests: jitter source in [0, 1). */
  random?: () => number;
  /** Injected for tests: clock for HTTP-date Retry-After. */
  now?: () => number;
  onRetry?: (event: RetryEvent) => void;
  /** More strings to redact besides the API key. */
  secrets?: readonly string[];
}

/** The platform API, as providers and the task poller see it. */
export interface ApiClient {
  /** The normalised base URL requests go to. */
  readonly baseUrl: string;
  /**
   * Sends a request, retrying per its mode, and resolves with a 2xx answer. Rejects with an
   * ApiError subclass for other statuses, ApiConnectionError / ApiTimeoutError when there was
   * no answer, or the signal's reason when aborted. Nothing it rejects with contains a secret.
   */
  request<T = unknown>(options: ApiRequestOptions): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  /** Redacts this client's secrets from a text (for callers that print platform text). */
  redact(text: string): string;
  /** Closes the connection pool after in-flight requests finish. */
  close(): Promise<void>;
}

/** Why the client gave up on a request, for the error it throws. */
interface GaveUp {
  /** Clause appended to the message ('' when nothing to add). */
  note: string;
  quotaExhausted: boolean;
}

/** Builds a client for one platform endpoint and key. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl, 'base URL');
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  const timeouts: ApiTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retryPolicy };
  const secrets = [options.apiKey, ...(options.secrets ?? [])].filter((s) => s.length > 0);
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const baseHeaders: Record<string, string> = {
    authorization: authorizationHeader(options.apiKey),
    'user-agent': `edgeform/${VERSION}`,
    accept: 'application/json',
  };
  const pool = new Pool(url.origin, {
    connections: options.connections ?? 10,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    keepAliveTimeout: 4_000,
  });

  type Outcome<T> =
    | { kind: 'ok'; response: ApiResponse<T> }
    | { kind: 'aborted'; reason: unknown }
    | { kind: 'fatal'; error: Error }
    | {
        kind: 'failed';
        failure: AttemptFailure;
        reason: string;
        retryAfter?: string | string[] | undefined;
        retryAfterMs?: string | string[] | undefined;
        toError: (why: GaveUp) => Error;
      };

  async function attempt<T>(req: ApiRequestOptions, payload: string | undefined): Promise<Outcome<T>> {
    const timeoutMs = req.timeoutMs ?? timeouts.requestMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('request timed out', 'TimeoutError')), timeoutMs);
    const onCallerAbort = () => controller.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const headers = payload === undefined ? baseHeaders : { ...baseHeaders, 'content-type': 'application/json' };
      const res = await pool.request({
        path: buildPath(prefix, req.path, req.query),
        method: req.method,
        headers,
        body: payload,
        signal: controller.signal,
      });
      const text = await res.body.text();
      const resHeaders = res.headers as ResponseHeaders;
      const rawRequestId = firstHeader(resHeaders['x-request-id']);
      const headerRequestId = rawRequestId === undefined ? null : redact(rawRequestId, secrets);
      const contentType = firstHeader(resHeaders['content-type']);

      if (res.statusCode >= 200 && res.statusCode < 300) {
        const parsed = parseSuccessBody(text, contentType);
        if (!parsed.ok) {
          return {
            kind: 'fatal',
            error: new ApiResponseParseError({
              method: req.method,
              path: redact(req.path, secrets),
              status: res.statusCode,
              requestId: headerRequestId,
              detail: redact(parsed.detail, secrets),
            }),
          };
        }
        return { kind: 'ok', response: { status: res.statusCode, headers: resHeaders, body: parsed.value as T, requestId: headerRequestId } };
      }

      const parsed = parseErrorBody(text, contentType);
      const status = res.statusCode;
      const retryAfter = resHeaders['retry-after'];
      const retryAfterMs = resHeaders['retry-after-ms'];
      return {
        kind: 'failed',
        failure: { kind: 'status', status },
        reason: `HTTP ${status}`,
        retryAfter,
        retryAfterMs,
        toError: ({ note, quotaExhausted }) =>
          createApiError({
            method: req.method,
            path: redact(req.path, secrets),
            status,
            requestId: headerRequestId ?? (parsed.requestId === null ? null : redact(parsed.requestId, secrets)),
            product: productOf(req.path),
            body: redactDeep(parsed.body, secrets),
            platformMessage: parsed.platformMessage === null ? null : redact(parsed.platformMessage, secrets),
            retryAfterMs: parseRetryAfter(retryAfter, retryAfterMs, now()),
            note,
            quotaExhausted,
          }),
      };
    } catch (error) {
      if (req.signal?.aborted) return { kind: 'aborted', reason: abortReason(req.signal) };
      const cause = sanitizeError(error, secrets);
      const path = redact(req.path, secrets);
      if (controller.signal.aborted) {
        return {
          kind: 'failed',
          failure: { kind: 'network', requestSent: 'unknown', transient: true },
          reason: 'request timeout',
          toError: ({ note, quotaExhausted }) =>
            new ApiTimeoutError({ method: req.method, path, requestSent: 'unknown', reason: 'EDGEFORM_REQUEST_TIMEOUT', detail: cause.message, phase: 'request', timeoutMs, note, quotaExhausted, cause }),
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
        toError: ({ note, quotaExhausted }) =>
          phase ? new ApiTimeoutError({ ...base, phase, timeoutMs: phaseTimeout(phase, timeouts), note, quotaExhausted }) : new ApiConnectionError({ ...base, note, quotaExhausted }),
      };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  async function request<T>(req: ApiRequestOptions): Promise<ApiResponse<T>> {
    const mode = req.retry ?? defaultRetryMode(req.method);
    try {
      // Serialised once, outside the transport, so a bad body is a plain programming error.
      const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
      const quota = options.retryQuota;
      // The cost of the last retry, refunded to the quota when the request then succeeds.
      let retryCost: number | null = null;
      for (let n = 1; ; n++) {
        if (req.signal?.aborted) throw abortReason(req.signal);
        const outcome = await attempt<T>(req, payload);
        if (outcome.kind === 'ok') {
          quota?.recordSuccess(retryCost);
          return outcome.response;
        }
        if (outcome.kind === 'aborted') throw outcome.reason;
        if (outcome.kind === 'fatal') throw scrubOwnError(outcome.error, secrets);
        const decision = decideRetry({
          mode,
          failure: outcome.failure,
          attempt: n,
          retryAfterHeader: outcome.retryAfter,
          retryAfterMsHeader: outcome.retryAfterMs,
          now: now(),
          random,
          policy,
          ...(quota ? { quota } : {}),
        });
        if (!decision.retry) throw scrubOwnError(outcome.toError({ note: decision.note, quotaExhausted: decision.reason === 'quota-exhausted' }), secrets);
        if (quota && decision.cost !== undefined) {
          quota.take(decision.cost);
          retryCost = decision.cost;
        }
        options.onRetry?.({ method: req.method, path: redact(req.path, secrets), attempt: n, delayMs: decision.delayMs, reason: outcome.reason });
        await sleep(decision.delayMs, req.signal);
      }
    } catch (error) {
      // Aborts surface as the caller's own reason; anything unexpected is sanitized.
      if (req.signal?.aborted && error === req.signal.reason) throw error;
      if (error instanceof EdgeformError) throw error;
      if (req.signal?.aborted) throw abortReason(req.signal);
      throw sanitizeError(error, secrets);
    }
  }

  return {
    baseUrl,
    request,
    get: (path, opts) => request({ ...opts, method: 'GET', path }),
    post: (path, body, opts) => request({ ...opts, method: 'POST', path, body }),
    patch: (path, body, opts) => request({ ...opts, method: 'PATCH', path, body }),
    put: (path, body, opts) => request({ ...opts, method: 'PUT', path, body }),
    delete: (path, opts) => request({ ...opts, method: 'DELETE', path }),
    redact: (text) => redact(text, secrets),
    close: () => pool.close(),
  };
}

/**
 * The same client, except that a failure which means no request of this run can succeed (see
 * toRunFatalError: the key refused, the platform unreachable after retries, the retry quota
 * empty) rejects with a RunFatalError naming the platform, its `cause` the original error. The
 * provider context hands providers this view, so plan, drift and apply all stop on one error.
 */
export function withRunFatalErrors(api: ApiClient): ApiClient {
  const request = async <T>(req: ApiRequestOptions): Promise<ApiResponse<T>> => {
    try {
      return await api.request<T>(req);
    } catch (error) {
      throw toRunFatalError(error, { baseUrl: api.baseUrl, singleAttempt: (req.retry ?? defaultRetryMode(req.method)) === 'none' }) ?? error;
    }
  };
  return {
    baseUrl: api.baseUrl,
    request,
    get: (path, opts) => request({ ...opts, method: 'GET', path }),
    post: (path, body, opts) => request({ ...opts, method: 'POST', path, body }),
    patch: (path, body, opts) => request({ ...opts, method: 'PATCH', path, body }),
    put: (path, body, opts) => request({ ...opts, method: 'PUT', path, body }),
    delete: (path, opts) => request({ ...opts, method: 'DELETE', path }),
    redact: (text) => api.redact(text),
    close: () => api.close(),
  };
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

function parseSuccessBody(text: string, contentType: string | undefined): { ok: true; value: unknown } | { ok: false; detail: string } {
  if (text.trim() === '') return { ok: true, value: null };
  const claimsJson = /json/i.test(contentType ?? '');
  if (!claimsJson && !/^\s*[[{]/.test(text)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    if (!claimsJson) return { ok: true, value: text };
    return { ok: false, detail: error instanceof Error ? error.message : 'parse error' };
  }
}

function phaseTimeout(phase: Exclude<TimeoutPhase, 'request'>, timeouts: ApiTimeouts): number {
  return phase === 'connect' ? timeouts.connectMs : phase === 'headers' ? timeouts.headersMs : timeouts.bodyMs;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
