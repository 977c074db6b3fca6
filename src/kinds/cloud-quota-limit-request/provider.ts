import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

/**
 * Cloud quota limit requests (status `done`, `in progress` or `rejected`). edgeform only
 * adopts and deletes them; DELETE is synchronous (204, no task).
 */
export const cloudQuotaLimitRequest = defineDeletableProvider({
  type: 'cloud_quota_limit_request',
  idField: 'request_id',
  path: (desired) => apiPath`/cloud/v2/limits_request/${desired.request_id}`,
  fields: { status: z.string(), description: z.string().nullish() },
});
