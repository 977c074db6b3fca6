import { canonicalName } from '../dns-names.js';
import { splitZoneMeta } from '../dns-owner.js';
import { defineImport } from '../kind-list.js';
import { zoneList, type ZoneItem } from './list.js';

/** The SOA fields and meta an imported zone states, as the platform holds them. */
function zoneFields(zone: ZoneItem): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of ['contact', 'primary_server', 'expiry', 'refresh', 'retry', 'nx_ttl'] as const)
    if (zone[field] !== undefined && zone[field] !== '') fields[field] = zone[field];
  const { meta } = splitZoneMeta(zone.meta);
  if (Object.keys(meta).length > 0) fields.meta = meta;
  return fields;
}

/**
 * Importing DNS zones: every zone of the account (the zone list, 1,000 a page), each by its name
 * (its identity), with its SOA fields, meta (without edgeform's owner record), `enabled` and
 * `dnssec` as live. Named after the zone. Imported as the KIND named, it brings its record sets
 * (`zone: ${dns_zone.NAME.name}`). A zone another stack prunes is left out, with its record sets.
 */
export const zoneImport = defineImport('dns_zone', {
  scope: 'account',
  list: zoneList,
  itemId: (zone) => canonicalName(zone.name),
  attributes: (zone) => ({
    name: canonicalName(zone.name),
    ...zoneFields(zone),
    enabled: zone.enabled ?? true,
    dnssec: zone.dnssec_enabled ?? false,
  }),
  blockName: (zone) => canonicalName(zone.name),
  facts: (zone) => [['status', zone.status]],
  // A zone another stack prunes (its owner record names it) is that stack's, with its record sets.
  ownedBy(zone) {
    const { owner } = splitZoneMeta(zone.meta);
    if (owner === null) return undefined;
    const address = owner.address ?? 'dns_zone.NAME';
    return {
      stack: owner.stack,
      address,
      what: `prunes its record sets (its owner record, meta.edgeform, names it as ${address})`,
      takeOver: `to take it over, give its block moved_from: ${owner.stack}/${address} in a stack with prune: true`,
    };
  },
  // `import dns_zone` writes the zones' record sets too; `--name` is compared as zone names are.
  alsoImports: ['dns_rrset'],
  matchesName: (attributes, name) => attributes.name === canonicalName(name),
});
