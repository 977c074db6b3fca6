import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** cloud_quota_limit_request: a quota limit request by id; `ensure: absent` withdraws it. */
export const cloudQuotaLimitRequestKind = defineKind({
  type: 'cloud_quota_limit_request',
  kind: 'resource',
  description: 'A cloud quota limit request, by id; ensure: absent deletes it.',
  identity: ['request_id'],
  shape: z.strictObject({
    request_id: positiveId.describe('The quota limit request id (integer).'),
    ensure: ensureDeletable,
  }),
});
