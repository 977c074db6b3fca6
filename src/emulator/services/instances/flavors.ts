import type { InstanceSlice } from './index.js';

/** A flavor of the catalogue. */
export interface FlavorRecord {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
  architecture: string;
  os_type: string;
  disabled: boolean;
}

/** vCPUs and RAM (MiB) from a flavor name such as g2-standard-4-8; 1 vCPU / 1024 MiB otherwise. */
export function deriveFlavor(flavorId: string): { vcpus: number; ram: number } {
  const m = /-(\d+)-(\d+(?:\.\d+)?)$/.exec(flavorId);
  if (!m) return { vcpus: 1, ram: 1024 };
  return { vcpus: Number(m[1]), ram: Math.round(Number(m[2]) * 1024) };
}

/** A flavor of the catalogue, added (derived from its name `<family>-<vcpus>-<ram GiB>`) when the catalogue lacks it. */
export function ensureFlavor(slice: InstanceSlice, flavorId: string): FlavorRecord {
  let flavor = slice.flavors.get(flavorId);
  if (!flavor) {
    flavor = { flavor_id: flavorId, flavor_name: flavorId, ...deriveFlavor(flavorId), architecture: 'x86_64', os_type: 'LINUX', disabled: false };
    slice.flavors.set(flavorId, flavor);
  }
  return flavor;
}

/** A flavor's vCPUs and RAM (MiB): the catalogue's, else derived from its name; the catalogue is left as it is (for reads: quotas, prices). */
export function flavorSize(slice: InstanceSlice, flavorId: string): { vcpus: number; ram: number } {
  return slice.flavors.get(flavorId) ?? deriveFlavor(flavorId);
}
