import type { KindEconomics } from '../economics.js';

/** Creating a security group takes one `firewall_count` of its region. The platform has no pricing route for it: not priced. */
export const securityGroupEconomics: KindEconomics<'cloud_security_group'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'firewall_count', amount: 1 }] : []),
};
