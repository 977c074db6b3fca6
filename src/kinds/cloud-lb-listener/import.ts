import { defineImport } from '../kind-list.js';
import { listenerFields, listenerList } from './list.js';

/**
 * Importing listeners: those of a project and region, each pinned by its id, with its balancer
 * (written `${cloud_load_balancer.NAME.id}` when the balancer is imported with it), protocol,
 * port and settings; its certificates as `${cloud_secret.NAME.id}` likewise. Imported with the
 * balancers (`import cloud_load_balancer` brings them).
 */
export const listenerImport = defineImport('cloud_lb_listener', {
  scope: 'cloud',
  quotaUsage: ['loadbalancer_count_usage'],
  list: listenerList,
  itemId: (l) => l.id,
  attributes: (l, s) => {
    const { secret_id, sni_secret_id, user_list, load_balancer_id, protocol, connection_limit, ...fields } = listenerFields(l);
    return {
      project_id: s.project_id,
      region_id: s.region_id,
      ...fields,
      load_balancer_id: load_balancer_id ?? '',
      protocol: protocol as 'HTTP',
      ...(connection_limit === null ? {} : { connection_limit }),
      ...(secret_id === null ? {} : { secret_id }),
      ...(sni_secret_id.length === 0 ? {} : { sni_secret_id }),
      ...(user_list.length === 0 ? {} : { user_list }),
    };
  },
  blockName: (l) => l.name,
  facts: (l) => [
    ['name', l.name],
    ['port', `${l.protocol} ${l.protocol_port}`],
  ],
  refersTo: { load_balancer_id: 'cloud_load_balancer', secret_id: 'cloud_secret', sni_secret_id: 'cloud_secret' },
});
