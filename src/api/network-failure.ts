/**
 * Classification of transport errors (undici and node:net codes) by what they prove: whether
 * the request reached the platform, and whether trying again can help. This is what makes it
 * safe to retry a task-starting POST after ECONNREFUSED but never after a reset.
 */
import type { RequestSent, TimeoutPhase } from './errors.js';

/** What a transport error tells the retry logic and the error message. */
export interface NetworkFailure {
  /** A timeout carries its phase; anything else is a plain connection failure. */
  timeoutPhase: Exclude<TimeoutPhase, 'request'> | null;
  requestSent: RequestSent;
  /** Whether repeating the request may succeed. */
  transient: boolean;
  /** The error code (ECONNREFUSED, UND_ERR_SOCKET, ...) or the error name. */
  reason: string;
}

/** Failures before a TCP connection exists: the request provably never left. */
const BEFORE_CONNECTION = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'ENETDOWN', 'EHOSTUNREACH', 'EHOSTDOWN', 'EADDRNOTAVAIL']);

/** Connection broke while the request was in flight: it may or may not have been acted on. */
const MID_EXCHANGE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_ABORTED']);

/** Refused by undici before anything was written (bad arguments, closed pool). */
const BEFORE_SENDING = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_INVALID_RETURN_VALUE',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
]);

/** Classifies an error thrown by the transport. Never throws. */
export function classifyNetworkError(error: unknown): NetworkFailure {
  const { code, syscall } = findCode(error);
  const reason = code ?? (error instanceof Error ? error.name : 'unknown');

  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { timeoutPhase: 'connect', requestSent: false, transient: true, reason };
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { timeoutPhase: 'headers', requestSent: true, transient: true, reason };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { timeoutPhase: 'body', requestSent: true, transient: true, reason };
  if (code !== undefined && BEFORE_CONNECTION.has(code)) return { timeoutPhase: null, requestSent: false, transient: true, reason };
  if (syscall === 'connect' || syscall === 'getaddrinfo') return { timeoutPhase: null, requestSent: false, transient: true, reason };
  if (code !== undefined && isTlsFailure(code)) return { timeoutPhase: null, requestSent: false, transient: false, reason };
  if (code !== undefined && BEFORE_SENDING.has(code)) return { timeoutPhase: null, requestSent: false, transient: false, reason };
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return { timeoutPhase: null, requestSent: true, transient: true, reason };
  if (code !== undefined && MID_EXCHANGE.has(code)) return { timeoutPhase: null, requestSent: 'unknown', transient: true, reason };
  return { timeoutPhase: null, requestSent: 'unknown', transient: false, reason };
}

/**
 * Whether a failure proves the platform could not be reached at all: no connection was made
 * (refused, DNS, host or network unreachable, connect timeout, TLS handshake failed), as opposed
 * to a connection that broke mid-exchange or a request undici refused to send (a local problem).
 */
export function isUnreachable(failure: NetworkFailure): boolean {
  return failure.requestSent === false && !BEFORE_SENDING.has(failure.reason);
}

function isTlsFailure(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || /CERT|SELF_SIGNED|UNABLE_TO_/.test(code);
}

/** The code of the error, else of its first aggregated member, else of its cause. */
function findCode(error: unknown, depth = 0): { code?: string; syscall?: string } {
  if (typeof error !== 'object' || error === null || depth > 4) return {};
  const e = error as { code?: unknown; syscall?: unknown; errors?: unknown; cause?: unknown };
  const syscall = typeof e.syscall === 'string' ? e.syscall : undefined;
  if (typeof e.code === 'string') return { code: e.code, ...(syscall ? { syscall } : {}) };
  if (Array.isArray(e.errors) && e.errors.length > 0) {
    const inner = findCode(e.errors[0], depth + 1);
    if (inner.code) return inner;
  }
  if (e.cause !== undefined) return findCode(e.cause, depth + 1);
  return syscall ? { syscall } : {};
}
