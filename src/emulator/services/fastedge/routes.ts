import { defineCollection, type Created } from '../../collection.js';
import { isPlainObject } from '../../format.js';
import { intQuery, offsetLimit } from '../../paging.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { FastEdgeAppRecord, FastEdgeSlice } from './index.js';
import { FASTEDGE_PRODUCT } from './product.js';

type Ctx = RouteContext<FastEdgeSlice>;

const APP_NAME = /^[a-z0-9][a-z0-9-]*[a-z0-9]$/;
const ORDERINGS = ['name', 'status', 'id', 'template', 'binary', 'plan'] as const;

function badRequest(message: string): never {
  return fail(jsonReply(400, { error: message }));
}

/** An app in the app_short shape (list items). */
export function renderAppShort(app: FastEdgeAppRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: app.id,
    name: app.name,
    status: app.status,
    binary: app.binary,
    api_type: app.api_type,
    plan_id: app.plan_id,
    plan: app.plan,
    url: app.url,
    comment: app.comment,
    networks: [...app.networks],
  };
  if (app.template !== undefined) out.template = app.template;
  if (app.template_name !== undefined) out.template_name = app.template_name;
  return out;
}

/** An app in the `app` shape (GET one), with its id as Gcore's own clients expect. */
export function renderApp(app: FastEdgeAppRecord): Record<string, unknown> {
  return { ...renderAppShort(app), env: { ...app.env }, rsp_headers: { ...app.rsp_headers }, secrets: {}, stores: {} };
}

function intParam(ctx: Ctx, name: string, min: number, max?: number): number | undefined {
  return intQuery(ctx, FASTEDGE_PRODUCT, name, max === undefined ? { min } : { min, max });
}

/** The list's filters (status, binary, plan, template, name part in any case, api_type) and its `ordering` (a field, `-` for descending; ties by id). */
function readListQuery(ctx: Ctx) {
  const status = intParam(ctx, 'status', 0, 5);
  const binary = intParam(ctx, 'binary', 1);
  const plan = intParam(ctx, 'plan', 1);
  const template = intParam(ctx, 'template', 1);
  const name = ctx.query.get('name')?.toLowerCase();
  const apiType = ctx.query.get('api_type');
  if (apiType !== null && apiType !== 'wasi-http' && apiType !== 'proxy-wasm') badRequest(`invalid value of api_type: "${apiType}"`);
  const ordering = ctx.query.get('ordering');
  const orderField = ordering === null ? 'id' : ordering.replace(/^-/, '');
  if (!(ORDERINGS as readonly string[]).includes(orderField)) badRequest(`invalid value of ordering: "${ordering}"`);
  return { status, binary, plan, template, name, apiType, orderField, sign: ordering?.startsWith('-') ? -1 : 1 };
}

function orderKey(app: FastEdgeAppRecord, field: string): string | number {
  return field === 'plan' ? app.plan_id : field === 'template' ? (app.template ?? 0) : app[field as 'name' | 'status' | 'id' | 'binary'];
}

/** The settings of an `app` request body (POST and PATCH), checked as the vendor schema says; read-only fields are ignored. */
interface AppSettings {
  name?: string;
  binary?: number;
  template?: number;
  status?: number;
  env?: Record<string, string>;
  rsp_headers?: Record<string, string>;
  comment?: string;
}

function stringMap(field: string, value: unknown): Record<string, string> {
  if (!isPlainObject(value)) badRequest(`${field} must be an object of strings`);
  for (const [key, v] of Object.entries(value)) if (typeof v !== 'string') badRequest(`${field}.${key} must be a string`);
  return { ...(value as Record<string, string>) };
}

function positiveInteger(field: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    badRequest(`${field} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`);
  return value;
}

/** Reads an `app` body: 400 `{error}` naming the first field the vendor schema refuses. */
function readAppBody(body: unknown): AppSettings {
  if (body === undefined) return {};
  if (!isPlainObject(body)) badRequest('the request body must be an app object');
  const out: AppSettings = {};
  if (body.name !== undefined) {
    const name = body.name;
    if (typeof name !== 'string' || name.length < 1 || name.length > 64 || !APP_NAME.test(name)) {
      badRequest('name must be 1 to 64 lowercase letters, digits and dashes, starting and ending with a letter or digit');
    }
    out.name = name;
  }
  if (body.binary !== undefined) out.binary = positiveInteger('binary', body.binary, 1);
  if (body.template !== undefined) out.template = positiveInteger('template', body.template, 1);
  if (body.status !== undefined) out.status = positiveInteger('status', body.status, 0, 5);
  if (body.env !== undefined) out.env = stringMap('env', body.env);
  if (body.rsp_headers !== undefined) out.rsp_headers = stringMap('rsp_headers', body.rsp_headers);
  if (body.comment !== undefined) {
    if (typeof body.comment !== 'string' || body.comment.length > 1024) badRequest('comment must be a string of at most 1024 characters');
    out.comment = body.comment;
  }
  if (body.debug !== undefined && typeof body.debug !== 'boolean') badRequest('debug must be a boolean');
  if (body.log !== undefined && body.log !== null && body.log !== 'kafka' && body.log !== 'none') badRequest('log must be "kafka", "none" or null');
  for (const field of ['secrets', 'stores'] as const) if (body[field] !== undefined && !isPlainObject(body[field])) badRequest(`${field} must be an object`);
  return out;
}

function assertNameFree(ctx: Ctx, name: string, except?: number): void {
  for (const app of ctx.state.fastedgeApps.values()) if (app.name === name && app.id !== except) badRequest(`app name "${name}" is already taken`);
}

/** POST: a new app from a binary (or template), a draft (status 0) unless the body says otherwise; 200 app_short. */
function buildApp(ctx: Ctx): Created<FastEdgeAppRecord> {
  const settings = readAppBody(ctx.body);
  if (settings.binary === undefined && settings.template === undefined) badRequest('binary is required (or template)');
  const id = Math.max(0, ...ctx.state.fastedgeApps.keys()) + 1;
  const name = settings.name ?? `app-${id}`;
  assertNameFree(ctx, name);
  const app: FastEdgeAppRecord = {
    id,
    name,
    status: settings.status ?? 0,
    binary: settings.binary ?? 1,
    plan_id: 1,
    plan: 'basic',
    api_type: 'wasi-http',
    url: `https://${name}.fastedge.app`,
    comment: settings.comment ?? '',
    template: settings.template,
    env: settings.env ?? {},
    rsp_headers: settings.rsp_headers ?? {},
    networks: [],
  };
  return { record: app, logged: { ...settings, name } };
}

/** PATCH: only the fields in the body change (the url follows the name). */
function changeApp(ctx: Ctx, app: FastEdgeAppRecord): Record<string, unknown> {
  const settings = readAppBody(ctx.body);
  if (settings.name !== undefined) assertNameFree(ctx, settings.name, app.id);
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings) as Array<[keyof AppSettings, unknown]>) {
    if (JSON.stringify(app[field]) === JSON.stringify(value)) continue;
    changed[field] = value;
    // `value` was read and checked for this field by readAppBody.
    (app as unknown as Record<string, unknown>)[field] = value;
  }
  if (changed.name !== undefined) app.url = `https://${app.name}.fastedge.app`;
  return changed;
}

/**
 * FastEdge apps: the list (`{apps, count}`, `limit` 1 to 1,000 or everything, `offset`; filters
 * and `ordering`), GET one (`app`), POST and PATCH (an `app` body; 200 app_short), DELETE (204).
 * Errors: 400 `{error}`; 404 without body.
 */
const apps = defineCollection<FastEdgeSlice, FastEdgeAppRecord, undefined, ReturnType<typeof readListQuery>, 'positive-integer'>({
  product: FASTEDGE_PRODUCT,
  path: '/fastedge/v1/apps',
  idParam: 'app_id',
  idSyntax: 'positive-integer',
  noun: 'App',
  store: (ctx) => ctx.state.fastedgeApps,
  idOf: (app) => app.id,
  mutationKind: 'fastedge_app',
  list: {
    paging: offsetLimit({ maxLimit: 1000, answer: ({ items, total }) => ({ apps: items, count: total }) }),
    query: readListQuery,
    where: (a, q) =>
      (q.name === undefined || a.name.toLowerCase().includes(q.name)) &&
      (q.status === undefined || a.status === q.status) &&
      (q.binary === undefined || a.binary === q.binary) &&
      (q.plan === undefined || a.plan_id === q.plan) &&
      (q.template === undefined || a.template === q.template) &&
      (q.apiType === null || a.api_type === q.apiType),
    order(a, b, { orderField, sign }) {
      const [ka, kb] = [orderKey(a, orderField), orderKey(b, orderField)];
      return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
    },
    render: renderAppShort,
  },
  get: renderApp,
  create: { build: buildApp, answer: (app) => jsonReply(200, renderAppShort(app)) },
  updates: [{ method: 'PATCH', change: changeApp, answer: (app) => jsonReply(200, renderAppShort(app)) }],
  delete: {},
});

/** GET by-name (deprecated by the vendor): the app's id as a bare integer; 404 without a body when no app has the name. */
function appIdByName(ctx: Ctx): Reply {
  const name = ctx.params.name ?? '';
  for (const app of ctx.state.fastedgeApps.values()) if (app.name === name) return jsonReply(200, app.id);
  return fail(emptyReply(404));
}

/** The FastEdge app routes: the collection's, and GET by-name (a bare id). */
export const fastedgeRoutes: ServiceRoute<FastEdgeSlice>[] = [...apps.routes, { method: 'GET', pattern: '/fastedge/v1/apps/by-name/{name}', handler: appIdByName }];
