import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type CloudScope, type KindList } from '../kind-list.js';

/**
 * The fields of a floating IP answer (FloatingIPSerializer) edgeform reads: the tags and the
 * lock it plans from are required; the address and status are only shown.
 */
export const floatingIpAnswer = z.looseObject({
  id: z.string(),
  floating_ip_address: z.string().nullish(),
  status: z.string().nullish(),
  tags: z.array(z.looseObject({ key: z.string(), value: z.string(), read_only: z.boolean() })),
  task_id: z.string().nullable(),
});

/** A floating IP as edgeform reads it. */
export type FloatingIp = z.infer<typeof floatingIpAnswer>;

/** A page of the floating IP list (FloatingIPDetailedCollectionSerializer): its items are floating IP answers. */
export const floatingIpPage = z.looseObject({ count: z.int().min(0), results: z.array(floatingIpAnswer) });

/** The floating IPs of a project and region (`limit`/`offset`, 1,000 a page): grouped reads and import page through it. */
export const floatingIpList: KindList<CloudScope, FloatingIp> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/floatingips/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(floatingIpList.path(s), { schema: floatingIpPage, query: { limit, offset }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
