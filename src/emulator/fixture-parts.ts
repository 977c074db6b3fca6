import { createHash } from 'node:crypto';
import { z } from 'zod';
import { UUID_PATTERN, parseDate } from './format.js';
import type { Tag } from './tags.js';

// Building blocks of the services' fixture sections and loaders.

/** A UUID of any version. */
export const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID');
/** A whole number. */
export const int = z.number().int();
/** A whole number ≥ 1. */
export const positiveInt = int.min(1);
/** An ISO 8601 datetime as parseDate reads it. */
export const datetime = z.string().refine((s) => !Number.isNaN(parseDate(s)), 'must be an ISO 8601 datetime, e.g. 2026-01-01T00:00:00Z');
/** Tags as a map of key to value, as the platform allows them. */
export const tagMap = z.record(z.string().regex(/^[^\s=]{1,255}$/, 'tag keys are 1–255 characters without whitespace or "="'), z.string().min(1).max(255));
/** A cloud resource's one-shot task failure: a message makes its next task end in ERROR. */
export const nextTaskError = z.string().min(1).nullable().default(null);

/** A fixtures section: a list of `item`, empty when the file leaves the section out. */
export function listSection<T extends z.ZodType>(item: T): z.ZodDefault<z.ZodArray<T>> {
  return z.array(item).default([]);
}

/** Fallback datetime for fixture records without one: 2025-12-01T00:00:00Z. */
const FIXTURE_EPOCH = Date.UTC(2025, 11, 1);

/** A fixture datetime as epoch ms; `fallback` (2025-12-01T00:00:00Z unless told) when absent. */
export function fixtureDate(text: string | undefined | null, fallback = FIXTURE_EPOCH): number {
  return text ? parseDate(text) : fallback;
}

/** A fixture's user and read-only tag maps as the platform's tag list (user tags first). */
export function fixtureTags(user: Record<string, string>, readOnly: Record<string, string>): Tag[] {
  return [...Object.entries(user).map(([key, value]) => ({ key, value, read_only: false })), ...Object.entries(readOnly).map(([key, value]) => ({ key, value, read_only: true }))];
}

/** A UUID derived from a name, so fixture records without ids keep the same id across resets. */
export function stableUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
