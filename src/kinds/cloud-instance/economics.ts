import { apiPath } from '../../api/path.js';
import type { ResourceChange } from '../../plan/types.js';
import { cloudPlace, knownNumber, type KindEconomics, type PriceRequest } from '../economics.js';

type Instance = ResourceChange<'cloud_instance'>['desired'];

/**
 * The volumes a create makes with the instance (InstanceVolumePricingRequestSerializer): the boot
 * volume from image_id. Volumes of their own blocks (boot_volume_id, volume_ids) are counted and
 * priced by those blocks, never twice.
 */
function createdVolumes(d: Instance): Array<Record<string, unknown>> {
  if (typeof d.image_id !== 'string') return [];
  const size = knownNumber(d.boot_volume_size);
  return [{ source: 'image', ...(size === undefined ? {} : { size }), type_name: d.boot_volume_type ?? 'standard' }];
}

/**
 * The interfaces as the price preview reads them: only an external interface has a price of its
 * own (its public IP); subnet interfaces cost nothing, and the floating IPs they name are priced
 * by their own blocks.
 */
function pricedInterfaces(d: Instance): Array<Record<string, unknown>> {
  return (d.interfaces ?? []).filter((i) => i.type === 'external').map(() => ({ type: 'external' }));
}

function preview(d: Instance, withCreated: boolean): PriceRequest {
  return {
    method: 'POST',
    path: apiPath`/cloud/v2/pricing/${d.project_id}/${d.region_id}/instances`,
    body: { flavor: d.flavor_id, interfaces: withCreated ? pricedInterfaces(d) : [], ...(withCreated ? { volumes: createdVolumes(d) } : {}) },
    answer: 'instance',
  };
}

/** The current price of a live instance (`GET /cloud/v1/pricing/{p}/{r}/instances/{id}`), when its id is known. */
function current(change: ResourceChange<'cloud_instance'>): PriceRequest | undefined {
  const id = change.before?.instance_id ?? change.desired.instance_id;
  if (typeof id !== 'string') return undefined;
  const d = change.desired;
  return { method: 'GET', path: apiPath`/cloud/v1/pricing/${d.project_id}/${d.region_id}/instances/${id}`, answer: 'item' };
}

/**
 * An instance takes a `vm_count` when created; its vCPUs and RAM depend on the flavor, so the
 * vendor's check_limits route is asked (instances of one flavor and place together), with the
 * volumes the create makes. Priced by the v2 preview (flavor, external interfaces, boot volume
 * from an image); a resize by the instance's current price against the new flavor's.
 */
export const instanceEconomics: KindEconomics<'cloud_instance'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: change.desired.region_id, counter: 'vm_count', amount: 1 }] : []),
  checkLimits: (change) => {
    if (change.action !== 'create' || typeof change.desired.flavor_id !== 'string') return undefined;
    const d = change.desired;
    const volumes = createdVolumes(d);
    return {
      path: apiPath`/cloud/v2/instances/${d.project_id}/${d.region_id}/check_limits`,
      body: { flavor: d.flavor_id, names: [typeof d.name === 'string' ? d.name : change.name], interfaces: [], volumes },
      key: `${cloudPlace(d)} ${d.flavor_id} ${JSON.stringify(volumes)}`,
    };
  },
  price: (change) => {
    const d = change.desired;
    if (change.action === 'create') return { after: preview(d, true) };
    const before = change.before ?? {};
    if (change.action === 'update' && before.flavor_id !== undefined && before.flavor_id !== d.flavor_id) {
      const now = current(change);
      return { ...(now ? { before: now } : {}), after: preview(d, false) };
    }
    if (change.action === 'replace') {
      const now = current(change);
      return { ...(now ? { before: now } : {}), after: preview(d, true) };
    }
    return undefined;
  },
};
