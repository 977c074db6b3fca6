import { defineImport } from '../kind-list.js';
import { importedUserTags, ownedByTags } from '../cloud-owned.js';
import { networkList } from './list.js';

/**
 * Importing networks: those of a project and region (the platform's external and shared
 * networks are not the project's, so they are left out), each pinned by its id, with its name,
 * type and user tags. One that an edgeform stack's ownership tags name is left out: it is that
 * stack's.
 */
export const networkImport = defineImport('cloud_network', {
  scope: 'cloud',
  quotaUsage: ['network_count_usage'],
  list: {
    ...networkList,
    async fetchPage(ctx, s, page) {
      const answer = await networkList.fetchPage(ctx, s, page);
      return { ...answer, items: answer.items.filter((n) => n.external !== true && n.shared !== true) };
    },
  },
  itemId: (net) => net.id,
  attributes: (net, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    network_id: net.id,
    name: net.name,
    ...(net.type === 'vlan' || net.type === 'vxlan' ? { network_type: net.type as 'vlan' | 'vxlan' } : {}),
    tags: importedUserTags(net.tags),
  }),
  blockName: (net) => net.name,
  facts: (net) => [['name', net.name]],
  ownedBy: (net) => ownedByTags(net.tags),
});
