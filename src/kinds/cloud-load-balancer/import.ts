import { defineImport } from '../kind-list.js';
import { importedUserTags, ownedByTags } from '../cloud-owned.js';
import { balancerFields, balancerList } from './list.js';

/**
 * Importing load balancers: those of a project and region, each pinned by its id, with its name,
 * flavor, VIP subnet and family, logging and user tags (`vip_network_id` is not answered, so it
 * is not written; a VIP subnet imported in the same stack is written as its reference). One that
 * an edgeform stack's ownership tags name is left out: it is that stack's. Its listeners and
 * pools come with it, and the secrets its listeners use (`alsoImports`).
 */
export const balancerImport = defineImport('cloud_load_balancer', {
  scope: 'cloud',
  quotaUsage: ['loadbalancer_count_usage'],
  list: balancerList,
  itemId: (lb) => lb.id,
  attributes: (lb, s) => {
    const fields = balancerFields(lb);
    const logging = fields.logging;
    return {
      project_id: s.project_id,
      region_id: s.region_id,
      load_balancer_id: lb.id,
      name: lb.name,
      ...(fields.flavor === null ? {} : { flavor: fields.flavor }),
      ...(fields.vip_ip_family === null ? {} : { vip_ip_family: fields.vip_ip_family }),
      ...(logging.enabled || logging.topic_name !== null ? { logging } : {}),
      tags: importedUserTags(lb.tags),
    };
  },
  blockName: (lb) => lb.name,
  facts: (lb) => [
    ['name', lb.name],
    ['vip_address', lb.vip_address ?? ''],
  ],
  ownedBy: (lb) => ownedByTags(lb.tags),
  alsoImports: ['cloud_lb_listener', 'cloud_lb_pool', 'cloud_lb_l7policy', 'cloud_secret'],
});
