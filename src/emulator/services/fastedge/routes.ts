import { parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { FastEdgeAppRecord, FastEdgeSlice } from './index.js';

type Ctx = RouteContext<FastEdgeSlice>;

const LIST = '/fastedge/v1/apps';
const ONE = '/fastedge/v1/apps/{app_id}';
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

/** The FastEdge app routes: list `{apps, count}`, GET one, DELETE (204; 400 `{error}`; 404 without body). */
export const fastedgeRoutes: ServiceRoute<FastEdgeSlice>[] = [
  { method: 'GET', pattern: LIST, handler: listApps },
  { method: 'GET', pattern: ONE, handler: getApp },
  { method: 'DELETE', pattern: ONE, handler: deleteApp },
];
