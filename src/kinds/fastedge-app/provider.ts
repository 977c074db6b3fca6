import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { createPlan, onlyMatch } from '../create.js';
import { declaredFields, diffDeclared } from '../declared-fields.js';
import { defineListReads } from '../list-read.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { appImport } from './import.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { appFields, appList, appsNamedList, type AppItem } from './list.js';

const APPS = appList.path({});
const appPath = (id: number | string) => apiPath`/fastedge/v1/apps/${id}`;

const appAnswer = z.looseObject(appFields);

/** An app as read: its id, the answer, and whether the answer holds env and rsp_headers (GET one) or not (a list item). */
interface ReadApp {
  id: number;
  app: z.infer<typeof appAnswer>;
  full: boolean;
}

/** Fields compared as values, and map fields compared per key; each only when declared. */
const SCALARS = ['name', 'binary', 'status', 'comment'] as const;
const MAPS = ['env', 'rsp_headers'] as const;
const FIELDS = [...SCALARS, ...MAPS] as const;

/**
 * What a create or an update sends: the `app` body (POST /apps, PATCH /apps/{id}) with only the
 * declared fields (a create) or only those that differ (an update).
 */
const payloadSchema = z.object({
  body: z.strictObject({
    name: z.string().optional(),
    binary: z.int().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    rsp_headers: z.record(z.string(), z.string()).optional(),
    status: z.int().min(0).max(5).optional(),
    comment: z.string().optional(),
  }),
});

async function readApp(ctx: ProviderContext, id: number): Promise<ReadApp | null> {
  const app = await readOrGone(async () => (await ctx.api.get(appPath(id), { schema: appAnswer, signal: ctx.signal })).body);
  return app === null ? null : { id, app, full: true };
}

/** The state of an app: what `before` shows of it, env and rsp_headers only when the block declares them. */
function stateOf(desired: ResourceAttributes['fastedge_app'], read: ReadApp): Record<string, unknown> {
  const { app } = read;
  return {
    app_id: read.id,
    name: app.name,
    binary: app.binary ?? null,
    status: app.status ?? null,
    comment: app.comment ?? '',
    url: app.url ?? null,
    ...(desired.env !== undefined ? { env: app.env ?? {} } : {}),
    ...(desired.rsp_headers !== undefined ? { rsp_headers: app.rsp_headers ?? {} } : {}),
  };
}

/** An app as the list shows it (no env or rsp_headers). */
const listedApp = (app: AppItem): ReadApp => ({ id: app.id, app, full: false });

/** The one app with the block's name among `apps`; two are an error naming both (names are unique on the platform, but its answer is not trusted). */
function pickByName(desired: ResourceAttributes['fastedge_app'], apps: readonly ReadApp[]): { item: ReadApp; foundBy: string } | null {
  const identity = `name ${JSON.stringify(desired.name)}`;
  const item = onlyMatch(
    apps.filter((read) => read.app.name === desired.name),
    (read) => read.id,
    { type: 'fastedge_app', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'fastedge_app', ReadApp>({
  readOne: (ctx, desired) => readApp(ctx, must(desired.app_id, 'desired.app_id')),
  async project(ctx, desired, read) {
    // A list item (app_short) has no env or rsp_headers: a block that declares them reads the app itself.
    if (!read.full && (desired.env !== undefined || desired.rsp_headers !== undefined)) {
      const full = await readApp(ctx, read.id);
      return full === null ? { exists: false } : { exists: true, state: stateOf(desired, full) };
    }
    return { exists: true, state: stateOf(desired, read) };
  },
  hasId: (desired) => desired.app_id !== undefined,
  async find(ctx, desired) {
    // The list's name filter matches in part and ignores case: only the exact name is the block's.
    const named = await listAll(ctx, appsNamedList, { name: must(desired.name, 'desired.name') }, (app) => String(app.id));
    return pickByName(desired, named.map(listedApp));
  },
  findInList: {
    key: (desired) => must(desired.name, 'desired.name'),
    itemKey: (read) => read.app.name,
    pick: pickByName,
  },
  list: {
    group: () => 'apps',
    memberId: (desired) => String(desired.app_id),
    itemId: (read) => String(read.id),
    paging: appList.paging,
    describe: () => `GET ${APPS}`,
    async fetchPage(ctx, _members, page) {
      const listed = await fetchListPage(ctx, appList, {}, page);
      return { ...listed, items: listed.items.map(listedApp) };
    },
  },
});

/** Create (POST /apps), update (PATCH, setting values: harmless to repeat) and delete; no tasks. */
const lifecycle = defineLifecycle('fastedge_app', {
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: APPS, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: appPath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: appPath(id) }) },
});

/**
 * FastEdge apps (synchronous API, no tasks). A block names its `app_id` (adopt) or only its
 * `name`: names are unique in an account. Blocks found by name are found in the app list, all
 * with one read of it (its pages), whatever their number, at plan and at apply's re-reads; one
 * alone through the list's `name` filter, which matches in part, so only the exact name counts (the
 * vendor's `GET /fastedge/v1/apps/by-name/{name}` is deprecated and never used). It finds the
 * one app or none, and none means create (`POST /fastedge/v1/apps`, which needs a binary; a new
 * app starts as a draft unless `status` is declared). Every declared field (name, binary, env,
 * rsp_headers, status, comment) can change in place through `PATCH /fastedge/v1/apps/{id}`,
 * which sends only the fields that differ, so nothing forces a replacement. A create whose
 * answer is lost is never sent again: the executor's re-read by name decides. Deleting an app
 * removes it from every edge network and cannot be undone; its binary is kept. A missing app
 * answers 404 with no body at all. Apps named by id are read together from the app list
 * (`{apps, count}`, `limit`/`offset`, up to 1,000 a page), whose items lack env and
 * rsp_headers: a block declaring those reads its app alone.
 */
export const fastedgeApp: ResourceProvider<'fastedge_app'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'fastedge_app',

  read: reads.read,
  groupRead: reads.groupRead,
  import: appImport,

  summarize: (state) => ({ app_id: state.app_id, name: state.name, status: state.status }),

  plan(desired, state) {
    const diff = diffDeclared(desired, state, SCALARS, MAPS);
    const before: Record<string, unknown> = { app_id: state.app_id, name: state.name };
    for (const field of FIELDS) if (desired[field] !== undefined) before[field] = state[field] ?? null;
    const after: Record<string, unknown> = { ...before, ...declaredFields(desired, FIELDS) };
    const body = Object.fromEntries(diff.changed.map((field) => [field, desired[field as keyof typeof desired]]));
    return {
      action: diff.changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes: diff.changes,
      ...(Object.keys(diff.unchanged_elements).length > 0 ? { unchanged_elements: diff.unchanged_elements } : {}),
      ...(diff.changes.length > 0 ? { payload: { body } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired) {
      const declared = declaredFields(desired, FIELDS);
      const errors =
        desired.binary === undefined
          ? [
              {
                field: 'name',
                summary: 'creating a fastedge_app needs binary (the id of the WebAssembly binary it runs)',
                detail: 'Add binary: <binary id> to the block, or set app_id to adopt an existing app.',
              },
            ]
          : [];
      return createPlan(declared, 'app_id', { body: declared }, { errors });
    },
    identity: (desired) => (desired.app_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
  },
};
