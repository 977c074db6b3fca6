import { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS } from '../../cloud-vendor-values.js';
import { CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPages, queryList } from '../../cloud-common.js';
import { defineCollection, type Created } from '../../collection.js';
import { formatNaiveDate, isPlainObject, parseDate, parseIntStrict } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { QuotaRequestRecord, QuotaSlice } from './index.js';

type Ctx = RouteContext<QuotaSlice>;

/** The statuses of a quota limit request. */
export const QUOTA_REQUEST_STATUSES = ['done', 'in progress', 'rejected'] as const;

/** Keys allowed in requested_limits.global_limits (CreateGlobalQuotasLimitsSerializer, generated from the spec). */
export const GLOBAL_LIMIT_KEYS: ReadonlySet<string> = new Set(GLOBAL_LIMIT_FIELDS);

/** Keys allowed in each requested_limits.regional_limits item (RegionalQuotasLimitsSerializer, generated from the spec). */
export const REGIONAL_LIMIT_KEYS: ReadonlySet<string> = new Set(['region_id', ...REGIONAL_LIMIT_FIELDS]);

/** A quota limit request in the LimitsRequestSerializer shape. */
export function renderQuotaRequest(r: QuotaRequestRecord): Record<string, unknown> {
  return {
    id: r.id,
    client_id: r.client_id,
    status: r.status,
    description: r.description,
    requested_limits: structuredClone(r.requested_limits),
    created_at: formatNaiveDate(r.created_at),
    updated_at: r.updated_at === null ? null : formatNaiveDate(r.updated_at),
  };
}

/** The list's filters: repeatable `status` and `request_ids`, `created_from` and `created_to` (inclusive). */
function readListQuery(ctx: Ctx) {
  const statuses = queryList(ctx.query, 'status');
  for (const s of statuses) {
    if (!(QUOTA_REQUEST_STATUSES as readonly string[]).includes(s)) fail(cloudError(400, `status: Input should be 'done', 'in progress' or 'rejected', got "${s}"`, ctx.requestId));
  }
  const ids = queryList(ctx.query, 'request_ids').map((t) => {
    const id = parseIntStrict(t);
    if (id === undefined) fail(cloudError(400, `request_ids: Input should be a valid integer, got "${t}"`, ctx.requestId));
    return id;
  });
  const [from, to] = ['created_from', 'created_to'].map((name) => {
    const text = ctx.query.get(name);
    if (text === null) return undefined;
    const at = parseDate(text);
    if (Number.isNaN(at)) fail(cloudError(400, `${name}: Input should be a valid datetime, got "${text}"`, ctx.requestId));
    return at;
  });
  return { statuses, ids, from, to };
}

function checkLimits(ctx: Ctx, value: unknown, allowed: ReadonlySet<string>, where: string): Record<string, number> {
  if (!isPlainObject(value)) fail(cloudError(400, `${where}: Input should be a valid dictionary`, ctx.requestId));
  for (const [key, v] of Object.entries(value)) {
    if (!allowed.has(key)) fail(cloudError(400, `${where}.${key}: Extra inputs are not permitted`, ctx.requestId));
    if (typeof v !== 'number' || !Number.isInteger(v)) fail(cloudError(400, `${where}.${key}: Input should be a valid integer`, ctx.requestId));
  }
  return value as Record<string, number>;
}

function buildRequest(ctx: Ctx): Created<QuotaRequestRecord> {
  const body = cloudObjectBody(ctx);
  if (body.description === undefined) fail(cloudError(400, 'description: Field required', ctx.requestId));
  if (typeof body.description !== 'string') fail(cloudError(400, 'description: Input should be a valid string', ctx.requestId));
  if (body.description.length > 1000) fail(cloudError(400, 'description: String should have at most 1000 characters', ctx.requestId));
  if (body.requested_limits === undefined) fail(cloudError(400, 'requested_limits: Field required', ctx.requestId));
  if (!isPlainObject(body.requested_limits)) fail(cloudError(400, 'requested_limits: Input should be a valid dictionary', ctx.requestId));
  const limits: QuotaRequestRecord['requested_limits'] = {};
  for (const key of Object.keys(body.requested_limits)) {
    if (key !== 'global_limits' && key !== 'regional_limits') fail(cloudError(400, `requested_limits.${key}: Extra inputs are not permitted`, ctx.requestId));
  }
  const { global_limits: global, regional_limits: regional } = body.requested_limits;
  if (global !== undefined) limits.global_limits = { ...checkLimits(ctx, global, GLOBAL_LIMIT_KEYS, 'requested_limits.global_limits') };
  if (regional !== undefined) {
    if (!Array.isArray(regional)) fail(cloudError(400, 'requested_limits.regional_limits: Input should be a valid list', ctx.requestId));
    limits.regional_limits = regional.map((item, i) => ({ ...checkLimits(ctx, item, REGIONAL_LIMIT_KEYS, `requested_limits.regional_limits[${i}]`) }));
  }
  let id = 1;
  for (const existing of ctx.state.quotaRequests.keys()) id = Math.max(id, existing + 1);
  const record: QuotaRequestRecord = {
    id,
    client_id: ctx.state.defaults.client_id,
    status: 'in progress',
    description: body.description,
    requested_limits: limits,
    created_at: ctx.now,
    updated_at: null,
  };
  return { record, logged: { description: record.description, requested_limits: structuredClone(limits) } };
}

/** Quota limit requests (cloud v2 limits_request): the list (`{count, results}`, oldest first), GET one, POST (201), DELETE (204). */
const quotaRequests = defineCollection<QuotaSlice, QuotaRequestRecord, undefined, ReturnType<typeof readListQuery>, 'integer'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v2/limits_request',
  idParam: 'request_id',
  idSyntax: 'integer',
  noun: 'Limits request',
  store: (ctx) => ctx.state.quotaRequests,
  idOf: (r) => r.id,
  mutationKind: 'quota_request',
  list: {
    paging: cloudPages(),
    query: readListQuery,
    where: (r, q) =>
      (q.statuses.length === 0 || q.statuses.includes(r.status)) &&
      (q.ids.length === 0 || q.ids.includes(r.id)) &&
      (q.from === undefined || r.created_at >= q.from) &&
      (q.to === undefined || r.created_at <= q.to),
    order: (a, b) => a.id - b.id,
    render: renderQuotaRequest,
  },
  get: renderQuotaRequest,
  create: { build: buildRequest, answer: (record) => jsonReply(201, renderQuotaRequest(record)) },
  delete: {},
});

/** The quota limit request routes: list, GET one, POST (201), DELETE (204). */
export const quotaRoutes: ServiceRoute<QuotaSlice>[] = quotaRequests.routes;
