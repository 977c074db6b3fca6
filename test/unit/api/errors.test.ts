import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TaskFailedError,
  TaskTimeoutError,
  UnprocessableEntityError,
  type ApiErrorDetails,
} from '../../../src/api/errors.js';
import { EdgeformError } from '../../../src/errors.js';

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

describe('task errors', () => {
  it('TaskFailedError carries the platform reason', () => {
    const error = new TaskFailedError({ taskId: 't1', taskType: 'resize_vm', error: 'Quota limit for vcpu exceeded' });
    expect(error.code).toBe('EDGEFORM_TASK_FAILED');
    expect(error.message).toBe('task t1 (resize_vm) failed: Quota limit for vcpu exceeded');
  });

  it('TaskTimeoutError carries the elapsed time', () => {
    const error = new TaskTimeoutError({ taskId: 't1', taskType: 'resize_vm', elapsedMs: 1_200_000, lastState: 'RUNNING' });
    expect(error.code).toBe('EDGEFORM_TASK_TIMEOUT');
    expect(error.elapsedMs).toBe(1_200_000);
    expect(error.message).toContain('1200 s');
  });
});
