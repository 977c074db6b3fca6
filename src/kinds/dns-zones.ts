import { z } from 'zod';
import { apiPath } from '../api/path.js';
import type { AccountScope, KindList } from './kind-list.js';

/**
 * The account's DNS zones: the dns_zone kind's list, and what a dns_rrset's create plan checks its
 * zone against (a record set in a zone the account does not have is refused).
 */

/** The fields of a zone answer edgeform reads (the vendor's OutputZone / ItemZoneResponse). */
export const zoneItem = z.looseObject({
  name: z.string().min(1),
  contact: z.string().optional(),
  primary_server: z.string().optional(),
  expiry: z.int().min(0).optional(),
  refresh: z.int().min(0).optional(),
  retry: z.int().min(0).optional(),
  nx_ttl: z.int().min(0).optional(),
  serial: z.int().min(0).optional(),
  meta: z.record(z.string(), z.unknown()).nullish(),
  enabled: z.boolean().optional(),
  dnssec_enabled: z.boolean().optional(),
  status: z.string().optional(),
});

/** A zone as the platform answers it. */
export type ZoneItem = z.infer<typeof zoneItem>;

/** A page of the zone list (`ListZoneResponse`: `{zones, total_amount}`). */
const zonePage = z.looseObject({ zones: z.array(zoneItem), total_amount: z.int().min(0).optional() });

/** Zones asked for per page (the vendor documents `limit` but not its largest value). */
export const ZONES_PER_PAGE = 1000;

/** The zones listed: those named (`name`, exact match: grouped reads), or every zone of the account (import). */
export interface ZoneScope extends AccountScope {
  names?: readonly string[];
}

export const ZONES = '/dns/v2/zones';

/** The path of one zone. */
export const zonePath = (name: string) => apiPath`/dns/v2/zones/${name}`;

/** The account's DNS zones (`GET /dns/v2/zones`, `limit`/`offset`, by name), filtered by exact names when given. */
export const zoneList: KindList<ZoneScope, ZoneItem> = {
  paging: { kind: 'offset', maxPageSize: ZONES_PER_PAGE },
  path: () => ZONES,
  async fetchPage(ctx, s, { limit, offset }) {
    const filter = s.names === undefined ? {} : { name: [...s.names], exact_match: true };
    const page = (await ctx.api.get(ZONES, { schema: zonePage, query: { ...filter, limit, offset, order_by: 'name' }, signal: ctx.signal })).body;
    return page.total_amount === undefined ? { items: page.zones } : { items: page.zones, total: page.total_amount };
  },
};
