import { parseIntStrict } from './format.js';
import { fail, type ApiProduct } from './reply.js';
import type { RouteContext } from './router.js';

/** The part of a list one request asks for: items `offset` to `offset + limit` (to the end when `limit` is undefined). */
export interface PageWindow {
  offset: number;
  limit: number | undefined;
  /** The page number, for numbered pages. */
  page?: number;
}

/** What a list answer's envelope is built from: the rendered items of the page, how many matched, the window, and the request. */
export interface PageContent<Scope = unknown> {
  items: unknown[];
  total: number;
  window: PageWindow;
  scope: Scope;
}

/**
 * How the vendor pages one list endpoint: which query parameters choose the page (checked in
 * the product's error shape) and the envelope the page is answered in. Declared once per style
 * (as gcore-python's pagination classes are); a collection names its style.
 */
export interface PagingStyle<Scope = unknown> {
  read(ctx: RouteContext, product: ApiProduct): PageWindow;
  answer(page: PageContent<Scope>): unknown;
}

/** An integer query parameter within bounds, or undefined when absent; the product's 400 (or `status`) otherwise. */
export function intQuery(ctx: RouteContext, product: ApiProduct, name: string, bounds: { min: number; max?: number }, status = 400): number | undefined {
  const text = ctx.query.get(name);
  if (text === null || (text === '' && product.blankQueryIsAbsent === true)) return undefined;
  const value = parseIntStrict(text);
  if (value === undefined || value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    fail(product.invalidParam({ name, text, in: 'query', expected: { kind: 'integer', ...bounds }, status }, ctx.requestId));
  }
  return value;
}

/** `{count, results}`: the cloud's envelope (and IAM's without links). */
export const countResults = ({ items, total }: PageContent): unknown => ({ count: total, results: items });

/** The page as a bare JSON array. */
export const bareArray = ({ items }: PageContent): unknown => items;

/**
 * `limit` (1 to `maxLimit`; `defaultLimit` when absent, everything when that is undefined) and
 * `offset` (≥ 0, default 0), checked in that order.
 */
export function offsetLimit<Scope = unknown>(options: { maxLimit?: number; defaultLimit?: number; answer: (page: PageContent<Scope>) => unknown }): PagingStyle<Scope> {
  const bounds = options.maxLimit === undefined ? { min: 1 } : { min: 1, max: options.maxLimit };
  return {
    read(ctx, product) {
      const limit = intQuery(ctx, product, 'limit', bounds) ?? options.defaultLimit;
      const offset = intQuery(ctx, product, 'offset', { min: 0 }) ?? 0;
      return { offset, limit };
    },
    answer: options.answer,
  };
}

/**
 * Numbered pages: `page` (≥ 1, default 1) and a page size, fixed or read from a parameter
 * (≥ 1, its default when absent, silently capped at `max`), checked with `status`.
 */
export function pageNumbers<Scope = unknown>(options: {
  size: number | { param: string; default: number; max?: number };
  status?: number;
  answer: (page: PageContent<Scope>) => unknown;
}): PagingStyle<Scope> {
  const { size, status = 400 } = options;
  return {
    read(ctx, product) {
      const page = intQuery(ctx, product, 'page', { min: 1 }, status) ?? 1;
      const asked = typeof size === 'number' ? size : (intQuery(ctx, product, size.param, { min: 1 }, status) ?? size.default);
      const limit = typeof size === 'number' || size.max === undefined ? asked : Math.min(asked, size.max);
      return { offset: (page - 1) * limit, limit, page };
    },
    answer: options.answer,
  };
}

/** A list the vendor answers whole, in `answer`'s envelope. */
export function unpaged<Scope = unknown>(answer: (page: PageContent<Scope>) => unknown): PagingStyle<Scope> {
  return { read: () => ({ offset: 0, limit: undefined }), answer };
}
