import { defineImport } from '../kind-list.js';
import { requestList } from './list.js';

/** Importing quota limit requests: every request of the account, each pinned by its id; named after the id. */
export const requestImport = defineImport('cloud_quota_limit_request', {
  scope: 'account',
  list: requestList,
  itemId: (request) => String(request.id),
  // A non-numeric id fails the kind's schema, and the import names the item (see defineImport).
  attributes: (request) => ({ request_id: request.id as number }),
  blockName: (request) => `quota_request_${request.id}`,
  facts: (request) => [
    ['status', request.status],
    ['description', request.description],
  ],
});
