import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture, type Placement, type TaskMade } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, int, listSection, nextTaskError, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { userTagMap, type Tag } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { firstHost, hostCount, parseNetwork, type IpNetwork } from '../../cidr.js';
import { networks, subnets } from './routes.js';

/** A network as held in memory (API field names; datetimes as epoch ms). */
export interface NetworkRecord extends Placement, TaskMade {
  id: string;
  name: string;
  type: 'vlan' | 'vxlan';
  mtu: number;
  segmentation_id: number | null;
  external: boolean;
  default: boolean;
  shared: boolean;
  port_security_enabled: boolean;
  tags: Tag[];
}

/** A static route a subnet advertises by DHCP. */
export interface HostRoute {
  destination: string;
  nexthop: string;
}

/** A subnet as held in memory (API field names; datetimes as epoch ms). */
export interface SubnetRecord extends Placement, TaskMade {
  id: string;
  name: string;
  network_id: string;
  cidr: string;
  ip_version: 4 | 6;
  enable_dhcp: boolean;
  dns_nameservers: string[] | null;
  host_routes: HostRoute[] | null;
  gateway_ip: string | null;
  total_ips: number | null;
  tags: Tag[];
}

/** The network service's slice of the state: networks and their subnets, by id. */
export interface NetworkSlice {
  readonly networks: Map<string, NetworkRecord>;
  readonly subnets: Map<string, SubnetRecord>;
}

/**
 * What a network or subnet task does when it finishes: a create leaves the record made at the
 * POST in place (a failed one removes it), a delete removes it (a failed one leaves it).
 */
export type NetworkEffect = { type: 'create_network' } | { type: 'delete_network' } | { type: 'create_subnet' } | { type: 'delete_subnet' };

const route = z.strictObject({ destination: z.string(), nexthop: z.string() });

const networkFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  type: z.enum(['vlan', 'vxlan']).default('vxlan'),
  mtu: int.default(1450),
  segmentation_id: int.nullable().default(null),
  external: z.boolean().default(false),
  default: z.boolean().default(false),
  shared: z.boolean().default(false),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  updated_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const subnetFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  network_id: uuid,
  cidr: z.string().refine((s) => !('error' in parseNetwork(s)), 'must be a network in CIDR notation, e.g. 10.0.0.0/24'),
  enable_dhcp: z.boolean().default(true),
  dns_nameservers: z.array(z.string()).nullable().default(null),
  host_routes: z.array(route).nullable().default(null),
  gateway_ip: z.string().nullable().optional(),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  updated_at: datetime.optional(),
  next_task_error: nextTaskError,
});

/** A create or delete task's end on a network or subnet of `map` (logged under `kind`). */
function lifecycleFinish<Rec extends { id: string; tags: Tag[] }>(map: (state: NetworkSlice) => Map<string, Rec>, kind: 'network' | 'subnet') {
  return (
    state: NetworkSlice & { recordMutation(time: number, kind: 'network' | 'subnet', id: string, change: string, after: Record<string, unknown>, taskId: string): void },
    record: Rec,
    task: { id: string; finish_at: number; task_type: string },
    ok: boolean,
  ): void => {
    const creating = task.task_type.startsWith('create_');
    if (creating && !ok) map(state).delete(record.id);
    if (!ok) return;
    if (!creating) map(state).delete(record.id);
    state.recordMutation(task.finish_at, kind, record.id, task.task_type, creating ? { tags: userTagMap(record.tags) } : {}, task.id);
  };
}

const networkTasks: TaskTarget<'network', NetworkRecord, NetworkEffect, NetworkSlice> = {
  kind: 'network',
  find: (state, id) => state.networks.get(id),
  finish: lifecycleFinish((s) => s.networks, 'network'),
};

const subnetTasks: TaskTarget<'subnet', SubnetRecord, NetworkEffect, NetworkSlice> = {
  kind: 'subnet',
  find: (state, id) => state.subnets.get(id),
  finish: lifecycleFinish((s) => s.subnets, 'subnet'),
};

/**
 * Cloud networks and subnets (v1): list (filtered by name, type, external, tag_key,
 * tag_key_value; subnets by network_id), get, create (tasks create_network, create_subnet),
 * PATCH (name, tags merge patch; a subnet's DNS servers, routes, gateway and DHCP too) and delete
 * (tasks delete_network, delete_subnet). A network with subnets is not deleted (409 naming
 * them); a subnet is refused into an unknown network or over another subnet's addresses.
 * Fixtures: `networks`, `subnets`.
 */
export const networksService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { networks: listSection(networkFixture), subnets: listSection(subnetFixture) },
  fixtureIds: { networks: (x) => x.id, subnets: (x) => x.id },
  createState: (): NetworkSlice => ({ networks: new Map(), subnets: new Map() }),
  load(slice, { networks: nets, subnets: subs }, world) {
    slice.networks.clear();
    slice.subnets.clear();
    for (const x of nets) {
      slice.networks.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        type: x.type,
        mtu: x.mtu,
        segmentation_id: x.segmentation_id,
        external: x.external,
        default: x.default,
        shared: x.shared,
        port_security_enabled: true,
        tags: fixtureTags(x.tags, x.read_only_tags),
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        created_at: fixtureDate(x.created_at),
        updated_at: fixtureDate(x.updated_at ?? x.created_at),
        next_task_error: x.next_task_error,
      });
    }
    for (const x of subs) {
      const network = parseFixtureNetwork(x.cidr);
      slice.subnets.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        network_id: x.network_id,
        cidr: x.cidr,
        ip_version: network.version,
        enable_dhcp: x.enable_dhcp,
        dns_nameservers: x.dns_nameservers,
        host_routes: x.host_routes,
        gateway_ip: x.gateway_ip === undefined ? firstHost(network) : x.gateway_ip,
        total_ips: hostCount(network),
        tags: fixtureTags(x.tags, x.read_only_tags),
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        created_at: fixtureDate(x.created_at),
        updated_at: fixtureDate(x.updated_at ?? x.created_at),
        next_task_error: x.next_task_error,
      });
    }
  },
  dump: (state) => ({ networks: [...state.networks.values()], subnets: [...state.subnets.values()] }),
  routes: [...networks.routes, ...subnets.routes],
  mutationKinds: ['network', 'subnet'],
  taskTargets: [networkTasks, subnetTasks],
});

/** A fixture subnet's CIDR, parsed (the section's schema checked it). */
function parseFixtureNetwork(cidr: string): IpNetwork {
  return parseNetwork(cidr) as IpNetwork;
}
