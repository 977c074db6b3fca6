import { randomUUID } from 'node:crypto';

/** A fresh random UUID (v4), the form every cloud id and request id takes. */
export function newUuid(): string {
  return randomUUID();
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function isoSeconds(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Cloud floating IP / instance datetime: numeric offset without a colon, e.g. 2026-01-01T00:00:00+0000. */
export function formatOffsetDate(ms: number): string {
  return `${isoSeconds(ms)}+0000`;
}

/** Cloud task datetime, e.g. 2026-01-01T00:00:00Z. */
export function formatTaskDate(ms: number): string {
  return `${isoSeconds(ms)}Z`;
}

/** Quota limit request datetime: no offset, e.g. 2026-01-01T00:00:00. */
export function formatNaiveDate(ms: number): string {
  return isoSeconds(ms);
}

/** Parses an ISO 8601 datetime (with or without offset; `+0000` accepted); NaN when invalid. Naive times are UTC. */
export function parseDate(text: string): number {
  let t = text.trim();
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (!m) return Number.NaN;
  const time = m[2] ?? '00:00:00';
  let zone = m[3] ?? 'Z';
  if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  t = `${m[1]}T${time}${zone.toUpperCase()}`;
  return Date.parse(t);
}

/** Matches a canonical UUID of any version (case-insensitive). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses a decimal integer path or query value; undefined unless the whole text is an integer. */
export function parseIntStrict(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^-?\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/** A plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
