import { isIpAddress, parseNetwork } from '../../cidr.js';
import { CLOUD_NAME_PATTERN, cloudError } from '../../cloud-common.js';
import { UUID_PATTERN, isPlainObject } from '../../format.js';
import { fail } from '../../reply.js';
import type { RouteContext } from '../../router.js';

// Readers of the load balancer requests' fields, each refusing a bad value with the cloud's 400
// ValidationError naming the field by its path (`listeners.0.pools.0.members.1.address: ...`),
// as the platform's pydantic models do.

type Ctx = Pick<RouteContext, 'requestId'>;

/** Answers 400 ValidationError with `message`. */
export function bad(ctx: Ctx, message: string): never {
  return fail(cloudError(400, message, ctx.requestId));
}

/** `prefix.key`, or `key` at the top. */
export function at(prefix: string, key: string | number): string {
  return prefix === '' ? String(key) : `${prefix}.${key}`;
}

/**
 * A JSON object; 400 otherwise, and for any key outside `known` (the emulator refuses fields the
 * vendor schema does not name, so a misspelt field is an error rather than silently ignored).
 */
export function objectOf(ctx: Ctx, value: unknown, field: string, known: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(value)) bad(ctx, `${field === '' ? 'body' : field}: Input should be a valid dictionary`);
  const extra = Object.keys(value).find((k) => !known.includes(k));
  if (extra !== undefined) bad(ctx, `${at(field, extra)}: Extra inputs are not permitted`);
  return value;
}

/** A required field's value; 400 `Field required` when absent. */
export function need(ctx: Ctx, body: Record<string, unknown>, key: string, prefix: string): unknown {
  if (body[key] === undefined) bad(ctx, `${at(prefix, key)}: Field required`);
  return body[key];
}

/** A string, with optional length bounds and pattern. */
export function text(ctx: Ctx, value: unknown, field: string, opts: { min?: number; max?: number; pattern?: RegExp } = {}): string {
  if (typeof value !== 'string') bad(ctx, `${field}: Input should be a valid string`);
  if (opts.min !== undefined && value.length < opts.min) bad(ctx, `${field}: String should have at least ${opts.min} character${opts.min === 1 ? '' : 's'}`);
  if (opts.max !== undefined && value.length > opts.max) bad(ctx, `${field}: String should have at most ${opts.max} characters`);
  if (opts.pattern && !opts.pattern.test(value)) bad(ctx, `${field}: String should match pattern '${opts.pattern.source}'`);
  return value;
}

/** A resource name of the cloud's pattern (3–63 characters). */
export function name(ctx: Ctx, value: unknown, field: string): string {
  return text(ctx, value, field, { pattern: CLOUD_NAME_PATTERN });
}

/** A whole number within bounds (`above`: exclusive minimum). */
export function integer(ctx: Ctx, value: unknown, field: string, bounds: { min?: number; max?: number; above?: number } = {}): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) bad(ctx, `${field}: Input should be a valid integer`);
  if (bounds.above !== undefined && value <= bounds.above) bad(ctx, `${field}: Input should be greater than ${bounds.above}`);
  if (bounds.min !== undefined && value < bounds.min) bad(ctx, `${field}: Input should be greater than or equal to ${bounds.min}`);
  if (bounds.max !== undefined && value > bounds.max) bad(ctx, `${field}: Input should be less than or equal to ${bounds.max}`);
  return value;
}

/** A boolean. */
export function boolean(ctx: Ctx, value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') bad(ctx, `${field}: Input should be a valid boolean`);
  return value;
}

/** One of the enum's values. */
export function choice<T extends string | number>(ctx: Ctx, value: unknown, field: string, allowed: readonly T[]): T {
  if (!(allowed as readonly unknown[]).includes(value)) bad(ctx, `${field}: Input should be ${allowed.map((a) => (typeof a === 'string' ? `'${a}'` : String(a))).join(', ')}`);
  return value as T;
}

/** A UUID. */
export function uuid(ctx: Ctx, value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) bad(ctx, `${field}: Input should be a valid UUID`);
  return value.toLowerCase();
}

/** A UUID query parameter (lower case), or null when absent; 400 when malformed. */
export function uuidQuery(ctx: Pick<RouteContext, 'requestId' | 'query'>, key: string): string | null {
  const value = ctx.query.get(key);
  return value === null ? null : uuid(ctx, value, key);
}

/** A list, with an optional maximum length. */
export function list(ctx: Ctx, value: unknown, field: string, max?: number): unknown[] {
  if (!Array.isArray(value)) bad(ctx, `${field}: Input should be a valid list`);
  if (max !== undefined && value.length > max) bad(ctx, `${field}: List should have at most ${max} items`);
  return value;
}

/** An IPv4 or IPv6 address (ipvanyaddress). */
export function address(ctx: Ctx, value: unknown, field: string): string {
  if (typeof value !== 'string' || !isIpAddress(value)) bad(ctx, `${field}: value is not a valid IPv4 or IPv6 address`);
  return value;
}

/** A network in CIDR notation with no host bits set (ipvanynetwork), normalised. */
export function network(ctx: Ctx, value: unknown, field: string): string {
  const parsed = typeof value === 'string' ? parseNetwork(value) : { error: 'value is not a valid IPv4 or IPv6 network' };
  if ('error' in parsed) bad(ctx, `${field}: ${parsed.error}`);
  return `${parsed.address.toString()}/${parsed.bits}`;
}

/** `read(value)`, or null when the value is null (a nullable field). */
export function orNull<T>(value: unknown, read: (v: unknown) => T): T | null {
  return value === null ? null : read(value);
}

/** `read(value)` when the body has the key, else `fallback`. */
export function optional<T>(body: Record<string, unknown>, key: string, fallback: T, read: (v: unknown) => T): T {
  return body[key] === undefined ? fallback : read(body[key]);
}

/** A timeout in milliseconds (0..86400000) or null. */
export function timeout(ctx: Ctx, value: unknown, field: string): number | null {
  return orNull(value, (v) => integer(ctx, v, field, { min: 0, max: 86_400_000 }));
}

/** A list of plain strings (an L7 policy's or rule's `tags`). */
export function stringList(ctx: Ctx, value: unknown, field: string): string[] {
  return list(ctx, value, field).map((v, i) => text(ctx, v, at(field, i)));
}

/** Whether two JSON-like values are equal (objects key by key). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return false;
}
