/**
 * Typed errors of the API layer, one class per HTTP status family plus connection, timeout,
 * unusable answers, configuration and the run-fatal errors (Stainless-style). Callers recognise
 * them with `instanceof`, never by comparing `code` strings or message text. Every message is
 * built from already redacted parts. The errors every layer shares (task failures, stale plans,
 * interrupts, ...) are in src/errors.ts.
 */
import { STATUS_CODES } from 'node:http';
import { API_KEY_ENV } from '../env.js';
import { EdgeformError, RunFatalError } from '../errors.js';

/**
 * Whether a failed request reached the platform: `false` only when that is proven (the
 * connection was never made), `true` when it certainly did, `'unknown'` otherwise.
 */
export type RequestSent = boolean | 'unknown';

/** What an {@link ApiError} knows about the failed exchange. */
export interface ApiErrorDetails {
  method: string;
  /** The API path as the caller gave it (no base URL prefix, no query). */
  path: string;
  status: number;
  /** From the `X-Request-ID` header or a cloud error body's `request_id`; quote it to support. */
  requestId: string | null;
  /** First path segment: cloud, fastedge, streaming, iam, ... */
  product: string;
  /** The parsed error body (JSON value, text, or null when empty), secrets redacted. */
  body: unknown;
  /** The platform's own human-readable explanation, when the body carried one. */
  platformMessage: string | null;
  /** The wait the response asked for (Retry-After / Retry-After-Ms), if any. */
  retryAfterMs?: number | null;
  /** Extra clause appended to the message, e.g. why it was not retried. */
  note?: string;
  /** The request was not retried because the run's retry quota was empty. */
  quotaExhausted?: boolean;
  /** The run's outage breaker declared the platform down on this failure (see OutageBreaker). */
  platformDown?: boolean;
}

/**
 * The platform answered with a non-2xx status. Message form:
 * `PATCH /cloud/v2/floatingips/1/76/…: 409 Conflict: <platform message> (request_id …)`.
 */
export class ApiError extends EdgeformError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly product: string;
  readonly body: unknown;
  readonly platformMessage: string | null;
  readonly retryAfterMs: number | null;
  /** Not retried because the run's retry quota was empty (the platform fails too many requests). */
  readonly quotaExhausted: boolean;
  /** The run's outage breaker declared the platform down on this answer: the run stops. */
  readonly platformDown: boolean;

  constructor(details: ApiErrorDetails, code = 'EDGEFORM_API_ERROR') {
    super(code, describeApiError(details));
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.requestId = details.requestId;
    this.product = details.product;
    this.body = details.body;
    this.platformMessage = details.platformMessage;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.quotaExhausted = details.quotaExhausted === true;
    this.platformDown = details.platformDown === true;
  }
}

/** 400: the platform rejected the request as malformed or invalid. */
export class BadRequestError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_BAD_REQUEST');
  }
}

/** 401: the API key is missing, invalid or expired. */
export class AuthenticationError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_AUTHENTICATION');
  }
}

/** 403: the key is valid but may not do this (on cloud often a capacity problem instead). */
export class PermissionDeniedError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_PERMISSION_DENIED');
  }
}

/** 404: the resource does not exist; providers turn this into "gone", not a failure. */
export class NotFoundError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_NOT_FOUND');
  }
}

/** 409: the resource is locked or in a conflicting state. */
export class ConflictError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_CONFLICT');
  }
}

/** 422: the request was well-formed but semantically refused. */
export class UnprocessableEntityError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_UNPROCESSABLE_ENTITY');
  }
}

/** 429: rate limited (or, on FastEdge, a count quota); thrown once retries are used up. */
export class RateLimitError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_RATE_LIMIT');
  }
}

/** 5xx: the platform failed; thrown once retries (where allowed) are used up. */
export class InternalServerError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, 'EDGEFORM_API_INTERNAL_SERVER');
  }
}

/** Builds the {@link ApiError} subclass that matches the status. */
export function createApiError(details: ApiErrorDetails): ApiError {
  const { status } = details;
  if (status === 400) return new BadRequestError(details);
  if (status === 401) return new AuthenticationError(details);
  if (status === 403) return new PermissionDeniedError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 422) return new UnprocessableEntityError(details);
  if (status === 429) return new RateLimitError(details);
  if (status >= 500 && status <= 599) return new InternalServerError(details);
  return new ApiError(details);
}

/** What an {@link ApiConnectionError} knows. */
export interface ApiConnectionErrorDetails {
  method: string;
  path: string;
  requestSent: RequestSent;
  /** Short machine reason from the underlying error, e.g. ECONNREFUSED, UND_ERR_SOCKET. */
  reason: string;
  /** The underlying error's (redacted) message. */
  detail: string;
  /** Extra clause appended to the message, e.g. why it was not retried. */
  note?: string;
  /** The underlying error, already sanitized (message, stack and cause chain redacted). */
  cause?: Error;
  /**
   * No connection to the platform could be made at all (refused, DNS, host or network
   * unreachable, connect timeout, TLS handshake refused): it is down or not where the base URL
   * says, as opposed to a connection that broke mid-exchange.
   */
  unreachable?: boolean;
  /** The request was not retried because the run's retry quota was empty. */
  quotaExhausted?: boolean;
  /** The run's outage breaker declared the platform down on this failure (see OutageBreaker). */
  platformDown?: boolean;
}

/**
 * No HTTP answer: connection refused, reset, DNS or TLS failure. `requestSent` says whether a
 * task-starting request may have taken effect anyway (then re-reading is the only safe move).
 */
export class ApiConnectionError extends EdgeformError {
  readonly method: string;
  readonly path: string;
  readonly requestSent: RequestSent;
  readonly reason: string;
  /** No connection could be made at all (see {@link ApiConnectionErrorDetails.unreachable}). */
  readonly unreachable: boolean;
  /** Not retried because the run's retry quota was empty. */
  readonly quotaExhausted: boolean;
  /** The run's outage breaker declared the platform down on this failure: the run stops. */
  readonly platformDown: boolean;

  constructor(details: ApiConnectionErrorDetails, code = 'EDGEFORM_API_CONNECTION', message?: string) {
    super(code, message ?? describeConnectionError(details), details.cause ? { cause: details.cause } : undefined);
    this.method = details.method;
    this.path = details.path;
    this.requestSent = details.requestSent;
    this.reason = details.reason;
    this.unreachable = details.unreachable === true;
    this.quotaExhausted = details.quotaExhausted === true;
    this.platformDown = details.platformDown === true;
  }
}

/**
 * Which wait ran out. A `connect` timeout proves the request never reached the platform;
 * `headers` / `body` mean it was sent; `request` (the overall per-request limit) is unknown.
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'request';

/** What an {@link ApiTimeoutError} knows. */
export interface ApiTimeoutErrorDetails extends ApiConnectionErrorDetails {
  phase: TimeoutPhase;
  /** The limit that ran out, when known. */
  timeoutMs: number | null;
}

/** A timeout while connecting or waiting for the answer; a kind of connection failure. */
export class ApiTimeoutError extends ApiConnectionError {
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number | null;

  constructor(details: ApiTimeoutErrorDetails) {
    super(details, 'EDGEFORM_API_TIMEOUT', describeTimeout(details));
    this.phase = details.phase;
    this.timeoutMs = details.timeoutMs;
  }
}

/** What an {@link UnexpectedResponseError} knows: the exchange and the first field that did not fit. */
export interface UnexpectedResponseDetails {
  method: string;
  /** The API path as the caller gave it (redacted). */
  path: string;
  status: number;
  requestId: string | null;
  /** Where in the answer, e.g. `tags.0.key`; empty for the answer as a whole. */
  field: string;
  /** What edgeform reads there, e.g. `string`, `object`, `one of "NEW", "RUNNING"`. */
  expected: string;
  /** What the answer had there, described (never the whole body), e.g. `number`, `an empty body`. */
  got: string;
  /** Further fields that did not fit, besides the one named. */
  moreProblems?: number;
}

/**
 * A 2xx answer edgeform cannot use: not the shape of the fields it reads (the schema the caller
 * gave the request), not JSON ({@link ApiResponseParseError}) or too large to read
 * ({@link ApiResponseTooLargeError}). Every platform answer is untrusted input, so this is a
 * runtime error naming the request, the field and what was expected, never a crash. Message form:
 * `GET /cloud/v1/floatingips/1/76/…: unexpected 200 answer: tags.0.key: expected string, got number`.
 */
export class UnexpectedResponseError extends EdgeformError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly field: string;
  readonly expected: string;
  readonly got: string;

  constructor(details: UnexpectedResponseDetails, code = 'EDGEFORM_UNEXPECTED_RESPONSE', message?: string) {
    super(code, message ?? describeUnexpected(details));
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.requestId = details.requestId;
    this.field = details.field;
    this.expected = details.expected;
    this.got = details.got;
  }
}

/** A 2xx answer whose body could not be parsed as the JSON it claimed to be. */
export class ApiResponseParseError extends UnexpectedResponseError {
  constructor(details: { method: string; path: string; status: number; requestId: string | null; detail: string }) {
    super(
      { ...details, field: '', expected: 'JSON', got: `invalid JSON (${details.detail})` },
      'EDGEFORM_API_BAD_RESPONSE',
      `${details.method} ${details.path}: ${details.status} answer is not valid JSON (${details.detail})${formatRequestId(details.requestId)}`,
    );
  }
}

/**
 * A 2xx answer larger than the client's limit (ApiClientOptions.maxResponseBytes). It is refused
 * without being buffered: a Content-Length over the limit before reading anything, otherwise as
 * soon as the bytes read pass it; the connection is closed either way.
 */
export class ApiResponseTooLargeError extends UnexpectedResponseError {
  readonly limitBytes: number;
  /** The Content-Length the answer declared, or null when it declared none. */
  readonly declaredBytes: number | null;

  constructor(details: { method: string; path: string; status: number; requestId: string | null; limitBytes: number; declaredBytes: number | null }) {
    const limit = formatBytes(details.limitBytes);
    const got = details.declaredBytes === null ? `more than ${limit}` : `Content-Length ${details.declaredBytes} bytes`;
    const what =
      details.declaredBytes === null
        ? `is larger than the ${limit} limit; edgeform stopped reading it`
        : `declares ${details.declaredBytes} bytes, more than the ${limit} limit; it was not read`;
    super(
      { ...details, field: '', expected: `at most ${limit}`, got },
      'EDGEFORM_API_RESPONSE_TOO_LARGE',
      `${details.method} ${details.path}: the ${details.status} answer ${what}${formatRequestId(details.requestId)}`,
    );
    this.limitBytes = details.limitBytes;
    this.declaredBytes = details.declaredBytes;
  }
}

/**
 * The API settings are unusable: key missing (`EDGEFORM_API_KEY_MISSING`), base URL invalid
 * (`EDGEFORM_BASE_URL_INVALID`) or plain http to a non-loopback host (`EDGEFORM_BASE_URL_INSECURE`).
 */
export class ApiConfigError extends EdgeformError {
  constructor(code: 'EDGEFORM_API_KEY_MISSING' | 'EDGEFORM_API_KEY_INVALID' | 'EDGEFORM_BASE_URL_INVALID' | 'EDGEFORM_BASE_URL_INSECURE', message: string) {
    super(code, message);
  }
}

/**
 * The platform refused the API key (401 Unauthorized): no request of this run can succeed, so the
 * run stops with this one error. `cause` is the AuthenticationError of the first request refused.
 */
export class ApiKeyRefusedError extends RunFatalError {
  readonly baseUrl: string;

  constructor(baseUrl: string, cause: ApiError) {
    super(
      'EDGEFORM_API_KEY_REFUSED',
      `the platform at ${baseUrl} refused the API key in ${API_KEY_ENV}: ${cause.message}. Check that the key is current and was issued for this platform.`,
      { cause },
    );
    this.baseUrl = baseUrl;
  }
}

/**
 * The platform cannot be reached (a refused connection, a host name that does not resolve, no
 * connection even after retries), or it fails every request for the run's outage budget or so
 * many that the run's retry quota ran out: the run stops with this one error.
 * `cause` is the last request's ApiConnectionError or ApiError.
 */
export class PlatformUnavailableError extends RunFatalError {
  readonly baseUrl: string;

  constructor(baseUrl: string, cause: ApiError | ApiConnectionError) {
    super('EDGEFORM_PLATFORM_UNAVAILABLE', `the platform at ${baseUrl} is unavailable: ${cause.message}`, { cause });
    this.baseUrl = baseUrl;
  }
}

/**
 * The run-fatal error an API failure amounts to, or null when it concerns only its own request:
 * a 401 (the key is refused, whatever the request), a failure on which the run's outage breaker
 * declared the platform down (whatever the request's retry mode), a connection that could not be made at all
 * after the client's retries (`singleAttempt`: the request is not retried by the client, as task
 * polls are, so one refused connection proves nothing), or a retry refused because the run's retry
 * quota is empty. A 403 is not fatal: the platform answers it for one project's permissions and,
 * on cloud, for capacity, while other requests of the run may well succeed.
 */
export function toRunFatalError(error: unknown, context: { baseUrl: string; singleAttempt: boolean }): RunFatalError | null {
  if (error instanceof RunFatalError) return error;
  if (error instanceof AuthenticationError) return new ApiKeyRefusedError(context.baseUrl, error);
  if ((error instanceof ApiConnectionError || error instanceof ApiError) && error.platformDown) return new PlatformUnavailableError(context.baseUrl, error);
  if (error instanceof ApiConnectionError && (error.quotaExhausted || (error.unreachable && !context.singleAttempt))) return new PlatformUnavailableError(context.baseUrl, error);
  if (error instanceof ApiError && error.quotaExhausted) return new PlatformUnavailableError(context.baseUrl, error);
  return null;
}

function describeApiError(d: ApiErrorDetails): string {
  const statusText = STATUS_CODES[d.status] ?? 'Unknown Status';
  const platform = d.platformMessage ? `: ${d.platformMessage}` : '';
  const note = d.note ? `; ${d.note}` : '';
  return `${d.method} ${d.path}: ${d.status} ${statusText}${platform}${formatRequestId(d.requestId)}${note}`;
}

function describeConnectionError(d: ApiConnectionErrorDetails): string {
  return `${d.method} ${d.path}: connection failed (${d.detail})${describeSent(d.requestSent)}${d.note ? `; ${d.note}` : ''}`;
}

function describeTimeout(d: ApiTimeoutErrorDetails): string {
  const what = {
    connect: 'connecting',
    headers: 'waiting for the response headers',
    body: 'reading the response body',
    request: 'waiting for the whole request',
  }[d.phase];
  const limit = d.timeoutMs !== null ? ` after ${d.timeoutMs} ms` : '';
  return `${d.method} ${d.path}: timed out ${what}${limit}${describeSent(d.requestSent)}${d.note ? `; ${d.note}` : ''}`;
}

function describeSent(sent: RequestSent): string {
  if (sent === false) return '; the request never reached the platform';
  if (sent === true) return '; the request reached the platform and may have taken effect';
  return '; the request may have reached the platform';
}

function describeUnexpected(d: UnexpectedResponseDetails): string {
  const where = d.field === '' ? '' : `${d.field}: `;
  const more = d.moreProblems ? ` (and ${d.moreProblems} more ${d.moreProblems === 1 ? 'problem' : 'problems'})` : '';
  return `${d.method} ${d.path}: unexpected ${d.status} answer: ${where}expected ${d.expected}, got ${d.got}${more}${formatRequestId(d.requestId)}`;
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  const kib = bytes / 1024;
  return Number.isInteger(kib) ? `${kib} KiB` : `${bytes} bytes`;
}

function formatRequestId(requestId: string | null): string {
  return requestId ? ` (request_id ${requestId})` : '';
}
