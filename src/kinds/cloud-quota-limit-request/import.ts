import { defineImport } from '../kind-list.js';
import { normalizeLimits, requestList } from './list.js';

/** Importing quota limit requests: every request of the account, each pinned by its id, with its description and requested limits; named after the id. */
export const requestImport = defineImport('cloud_quota_limit_request', {
  scope: 'account',
  list: requestList,
  itemId: (request) => String(request.id),
  attributes: (request) => {
    const limits = normalizeLimits(request.requested_limits);
    return {
      request_id: request.id,
      ...(request.description ? { description: request.description } : {}),
      // The platform's value as it is: import writes it as data, and reading the stack back checks it against the kind's schema.
      ...(Object.keys(limits).length > 0 ? { requested_limits: limits as never } : {}),
    };
  },
  blockName: (request) => `quota_request_${request.id}`,
  facts: (request) => [
    ['status', request.status],
    ['description', request.description],
  ],
});
