import { apiPath } from '../../api/path.js';
import { cloudPlace, type KindEconomics } from '../economics.js';

/** A floating IP takes one `floating_count` of its region; the creates of a place are priced by count in one request. */
export const floatingIpEconomics: KindEconomics<'cloud_floating_ip'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'floating_count', amount: 1 }] : []),
  price: (change) => {
    if (change.action !== 'create') return undefined;
    const d = change.desired;
    return {
      after: {
        method: 'POST',
        path: apiPath`/cloud/v1/pricing/${d.project_id}/${d.region_id}/floating_ips`,
        body: { count: 1 },
        answer: 'item',
        batch: { key: `floating_ips ${cloudPlace(d)}` },
      },
    };
  },
};
