import type { KindEconomics } from '../economics.js';

/** Creating a subnet takes one `subnet_count` of its region. The platform has no pricing route for it: not priced. */
export const subnetEconomics: KindEconomics<'cloud_subnet'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'subnet_count', amount: 1 }] : []),
};
