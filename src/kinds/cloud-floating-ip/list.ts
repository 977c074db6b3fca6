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

/** Floating IPs of a project and region filtered by their tags: `tag_key_value` (a JSON object of key → value, each carried) or `tag_key` (a key carried). */
export interface TaggedScope extends CloudScope {
  filter: { tag_key_value: string } | { tag_key: string };
}

/**
 * The floating IPs of a project and region carrying tags (the list's tag filter), paged as the
 * whole list is: the find by ownership tags and the ownership listing read it. The platform's
 * filter is not trusted: callers check each item's tags again.
 */
export const floatingIpTaggedList: KindList<TaggedScope, FloatingIp> = {
  paging: floatingIpList.paging,
  path: (s) => floatingIpList.path(s),
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(floatingIpTaggedList.path(s), { schema: floatingIpPage, query: { ...s.filter, limit, offset }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
