import type { KindEconomics } from '../economics.js';

/** Creating a network takes one `network_count` of its region. The platform has no pricing route for it: not priced. */
export const networkEconomics: KindEconomics<'cloud_network'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'network_count', amount: 1 }] : []),
};
