import { apiPath } from '../api/path.js';
import type { ResourceProvider } from './provider.js';
import { deleteIfPresent, readOrGone } from './shared.js';

interface App {
  id?: number;
  name?: string;
  status?: number;
  binary?: number;
}

const appPath = (id: number) => apiPath`/fastedge/v1/apps/${id}`;

/**
 * FastEdge apps (synchronous API, no tasks). edgeform only adopts and deletes them. Deleting
 * an app removes it from every edge network and cannot be undone; its binary is kept. A
 * missing app answers 404 with no body at all.
 */
export const fastedgeApp: ResourceProvider<'fastedge_app'> = {
  kind: 'resource',
  type: 'fastedge_app',
  idField: 'app_id',
  verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },

  async read(ctx, desired) {
    const app = await readOrGone(async () => (await ctx.api.request<App>({ method: 'GET', path: appPath(desired.app_id), signal: ctx.signal })).body);
    if (!app) return { exists: false };
    return { exists: true, state: { app_id: desired.app_id, name: app.name ?? null, status: app.status ?? null } };
  },

  summarize: (state) => ({ app_id: state.app_id, name: state.name }),

  plan: (_desired, state) => ({ action: 'no-op', before: { app_id: state.app_id, name: state.name }, after: { app_id: state.app_id, name: state.name }, changes: [], errors: [], warnings: [], notes: [] }),

  async apply(ctx, change) {
    const id = change.desired.app_id as number;
    await deleteIfPresent(() => ctx.api.request({ method: 'DELETE', path: appPath(id), retry: 'idempotent', signal: ctx.signal }));
  },
};
