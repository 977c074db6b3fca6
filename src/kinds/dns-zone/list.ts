// The account's zone list is shared with the record sets' create plans, which check their zone against it.
export { ZONES, ZONES_PER_PAGE, zoneItem, zoneList, zonePath, type ZoneItem, type ZoneScope } from '../dns-zones.js';
