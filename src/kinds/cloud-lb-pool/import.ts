import { defineImport, type ImportedAttributes } from '../kind-list.js';
import { poolFields, poolList } from './list.js';

/**
 * Importing pools: those of a project and region, each pinned by its id, with its balancer and
 * listener (written as references when imported with them), settings, members and monitor.
 * Imported with the balancers (`import cloud_load_balancer` brings them).
 */
export const poolImport = defineImport('cloud_lb_pool', {
  scope: 'cloud',
  quotaUsage: ['loadbalancer_count_usage'],
  list: poolList,
  itemId: (p) => p.id,
  attributes: (p, s) => {
    const { load_balancer_id, listener_id, session_persistence, secret_id, ca_secret_id, crl_secret_id, healthmonitor, members, lb_algorithm, protocol, ...fields } = poolFields(p);
    return {
      project_id: s.project_id,
      region_id: s.region_id,
      ...fields,
      load_balancer_id: load_balancer_id ?? '',
      ...(listener_id === null ? {} : { listener_id }),
      lb_algorithm: lb_algorithm as 'ROUND_ROBIN',
      protocol: protocol as 'HTTP',
      ...(session_persistence === null ? {} : { session_persistence: session_persistence as ImportedAttributes<'cloud_lb_pool'>['session_persistence'] }),
      ...(secret_id === null ? {} : { secret_id }),
      ...(ca_secret_id === null ? {} : { ca_secret_id }),
      ...(crl_secret_id === null ? {} : { crl_secret_id }),
      members: members.map(({ monitor_address, monitor_port, ...m }) => ({
        ...m,
        ...(monitor_address === null ? {} : { monitor_address }),
        ...(monitor_port === null ? {} : { monitor_port }),
      })),
      // The live monitor's fields are the schema's (the importer checks the block with it).
      healthmonitor: healthmonitor as ImportedAttributes<'cloud_lb_pool'>['healthmonitor'],
    };
  },
  blockName: (p) => p.name,
  facts: (p) => [
    ['name', p.name],
    ['members', String(p.members?.length ?? 0)],
  ],
  refersTo: {
    load_balancer_id: 'cloud_load_balancer',
    listener_id: 'cloud_lb_listener',
    secret_id: 'cloud_secret',
    ca_secret_id: 'cloud_secret',
    crl_secret_id: 'cloud_secret',
  },
});
