import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiError,
  ApiKeyRefusedError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlatformUnavailableError,
  RateLimitError,
  toRunFatalError,
  UnprocessableEntityError,
  type ApiErrorDetails,
} from '../../../src/api/errors.js';
import { EdgeformError, RunFatalError } from '../../../src/errors.js';

const details = (status: number, extra: Partial<ApiErrorDetails> = {}): ApiErrorDetails => ({
  method: 'PATCH',
  path: '/cloud/v2/floatingips/1/76/726ecfcc',
  status,
  requestId: null,
  product: 'cloud',
  body: null,
  platformMessage: null,
  ...extra,
});

describe('createApiError', () => {
  it.each([
    [400, BadRequestError, 'EDGEFORM_API_BAD_REQUEST'],
    [401, AuthenticationError, 'EDGEFORM_API_AUTHENTICATION'],
    [403, PermissionDeniedError, 'EDGEFORM_API_PERMISSION_DENIED'],
    [404, NotFoundError, 'EDGEFORM_API_NOT_FOUND'],
    [409, ConflictError, 'EDGEFORM_API_CONFLICT'],
    [422, UnprocessableEntityError, 'EDGEFORM_API_UNPROCESSABLE_ENTITY'],
    [429, RateLimitError, 'EDGEFORM_API_RATE_LIMIT'],
    [500, InternalServerError, 'EDGEFORM_API_INTERNAL_SERVER'],
    [503, InternalServerError, 'EDGEFORM_API_INTERNAL_SERVER'],
    [405, ApiError, 'EDGEFORM_API_ERROR'],
    [418, ApiError, 'EDGEFORM_API_ERROR'],
  ])('maps %i to its class with a stable code', (status, cls, code) => {
    const error = createApiError(details(status));
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(EdgeformError);
    expect(error.code).toBe(code);
    expect(error.name).toBe(cls.name);
    expect(error.status).toBe(status);
  });

  it('formats method, path, status, platform message and request id', () => {
    const error = createApiError(details(409, { platformMessage: 'Floating IP is locked by task 1f2e', requestId: '681423d6' }));
    expect(error.message).toBe('PATCH /cloud/v2/floatingips/1/76/726ecfcc: 409 Conflict: Floating IP is locked by task 1f2e (request_id 681423d6)');
  });

  it('leaves out what it does not know and appends the note', () => {
    expect(createApiError(details(404)).message).toBe('PATCH /cloud/v2/floatingips/1/76/726ecfcc: 404 Not Found');
    expect(createApiError(details(503, { note: 'gave up after 4 attempts' })).message).toBe(
      'PATCH /cloud/v2/floatingips/1/76/726ecfcc: 503 Service Unavailable; gave up after 4 attempts',
    );
  });

  it('carries the parsed body and retry-after', () => {
    const error = createApiError(details(429, { body: { error: 'slow down' }, retryAfterMs: 2000 }));
    expect(error.body).toEqual({ error: 'slow down' });
    expect(error.retryAfterMs).toBe(2000);
  });
});

describe('connection errors', () => {
  it('says whether the request reached the platform', () => {
    const refused = new ApiConnectionError({ method: 'POST', path: '/x', requestSent: false, reason: 'ECONNREFUSED', detail: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(refused.message).toBe('POST /x: connection failed (connect ECONNREFUSED 127.0.0.1:1); the request never reached the platform');
    expect(refused.code).toBe('EDGEFORM_API_CONNECTION');
    const reset = new ApiConnectionError({ method: 'POST', path: '/x', requestSent: 'unknown', reason: 'UND_ERR_SOCKET', detail: 'other side closed' });
    expect(reset.message).toContain('may have reached the platform');
  });

  it('a timeout is a connection error with a phase', () => {
    const error = new ApiTimeoutError({ method: 'GET', path: '/x', requestSent: true, reason: 'UND_ERR_HEADERS_TIMEOUT', detail: 'x', phase: 'headers', timeoutMs: 30000 });
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.code).toBe('EDGEFORM_API_TIMEOUT');
    expect(error.phase).toBe('headers');
    expect(error.message).toBe('GET /x: timed out waiting for the response headers after 30000 ms; the request reached the platform and may have taken effect');
  });
});

describe('toRunFatalError', () => {
  const BASE = 'https://api.example.com';
  const retried = { baseUrl: BASE, singleAttempt: false };
  const refused = (extra: Partial<ConstructorParameters<typeof ApiConnectionError>[0]> = {}) =>
    new ApiConnectionError({
      method: 'GET',
      path: '/cloud/v1/x',
      requestSent: false,
      reason: 'ECONNREFUSED',
      detail: 'connect ECONNREFUSED 10.0.0.1:443',
      unreachable: true,
      note: 'gave up after 4 attempts',
      ...extra,
    });

  it('a 401 means the key is refused, for any request: one ApiKeyRefusedError naming the platform and the variable', () => {
    const cause = createApiError(details(401, { method: 'GET', platformMessage: 'Given token not valid for any token type', requestId: 'r-1' }));
    for (const singleAttempt of [false, true]) {
      const fatal = toRunFatalError(cause, { baseUrl: BASE, singleAttempt });
      expect(fatal).toBeInstanceOf(ApiKeyRefusedError);
      expect(fatal).toBeInstanceOf(RunFatalError);
      expect(fatal).toMatchObject({ code: 'EDGEFORM_API_KEY_REFUSED', baseUrl: BASE, cause });
      expect(fatal?.message).toBe(
        `the platform at ${BASE} refused the API key in EDGEFORM_API_KEY: GET /cloud/v2/floatingips/1/76/726ecfcc: 401 Unauthorized: Given token not valid for any token type (request_id r-1). Check that the key is current and was issued for this platform.`,
      );
    }
  });

  it('a connection that could not be made after the retries means the platform is unavailable', () => {
    const cause = refused();
    const fatal = toRunFatalError(cause, retried);
    expect(fatal).toBeInstanceOf(PlatformUnavailableError);
    expect(fatal).toMatchObject({ code: 'EDGEFORM_PLATFORM_UNAVAILABLE', cause });
    expect(fatal?.message).toBe(`the platform at ${BASE} is unavailable: ${cause.message}`);
  });

  it("a retry refused because the run's retry quota is empty means the platform is unavailable, whatever the failure", () => {
    expect(toRunFatalError(createApiError(details(503, { quotaExhausted: true })), retried)).toBeInstanceOf(PlatformUnavailableError);
    expect(toRunFatalError(refused({ unreachable: false, requestSent: 'unknown', reason: 'ECONNRESET', quotaExhausted: true }), retried)).toBeInstanceOf(PlatformUnavailableError);
  });

  it('concerns only its own request otherwise: a 403, a 5xx, a reset connection, one refused task poll', () => {
    expect(toRunFatalError(createApiError(details(403)), retried)).toBeNull();
    expect(toRunFatalError(createApiError(details(503)), retried)).toBeNull();
    expect(toRunFatalError(createApiError(details(404)), retried)).toBeNull();
    expect(toRunFatalError(refused({ unreachable: false, requestSent: 'unknown', reason: 'ECONNRESET' }), retried)).toBeNull();
    expect(toRunFatalError(refused(), { baseUrl: BASE, singleAttempt: true })).toBeNull();
    expect(toRunFatalError(new Error('boom'), retried)).toBeNull();
  });

  it('passes a run-fatal error through unchanged', () => {
    const fatal = new PlatformUnavailableError(BASE, refused());
    expect(toRunFatalError(fatal, retried)).toBe(fatal);
  });
});
