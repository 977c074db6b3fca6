/**
 * Keeps secrets out of everything the API layer hands back. Errors from dependencies (undici,
 * node:net) may carry request options or headers in enumerable properties, so they are never
 * passed on as they are: {@link sanitizeError} rebuilds them from redacted text only.
 */
import { redact } from './redact.js';

const MAX_DEPTH = 8;

/** A copy of a JSON-like value with every string redacted; non-plain objects become strings. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  return redactValue(value, secrets, 0) as T;
}

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redact(k, secrets)] = redactValue(v, secrets, depth + 1);
  return out;
}

/**
 * A fresh Error standing in for `error`: same name, `code`, `errno`, `syscall`, redacted message
 * and stack, and a sanitized cause chain (and AggregateError members). Nothing else is copied,
 * so no header, option or socket object of the original survives.
 */
export function sanitizeError(error: unknown, secrets: readonly string[], depth = 0): Error {
  if (!(error instanceof Error)) {
    return new Error(redact(typeof error === 'string' ? error : safeString(error), secrets));
  }
  const copy = new Error(redact(error.message, secrets));
  Object.defineProperty(copy, 'name', { value: error.name, enumerable: false, writable: true, configurable: true });
  copy.stack = error.stack !== undefined ? redact(error.stack, secrets) : copy.stack;
  const source = error as Error & { code?: unknown; errno?: unknown; syscall?: unknown; errors?: unknown; cause?: unknown };
  for (const key of ['code', 'errno', 'syscall'] as const) {
    const v = source[key];
    if (typeof v === 'string' || typeof v === 'number') {
      Object.defineProperty(copy, key, { value: typeof v === 'string' ? redact(v, secrets) : v, enumerable: true });
    }
  }
  if (depth < MAX_DEPTH && source.cause !== undefined) {
    Object.defineProperty(copy, 'cause', {
      value: sanitizeError(source.cause, secrets, depth + 1),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  if (depth < MAX_DEPTH && Array.isArray(source.errors)) {
    Object.defineProperty(copy, 'errors', {
      value: source.errors.map((e: unknown) => sanitizeError(e, secrets, depth + 1)),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * Redacts, in place, the message and stack of an error edgeform built itself (its fields come
 * from redacted parts already; this is the last line of defence before it leaves the client).
 */
export function scrubOwnError<E extends Error>(error: E, secrets: readonly string[], depth = 0): E {
  error.message = redact(error.message, secrets);
  if (error.stack !== undefined) error.stack = redact(error.stack, secrets);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && depth < MAX_DEPTH) scrubOwnError(cause, secrets, depth + 1);
  return error;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'unknown error';
  }
}
