import { apiPath } from '../api/path.js';
import type { ResourceProvider } from './provider.js';
import { deleteIfPresent, readOrGone } from './shared.js';

interface LimitsRequest {
  id: number;
  status?: string;
  description?: string | null;
}

const requestPath = (id: number) => apiPath`/cloud/v2/limits_request/${id}`;

/**
 * Cloud quota limit requests (status `done`, `in progress` or `rejected`). edgeform only
 * adopts and deletes them; DELETE is synchronous (204, no task).
 */
export const cloudQuotaLimitRequest: ResourceProvider<'cloud_quota_limit_request'> = {
  kind: 'resource',
  type: 'cloud_quota_limit_request',
  idField: 'request_id',
  verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },

  async read(ctx, desired) {
    const request = await readOrGone(async () => (await ctx.api.request<LimitsRequest>({ method: 'GET', path: requestPath(desired.request_id), signal: ctx.signal })).body);
    if (!request) return { exists: false };
    return { exists: true, state: { request_id: desired.request_id, status: request.status ?? null, description: request.description ?? null } };
  },

  summarize: (state) => ({ request_id: state.request_id, status: state.status, description: state.description }),

  plan: (_desired, state) => ({ action: 'no-op', before: { request_id: state.request_id }, after: { request_id: state.request_id }, changes: [], errors: [], warnings: [], notes: [] }),

  async apply(ctx, change) {
    const id = change.desired.request_id as number;
    await deleteIfPresent(() => ctx.api.request({ method: 'DELETE', path: requestPath(id), retry: 'idempotent', signal: ctx.signal }));
  },
};
