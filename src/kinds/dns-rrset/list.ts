import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { canonicalName } from '../dns-names.js';
import { listAll, type AccountScope, type KindList } from '../kind-list.js';
import type { ProviderContext } from '../provider.js';

/** A record as the platform answers it (OutputResourceRecord): its content, whether it is served, its meta. */
const outputRecord = z.looseObject({
  content: z.array(z.unknown()),
  enabled: z.boolean().optional(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

/** A picker as the platform answers it (OutputFilter). */
const outputPicker = z.looseObject({ type: z.string(), limit: z.int().optional(), strict: z.boolean().optional() });

/** The fields of a record set answer edgeform reads (the vendor's OutputRRSet). */
export const rrsetItem = z.looseObject({
  name: z.string().min(1),
  type: z.string().min(1),
  ttl: z.int().min(0).optional(),
  resource_records: z.array(outputRecord),
  pickers: z.array(outputPicker).nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

/** A record set as the platform answers it. */
export type RrsetItem = z.infer<typeof rrsetItem>;

/** A page of a zone's record sets (`ListRRSetResponse`: `{rrsets, total_amount}`). */
const rrsetPage = z.looseObject({ rrsets: z.array(rrsetItem), total_amount: z.int().min(0).optional() });

/** Record sets asked for per page (the vendor documents `limit` but not its largest value). */
export const RRSETS_PER_PAGE = 1000;

/** The zone whose record sets are listed. */
export interface ZoneRrsetsScope {
  zone: string;
}

/** The path of one record set. */
export const rrsetPath = (zone: string, name: string, type: string) => apiPath`/dns/v2/zones/${zone}/${name}/${type}`;

/** A zone's record sets (`GET /dns/v2/zones/{zone}/rrsets`, `limit`/`offset`, with `total_amount`). */
export const zoneRrsetList: KindList<ZoneRrsetsScope, RrsetItem> = {
  paging: { kind: 'offset', maxPageSize: RRSETS_PER_PAGE },
  path: (s) => apiPath`/dns/v2/zones/${s.zone}/rrsets`,
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(zoneRrsetList.path(s), { schema: rrsetPage, query: { limit, offset }, signal: ctx.signal })).body;
    return page.total_amount === undefined ? { items: page.rrsets } : { items: page.rrsets, total: page.total_amount };
  },
};

/** A record set of the account, with the zone it is in (the import's item). */
export interface ZonedRrset {
  zone: string;
  rrset: RrsetItem;
}

/**
 * Every record set of every zone of the account: the zone list, then each zone's record set list
 * (each to its end through listAll), as one answer (`none` paging: what import lists is the whole
 * of it). The apex SOA and NS record sets are the zone's (the platform makes and keeps them) and
 * are left out.
 */
export const accountRrsetList: KindList<AccountScope, ZonedRrset> = {
  paging: { kind: 'none' },
  path: () => '/dns/v2/zones/{zone}/rrsets',
  async fetchPage(ctx) {
    return { items: await rrsetsOf(ctx, await listAll(ctx, zoneNames, {}, (name) => name)) };
  },
};

/** The record sets of the zones of these names only (an import of named zones), answered as one page. */
export const namedZonesRrsetList = (zones: readonly string[]): KindList<AccountScope, ZonedRrset> => ({
  paging: { kind: 'none' },
  path: () => '/dns/v2/zones/{zone}/rrsets',
  async fetchPage(ctx) {
    return { items: await rrsetsOf(ctx, zones) };
  },
});

/** Each record set of these zones (one list each, read to its end) but the apex SOA and NS, with its zone. */
async function rrsetsOf(ctx: ProviderContext, zones: readonly string[]): Promise<ZonedRrset[]> {
  const items: ZonedRrset[] = [];
  for (const zone of zones) {
    const rrsets = await listAll(ctx, zoneRrsetList, { zone }, (r) => `${canonicalName(r.name)}/${r.type.toUpperCase()}`);
    for (const rrset of rrsets) {
      const type = rrset.type.toUpperCase();
      if (type === 'SOA' || (type === 'NS' && canonicalName(rrset.name) === zone)) continue;
      items.push({ zone, rrset });
    }
  }
  return items;
}

/** A page of the zone list, as far as the record set import needs it (the names). */
const zoneNamesPage = z.looseObject({ zones: z.array(z.looseObject({ name: z.string().min(1) })), total_amount: z.int().min(0).optional() });

/** The account's zone names (`GET /dns/v2/zones`, 1,000 a page). */
const zoneNames: KindList<AccountScope, string> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/dns/v2/zones',
  async fetchPage(ctx, _s, { limit, offset }) {
    const page = (await ctx.api.get('/dns/v2/zones', { schema: zoneNamesPage, query: { limit, offset, order_by: 'name' }, signal: ctx.signal })).body;
    const items = page.zones.map((zone) => canonicalName(zone.name));
    return page.total_amount === undefined ? { items } : { items, total: page.total_amount };
  },
};
