import { z } from 'zod';
import { CLOUD_PRODUCT } from '../../cloud-common.js';
import { datetime, fixtureDate, int, listSection, positiveInt } from '../../fixture-parts.js';
import { parseDate } from '../../format.js';
import { defineService } from '../../service.js';
import { QUOTA_REQUEST_STATUSES, quotaRoutes } from './routes.js';

/** A quota limit request. */
export interface QuotaRequestRecord {
  id: number;
  client_id: number;
  status: 'done' | 'in progress' | 'rejected';
  description: string | null;
  requested_limits: { global_limits?: Record<string, number>; regional_limits?: Array<Record<string, number>> };
  created_at: number;
  updated_at: number | null;
}

/** The quota request service's slice of the state. */
export interface QuotaSlice {
  readonly quotaRequests: Map<number, QuotaRequestRecord>;
}

const quotaRequestFixture = z.strictObject({
  id: positiveInt,
  client_id: positiveInt.optional(),
  status: z.enum(QUOTA_REQUEST_STATUSES),
  description: z.string().nullable().default(null),
  requested_limits: z
    .strictObject({
      global_limits: z.record(z.string(), int).optional(),
      regional_limits: z.array(z.record(z.string(), int)).optional(),
    })
    .default({}),
  created_at: datetime.optional(),
  updated_at: datetime.nullable().default(null),
});

/**
 * Quota limit requests (cloud v2 limits_request): list with filters, GET, POST (201), DELETE
 * (204). Fixtures: `quota_requests`.
 */
export const quotaService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { quota_requests: listSection(quotaRequestFixture) },
  fixtureIds: { quota_requests: (x) => x.id },
  createState: (): QuotaSlice => ({ quotaRequests: new Map() }),
  load(slice, { quota_requests }, world) {
    slice.quotaRequests.clear();
    for (const x of quota_requests) {
      slice.quotaRequests.set(x.id, {
        id: x.id,
        client_id: x.client_id ?? world.client_id,
        status: x.status,
        description: x.description,
        requested_limits: structuredClone(x.requested_limits),
        created_at: fixtureDate(x.created_at),
        updated_at: x.updated_at ? parseDate(x.updated_at) : null,
      });
    }
  },
  dump: (state) => ({ quota_requests: [...state.quotaRequests.values()] }),
  routes: quotaRoutes,
  mutationKinds: ['quota_request'],
  taskTargets: [],
});
