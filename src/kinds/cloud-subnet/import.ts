import { defineImport } from '../kind-list.js';
import { importedUserTags, ownedByTags } from '../cloud-owned.js';
import { subnetFields, subnetList } from './list.js';

/**
 * Importing subnets: those of a project and region, each pinned by its id, with its network,
 * CIDR, DHCP, DNS servers, routes, gateway and user tags. `network_id` names a network: imported
 * with it, the stack says `${cloud_network.NAME.id}` (refersTo). One that an edgeform stack's
 * ownership tags name is left out: it is that stack's.
 */
export const subnetImport = defineImport('cloud_subnet', {
  scope: 'cloud',
  quotaUsage: ['subnet_count_usage'],
  list: subnetList,
  itemId: (subnet) => subnet.id,
  attributes: (subnet, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    ...subnetFields(subnet),
    ...(subnet.gateway_ip === null || subnet.gateway_ip === undefined ? { connect_to_network_router: false } : {}),
    tags: importedUserTags(subnet.tags),
  }),
  blockName: (subnet) => subnet.name,
  facts: (subnet) => [
    ['name', subnet.name],
    ['cidr', subnet.cidr],
  ],
  ownedBy: (subnet) => ownedByTags(subnet.tags),
  refersTo: { network_id: 'cloud_network' },
});
