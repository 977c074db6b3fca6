import { canonicalName } from '../dns-names.js';
import { defineImport } from '../kind-list.js';
import { zoneList, type ZoneItem } from './list.js';

/** The SOA fields and meta an imported zone states, as the platform holds them. */
function zoneFields(zone: ZoneItem): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of ['contact', 'primary_server', 'expiry', 'refresh', 'retry', 'nx_ttl'] as const)
    if (zone[field] !== undefined && zone[field] !== '') fields[field] = zone[field];
  if (zone.meta && Object.keys(zone.meta).length > 0) fields.meta = zone.meta;
  return fields;
}

/**
 * Importing DNS zones: every zone of the account (the zone list, 1,000 a page), each by its name
 * (its identity), with its SOA fields, meta, `enabled` and `dnssec` as live. Named after the zone.
 * Imported as the KIND named, it brings its record sets (`zone: ${dns_zone.NAME.name}`).
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
  // `import dns_zone` writes the zones' record sets too; `--name` is compared as zone names are.
  alsoImports: ['dns_rrset'],
  matchesName: (attributes, name) => attributes.name === canonicalName(name),
});
