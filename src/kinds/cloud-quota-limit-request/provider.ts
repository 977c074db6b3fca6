import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';
import { listEndpointOf } from '../kind-list.js';
import { requestImport } from './import.js';
import { requestFields, requestList } from './list.js';

/** Request ids named at most in one list request (`request_ids`), so its URL stays short. */
export const QUOTA_REQUEST_IDS_PER_LIST = 100;

/**
 * Cloud quota limit requests (status `done`, `in progress` or `rejected`). edgeform only
 * adopts and deletes them; DELETE is synchronous (204, no task). Many are read together from
 * the list filtered by their ids (`request_ids`, a hundred at a time).
 */
export const cloudQuotaLimitRequest = defineDeletableProvider<'cloud_quota_limit_request'>({
  type: 'cloud_quota_limit_request',
  idField: 'request_id',
  path: (desired) => apiPath`/cloud/v2/limits_request/${desired.request_id}`,
  fields: requestFields,
  list: {
    group: () => 'requests',
    maxMembersPerList: QUOTA_REQUEST_IDS_PER_LIST,
    ...listEndpointOf(requestList, (members) => ({ request_ids: members.map((m) => m.request_id) })),
  },
  import: requestImport,
});
