import { apiPath } from '../../api/path.js';
import { KNOWN_AFTER_APPLY, type ResourceChange } from '../../plan/types.js';
import type { KindEconomics, PriceRequest } from '../economics.js';

type Balancer = ResourceChange<'cloud_load_balancer'>['desired'];

/** A value the plan knows (a reference to what apply makes is known only after it). */
const known = (value: unknown): value is string => typeof value === 'string' && value !== KNOWN_AFTER_APPLY;

/**
 * The VIP as the price preview and check_limits read it: the network (and subnet, family) when
 * known; none for an external VIP. A VIP on a network the plan creates has no external IP, but
 * its id cannot be sent yet: `unknownNetwork` says so (the external IP is left out of the price).
 */
function vip(d: Balancer): { fields: Record<string, unknown>; unknownNetwork: boolean } {
  if (d.vip_network_id === undefined) return { fields: {}, unknownNetwork: false };
  if (!known(d.vip_network_id)) return { fields: {}, unknownNetwork: true };
  return {
    fields: {
      vip_network_id: d.vip_network_id,
      ...(known(d.vip_subnet_id) ? { vip_subnet_id: d.vip_subnet_id } : {}),
      ...(d.vip_ip_family === undefined ? {} : { vip_ip_family: d.vip_ip_family }),
    },
    unknownNetwork: false,
  };
}

/**
 * The v2 preview of a balancer of this flavor (LoadBalancerPricingPreviewV2RequestSerializer).
 * The floating IP a block names is priced by its own block, so none is sent; a flavor left to
 * the platform cannot be priced (the route requires one: the line says price unknown).
 */
function preview(d: Balancer, flavor: unknown): PriceRequest {
  const { fields, unknownNetwork } = vip(d);
  return {
    method: 'POST',
    path: apiPath`/cloud/v2/pricing/${d.project_id}/${d.region_id}/loadbalancers`,
    body: { ...(typeof flavor === 'string' ? { flavor } : {}), ...fields },
    answer: 'loadbalancer',
    ...(unknownNetwork ? { withoutExternalIp: true } : {}),
  };
}

/**
 * A balancer takes a `loadbalancer_count` of its region when created; the vendor's check_limits
 * route is asked too (what the VIP takes: an external IP for an external VIP), each balancer on
 * its own, but for a VIP on a network the plan creates (no id to send; the count is held against
 * client_quotas). Priced by the v2 preview (flavor and VIP); a resize or a replace by the
 * current flavor's preview against the new one's (there is no current-price route for balancers).
 */
export const loadBalancerEconomics: KindEconomics<'cloud_load_balancer'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'loadbalancer_count', amount: 1 }] : []),
  checkLimits: (change) => {
    if (change.action !== 'create') return undefined;
    const d = change.desired;
    const { fields, unknownNetwork } = vip(d);
    if (unknownNetwork) return undefined;
    return { path: apiPath`/cloud/v1/loadbalancers/${d.project_id}/${d.region_id}/check_limits`, body: fields, key: `balancer ${change.address}` };
  },
  price: (change) => {
    const d = change.desired;
    if (change.action === 'create') return { after: preview(d, d.flavor) };
    if (change.action !== 'update' && change.action !== 'replace') return undefined;
    const was = change.before?.flavor;
    const resized = d.flavor !== undefined && was !== d.flavor;
    if (change.action === 'update' && !resized) return undefined;
    return { ...(typeof was === 'string' ? { before: preview(d, was) } : {}), after: preview(d, d.flavor ?? was) };
  },
};
