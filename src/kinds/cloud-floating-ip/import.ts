import { importedUserTags, ownedByTags } from '../cloud-owned.js';
import { defineImport } from '../kind-list.js';
import { floatingIpList } from './list.js';

/**
 * Importing floating IPs: those of a project and region, each pinned by its id, with its user
 * tags (the platform's read-only tags and edgeform's ownership tags are left out: a stack cannot
 * set them, and the diff never looks at ownership tags). One that an edgeform stack's ownership
 * tags name is left out, named with that stack: it is that stack's. A floating IP has no name;
 * its block is named after its address.
 */
export const floatingIpImport = defineImport('cloud_floating_ip', {
  scope: 'cloud',
  quotaUsage: ['floating_count_usage'],
  list: floatingIpList,
  itemId: (fip) => fip.id,
  attributes: (fip, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    floating_ip_id: fip.id,
    tags: importedUserTags(fip.tags),
  }),
  blockName: (fip) => `ip_${fip.floating_ip_address ?? fip.id.slice(0, 8)}`,
  facts: (fip) => [['address', fip.floating_ip_address]],
  ownedBy: (fip) => ownedByTags(fip.tags),
});
