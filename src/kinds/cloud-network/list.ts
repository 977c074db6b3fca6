import { apiPath } from '../../api/path.js';

// The network list is shared with the subnets' create plans, which check their network_id against it.
export { networkAnswer, networkList, type Network } from '../cloud-lists.js';

/** A network's item path. */
export const networkPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/networks/${p}/${r}/${id}`;
