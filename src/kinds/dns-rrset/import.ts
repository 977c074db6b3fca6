import { canonicalName } from '../dns-names.js';
import { defineImport } from '../kind-list.js';
import { accountRrsetList, namedZonesRrsetList, type ZonedRrset } from './list.js';
import { canonicalRecords, type RecordType } from './schema.js';

/** The record's meta, when it has keys. */
const metaOf = (meta: Record<string, unknown> | null | undefined) => (meta && Object.keys(meta).length > 0 ? { meta } : {});

/**
 * Importing DNS record sets: every record set of every zone (but the apex SOA and NS, the zone's
 * own), each by its zone, fully qualified name and type, with its TTL, records (in their
 * normalised form), pickers and meta as live. Named after the name and type.
 */
export const rrsetImport = defineImport('dns_rrset', {
  scope: 'account',
  list: accountRrsetList,
  itemId: ({ zone, rrset }) => `${zone}/${canonicalName(rrset.name)}/${rrset.type.toUpperCase()}`,
  attributes: ({ zone, rrset }: ZonedRrset) => {
    const type = rrset.type.toUpperCase() as RecordType;
    // The platform's record set as written: the stack read back checks it against dns_rrset's schema.
    return {
      zone,
      name: canonicalName(rrset.name),
      record_type: type,
      ...(rrset.ttl === undefined ? {} : { ttl: rrset.ttl }),
      resource_records: canonicalRecords(type, rrset.resource_records).map((r) => ({ content: r.content, ...(r.enabled === false ? { enabled: false } : {}), ...metaOf(r.meta) })),
      ...(rrset.pickers && rrset.pickers.length > 0 ? { pickers: rrset.pickers } : {}),
      ...metaOf(rrset.meta),
    } as never;
  },
  blockName: ({ rrset }) => `${canonicalName(rrset.name)}_${rrset.type.toLowerCase()}`,
  facts: ({ zone }) => [['zone', zone]],
  // A zone imported with it is referred to by name (written in at load: the zone is read first).
  refersTo: { zone: { type: 'dns_zone', field: 'name' } },
  within: { type: 'dns_zone', list: namedZonesRrsetList },
});
