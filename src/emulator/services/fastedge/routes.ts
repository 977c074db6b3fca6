import { isPlainObject, parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { FastEdgeAppRecord, FastEdgeSlice } from './index.js';

type Ctx = RouteContext<FastEdgeSlice>;

const LIST = '/fastedge/v1/apps';
const ONE = '/fastedge/v1/apps/{app_id}';
const BY_NAME = '/fastedge/v1/apps/by-name/{name}';
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

function findApp(ctx: Ctx): FastEdgeAppRecord {
  const text = ctx.params.app_id ?? '';
  const id = parseIntStrict(text);
  if (id === undefined || id < 1) badRequest(`invalid app id "${text}": must be a positive integer`);
  const app = ctx.state.fastedgeApps.get(id);
  if (!app) fail(emptyReply(404));
  return app;
}

function intParam(ctx: Ctx, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  const value = parseIntStrict(text);
  if (value === undefined || value < min || value > max) badRequest(`invalid value of ${name}: "${text}"`);
  return value;
}

function listApps(ctx: Ctx): Reply {
  const limit = intParam(ctx, 'limit', 1, 1000);
  const offset = intParam(ctx, 'offset', 0) ?? 0;
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
  const matching = [...ctx.state.fastedgeApps.values()].filter(
    (a) =>
      (name === undefined || a.name.toLowerCase().includes(name)) &&
      (status === undefined || a.status === status) &&
      (binary === undefined || a.binary === binary) &&
      (plan === undefined || a.plan_id === plan) &&
      (template === undefined || a.template === template) &&
      (apiType === null || a.api_type === apiType),
  );
  const key = (a: FastEdgeAppRecord): string | number =>
    orderField === 'plan' ? a.plan_id : orderField === 'template' ? (a.template ?? 0) : a[orderField as 'name' | 'status' | 'id' | 'binary'];
  const sign = ordering?.startsWith('-') ? -1 : 1;
  matching.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
  });
  const page = matching.slice(offset, limit === undefined ? undefined : offset + limit);
  return jsonReply(200, { apps: page.map(renderAppShort), count: matching.length });
}

function getApp(ctx: Ctx): Reply {
  return jsonReply(200, renderApp(findApp(ctx)));
}

function deleteApp(ctx: Ctx): Reply {
  const app = findApp(ctx);
  ctx.state.fastedgeApps.delete(app.id);
  ctx.state.recordMutation(ctx.now, 'fastedge_app', app.id, 'delete');
  return emptyReply(204);
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
function createApp(ctx: Ctx): Reply {
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
  ctx.state.fastedgeApps.set(id, app);
  ctx.state.recordMutation(ctx.now, 'fastedge_app', id, 'create', { ...settings, name });
  return jsonReply(200, renderAppShort(app));
}

/** PATCH: only the fields in the body change; 200 app_short. */
function patchApp(ctx: Ctx): Reply {
  const app = findApp(ctx);
  const settings = readAppBody(ctx.body);
  if (settings.name !== undefined) assertNameFree(ctx, settings.name, app.id);
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings) as Array<[keyof AppSettings, unknown]>) {
    if (JSON.stringify(app[field]) === JSON.stringify(value)) continue;
    changed[field] = value;
    (app as unknown as Record<string, unknown>)[field] = value;
  }
  if (changed.name !== undefined) app.url = `https://${app.name}.fastedge.app`;
  if (Object.keys(changed).length > 0) ctx.state.recordMutation(ctx.now, 'fastedge_app', app.id, 'update', changed);
  return jsonReply(200, renderAppShort(app));
}

/** GET by-name (deprecated by the vendor): the app's id as a bare integer; 404 without a body when no app has the name. */
function appIdByName(ctx: Ctx): Reply {
  const name = ctx.params.name ?? '';
  for (const app of ctx.state.fastedgeApps.values()) if (app.name === name) return jsonReply(200, app.id);
  return fail(emptyReply(404));
}

/**
 * The FastEdge app routes: list `{apps, count}`, GET one, GET by-name (a bare id), POST and PATCH
 * (an `app` body; 200 app_short), DELETE (204). Errors: 400 `{error}`; 404 without body.
 */
export const fastedgeRoutes: ServiceRoute<FastEdgeSlice>[] = [
  { method: 'GET', pattern: LIST, handler: listApps },
  { method: 'POST', pattern: LIST, handler: createApp },
  { method: 'GET', pattern: ONE, handler: getApp },
  { method: 'PATCH', pattern: ONE, handler: patchApp },
  { method: 'DELETE', pattern: ONE, handler: deleteApp },
  { method: 'GET', pattern: BY_NAME, handler: appIdByName },
];
