import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

const REQUESTS = '/cloud/v2/limits_request';

/** Request ids named at most in one list request (`request_ids`), so its URL stays short. */
export const QUOTA_REQUEST_IDS_PER_LIST = 100;

/**
 * Cloud quota limit requests (status `done`, `in progress` or `rejected`). edgeform only
 * adopts and deletes them; DELETE is synchronous (204, no task). Many are read together from
 * the list filtered by their ids (`request_ids`, a hundred at a time).
 */
export const cloudQuotaLimitRequest = defineDeletableProvider({
  type: 'cloud_quota_limit_request',
  idField: 'request_id',
  path: (desired) => apiPath`/cloud/v2/limits_request/${desired.request_id}`,
  fields: { status: z.string(), description: z.string().nullish() },
  list: {
    group: () => 'requests',
    paging: { kind: 'offset', maxPageSize: 1000 },
    maxMembersPerList: QUOTA_REQUEST_IDS_PER_LIST,
    describe: () => `GET ${REQUESTS}`,
    async fetchPage(ctx, members, { limit, offset }, item) {
      const schema = z.looseObject({ count: z.int().min(0), results: z.array(item) });
      const query = { request_ids: members.map((m) => m.request_id), limit, offset };
      const page = (await ctx.api.get(REQUESTS, { schema, query, signal: ctx.signal })).body;
      return { items: page.results, total: page.count };
    },
  },
});
