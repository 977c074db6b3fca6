import { apiPath } from '../../api/path.js';
import { knownNumber, type KindEconomics, type PriceRequest } from '../economics.js';

const SOURCES = { new: 'new-volume', image: 'image', snapshot: 'snapshot' } as const;

/** The pricing request of a volume (VolumeOrSnapshotPricingRequestSerializer). */
function volumePrice(d: { project_id: number; region_id: number }, values: Record<string, unknown>): PriceRequest {
  const source = SOURCES[(values.source as keyof typeof SOURCES | undefined) ?? 'new'] ?? 'new-volume';
  const size = knownNumber(values.size);
  return {
    method: 'POST',
    path: apiPath`/cloud/v1/pricing/${d.project_id}/${d.region_id}/volumes`,
    body: {
      source,
      ...(size === undefined ? {} : { size }),
      type_name: typeof values.volume_type === 'string' ? values.volume_type : 'standard',
      ...(source === 'snapshot' && typeof values.snapshot_id === 'string' ? { snapshot_id: values.snapshot_id } : {}),
    },
    answer: 'item',
  };
}

/**
 * A volume takes a `volume_count` and its size in `volume_size` GiB when created; an extend
 * takes the growth. Priced by source, size and type; an extend or retype before and after.
 */
export const volumeEconomics: KindEconomics<'cloud_volume'> = {
  quota: (change) => {
    const d = change.desired;
    const size = knownNumber(d.size) ?? 0;
    if (change.action === 'create')
      return [
        { address: change.address, scope: d.region_id, counter: 'volume_count', amount: 1 },
        { address: change.address, scope: d.region_id, counter: 'volume_size', amount: size },
      ];
    const was = knownNumber(change.before?.size);
    if ((change.action === 'update' || change.action === 'replace') && was !== undefined && size > was)
      return [{ address: change.address, scope: d.region_id, counter: 'volume_size', amount: size - was }];
    return [];
  },
  price: (change) => {
    const d = change.desired;
    const after = volumePrice(d, { ...d });
    if (change.action === 'create') return { after };
    if (change.action !== 'update' && change.action !== 'replace') return undefined;
    const before = change.before ?? {};
    if (change.action === 'update' && before.size === d.size && (before.volume_type ?? 'standard') === (d.volume_type ?? before.volume_type ?? 'standard')) return undefined;
    return { before: volumePrice(d, { source: d.source, ...before }), after: volumePrice(d, { ...before, ...stripUndefined(d) }) };
  },
};

function stripUndefined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}
