import { CLOUD_PRODUCT, booleanQuery, cloudPages, enumQuery } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { formatNaiveDate } from '../../format.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { FloatingIpSlice } from '../floating-ips/index.js';
import type { InstanceSlice } from '../instances/index.js';
import type { K8sSlice } from '../k8s/index.js';
import type { LoadBalancerSlice } from '../load-balancers/index.js';
import { hasExternalVip } from '../load-balancers/model.js';
import type { NetworkSlice } from '../networks/index.js';
import { GLOBAL_LIMIT_KEYS, REGIONAL_LIMIT_KEYS } from '../quota/routes.js';
import type { SecurityGroupSlice } from '../security-groups/index.js';
import type { SshKeySlice } from '../ssh-keys/index.js';
import type { VolumeSlice } from '../volumes/index.js';
import type { BillingSlice } from '../billing/index.js';
import { flavorSize } from '../instances/flavors.js';
import { jsonReply } from '../../reply.js';
import { fixtureDate } from '../../fixture-parts.js';
import type { ProjectRecord, ProjectSlice, RegionRecord } from './index.js';

/**
 * What the project and region lists read: their own slice, and the cloud resources whose places
 * they list too; the client quotas count every cloud kind's resources.
 */
/** What the project routes (and the account quotas) read of the state. */
export type Needs = ProjectSlice & FloatingIpSlice & InstanceSlice & K8sSlice & NetworkSlice & SecurityGroupSlice & VolumeSlice & SshKeySlice & BillingSlice & LoadBalancerSlice;
type Ctx = RouteContext<Needs>;

/**
 * Every project and region of the world: those of the fixtures (or, when they name none, the
 * world's), and every other place a floating IP, instance or Kubernetes cluster is in, as an
 * ACTIVE project or region (with managed Kubernetes) of its own, so a client that walks the lists
 * finds every resource of the world.
 */
function worldPlaces(ctx: Ctx): { projects: ProjectRecord[]; regions: RegionRecord[] } {
  const projects = new Map(ctx.state.projects);
  const regions = new Map(ctx.state.regions);
  const names = new Set([...regions.values()].map((r) => r.display_name));
  const places = [...ctx.state.floatingIps.values(), ...ctx.state.instances.values(), ...ctx.state.k8sClusters.values()];
  for (const place of places) {
    if (!projects.has(place.project_id)) {
      projects.set(place.project_id, {
        id: place.project_id,
        client_id: ctx.state.defaults.client_id,
        name: `project-${place.project_id}`,
        description: null,
        is_default: false,
        state: 'ACTIVE',
        created_at: fixtureDate(undefined),
        deleted_at: null,
      });
    }
    if (!regions.has(place.region_id)) {
      const named = 'region' in place && !names.has(place.region) ? place.region : `Region ${place.region_id}`;
      names.add(named);
      regions.set(place.region_id, {
        id: place.region_id,
        display_name: named,
        keystone_name: `ED-${place.region_id}`,
        slug: named.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        country: 'LU',
        zone: 'EMEA',
        state: 'ACTIVE',
        access_level: 'core',
        has_k8s: true,
        created_at: fixtureDate(undefined),
      });
    }
  }
  return { projects: [...projects.values()], regions: [...regions.values()] };
}

/** The states of a region (RegionState). */
export const REGION_STATES = ['ACTIVE', 'DELETED', 'DELETING', 'DELETION_FAILED', 'INACTIVE', 'MAINTENANCE', 'NEW'] as const;

/** The zones of a region (Zone). */
export const ZONES = ['AMERICAS', 'APAC', 'EMEA', 'RUSSIA_AND_CIS'] as const;

const PROJECT_ORDER = ['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc'] as const;
const REGION_ORDER = ['created_at.asc', 'created_at.desc', 'display_name.asc', 'display_name.desc'] as const;

/** A comparator by `field.direction`, ties by id, so pages are stable. */
function orderBy<R extends { id: number }>(order: string, key: (r: R, field: string) => string | number): (a: R, b: R) => number {
  const [field, direction] = order.split('.') as [string, 'asc' | 'desc'];
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) => {
    const ka = key(a, field);
    const kb = key(b, field);
    return (ka < kb ? -1 : ka > kb ? 1 : 0) * sign || a.id - b.id;
  };
}

function renderProject(p: ProjectRecord): Record<string, unknown> {
  return {
    id: p.id,
    client_id: p.client_id,
    name: p.name,
    description: p.description,
    is_default: p.is_default,
    state: p.state,
    created_at: formatNaiveDate(p.created_at),
    deleted_at: p.deleted_at === null ? null : formatNaiveDate(p.deleted_at),
    task_id: null,
  };
}

function renderRegion(r: RegionRecord, showVolumeTypes: boolean): Record<string, unknown> {
  const created = formatNaiveDate(r.created_at);
  return {
    id: r.id,
    display_name: r.display_name,
    keystone_name: r.keystone_name,
    slug: r.slug,
    state: r.state,
    country: r.country,
    zone: r.zone,
    task_id: null,
    endpoint_type: 'public',
    external_network_id: null,
    created_on: created,
    created_at: created,
    keystone_id: r.id,
    has_kvm: true,
    has_baremetal: false,
    has_basic_vm: true,
    has_sfs: false,
    has_dbaas: false,
    has_ddos: false,
    vlan_physical_network: 'physnet1',
    available_volume_types: showVolumeTypes ? ['standard', 'ssd_hiiops', 'cold'] : null,
    metrics_database_id: null,
    access_level: r.access_level,
    has_k8s: r.has_k8s,
    has_ai: false,
    has_ai_gpu: false,
    coordinates: null,
    file_share_types: null,
  };
}

/**
 * GET the account's projects (ListProjectsSerializer; every project of the world: worldPlaces),
 * `limit`/`offset` paged (default 100, up to 1,000), newest first unless `order_by` says
 * otherwise; `name` filters by exact name; deleted projects only with `include_deleted=true`.
 */
const projects = defineCollection<Needs, ProjectRecord, undefined, { includeDeleted: boolean; name: string | null; order: (a: ProjectRecord, b: ProjectRecord) => number }>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/projects',
  noun: 'Project',
  store: (ctx) => worldPlaces(ctx).projects,
  idOf: (p) => p.id,
  list: {
    paging: cloudPages(1000, 100),
    query: (ctx) => ({
      includeDeleted: booleanQuery(ctx, 'include_deleted') ?? false,
      order: orderBy(enumQuery(ctx, 'order_by', PROJECT_ORDER) ?? 'created_at.desc', (p: ProjectRecord, field) => (field === 'name' ? p.name : p.created_at)),
      name: ctx.query.get('name'),
    }),
    where: (p, q) => (q.includeDeleted || p.deleted_at === null) && (q.name === null || p.name === q.name),
    order: (a, b, q) => q.order(a, b),
    render: renderProject,
  },
});

/**
 * GET the regions (RegionCollectionSerializer; every region of the world: worldPlaces),
 * `limit`/`offset` paged (default 100, up to 1,000), newest first unless `order_by` says
 * otherwise; `display_name` filters by exact name in any case; `product` is checked and filters
 * nothing (no region of the emulator offers one).
 */
const regions = defineCollection<
  Needs,
  RegionRecord,
  undefined,
  { showVolumeTypes: boolean; product: string | undefined; displayName: string | undefined; order: (a: RegionRecord, b: RegionRecord) => number }
>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/regions',
  noun: 'Region',
  store: (ctx) => worldPlaces(ctx).regions,
  idOf: (r) => r.id,
  list: {
    paging: cloudPages(1000, 100),
    query: (ctx) => ({
      showVolumeTypes: booleanQuery(ctx, 'show_volume_types') ?? false,
      order: orderBy(enumQuery(ctx, 'order_by', REGION_ORDER) ?? 'created_at.desc', (r: RegionRecord, field) => (field === 'display_name' ? r.display_name : r.created_at)),
      product: enumQuery(ctx, 'product', ['containers', 'inference']),
      displayName: ctx.query.get('display_name')?.toLowerCase(),
    }),
    where: (r, q) => q.product === undefined && (q.displayName === undefined || r.display_name.toLowerCase() === q.displayName),
    order: (a, b, q) => q.order(a, b),
    render: (r, _ctx, q) => renderRegion(r, q.showVolumeTypes),
  },
});

/**
 * The limit the emulator gives a quota no fixture sets: far above what a test or the benchmark
 * creates (1,000 floating IPs in one apply), so only a limit set on purpose refuses a plan.
 */
const DEFAULT_QUOTA_LIMIT = 1_000_000;

/** A quota's `_limit` and `_usage` fields for the usage counted: the limit set (BillingSlice.quotaLimits), else the default or the usage when that is higher. */
function quota(limitKey: string, usage: number, limits: Readonly<Record<string, number>> | undefined): Array<[string, number]> {
  const name = limitKey.slice(0, -'_limit'.length);
  return [
    [limitKey, limits?.[limitKey] ?? Math.max(DEFAULT_QUOTA_LIMIT, usage)],
    [`${name}_usage`, usage],
  ];
}

/** The account's quotas in the AllClientQuotasSerializer shape (see clientQuotas). */
export interface AccountQuotas {
  global_quotas: Record<string, number>;
  regional_quotas: Array<Record<string, number> & { region_id: number }>;
}

/**
 * The account's quotas: the global ones (SSH keys and projects counted) and, per region of the
 * world or holding a cloud resource, the regional ones with the usage of the kinds the emulator
 * holds: floating IPs, instances (dedicated VMs, their vCPUs and RAM in MiB), Kubernetes clusters,
 * networks, subnets, security groups (firewalls) and volumes (count and GiB); every other usage 0.
 * Limits are those set by the `quota_limits` fixture, else 100 (or the usage when higher).
 */
export function accountQuotas(ctx: RouteContext<Needs>): AccountQuotas {
  const usage = new Map<number, Map<string, number>>();
  const add = (regionId: number, key: string, n = 1) => {
    let counts = usage.get(regionId);
    if (!counts) usage.set(regionId, (counts = new Map()));
    counts.set(key, (counts.get(key) ?? 0) + n);
  };
  for (const region of worldPlaces(ctx).regions) usage.set(region.id, new Map());
  for (const region of ctx.state.quotaLimits.regional.keys()) if (!usage.has(region)) usage.set(region, new Map());
  const counted: Array<[string, Iterable<{ region_id: number }>]> = [
    ['floating_count', ctx.state.floatingIps.values()],
    ['vm_count', ctx.state.instances.values()],
    ['cluster_count', ctx.state.k8sClusters.values()],
    ['network_count', ctx.state.networks.values()],
    ['subnet_count', ctx.state.subnets.values()],
    ['firewall_count', ctx.state.securityGroups.values()],
    ['volume_count', ctx.state.volumes.values()],
    ['loadbalancer_count', ctx.state.loadBalancers.values()],
    ['secret_count', ctx.state.secrets.values()],
  ];
  for (const [name, items] of counted) for (const item of items) add(item.region_id, `${name}_usage`);
  for (const volume of ctx.state.volumes.values()) add(volume.region_id, 'volume_size_usage', volume.size);
  // An external IP: each instance port on the external network, each balancer whose VIP is on it.
  for (const instance of ctx.state.instances.values()) add(instance.region_id, 'external_ip_count_usage', instance.ports.filter((p) => p.type === 'external').length);
  for (const lb of ctx.state.loadBalancers.values()) if (hasExternalVip(lb)) add(lb.region_id, 'external_ip_count_usage');
  for (const instance of ctx.state.instances.values()) {
    const flavor = flavorSize(ctx.state, instance.flavor_id);
    add(instance.region_id, 'cpu_count_usage', flavor.vcpus);
    add(instance.region_id, 'ram_usage', flavor.ram);
  }
  const regional = [...usage]
    .sort(([a], [b]) => a - b)
    .map(([regionId, counts]) => ({
      region_id: regionId,
      ...Object.fromEntries(
        [...REGIONAL_LIMIT_KEYS]
          .filter((k) => k !== 'region_id')
          .flatMap((k) => quota(k, counts.get(`${k.slice(0, -'_limit'.length)}_usage`) ?? 0, ctx.state.quotaLimits.regional.get(regionId))),
      ),
    }));
  const projectCount = worldPlaces(ctx).projects.filter((p) => p.deleted_at === null).length;
  const globalUsage: Record<string, number> = { keypair_count_usage: ctx.state.sshKeys.size, project_count_usage: projectCount };
  const global = Object.fromEntries([...GLOBAL_LIMIT_KEYS].flatMap((k) => quota(k, globalUsage[`${k.slice(0, -'_limit'.length)}_usage`] ?? 0, ctx.state.quotaLimits.global)));
  return { global_quotas: global, regional_quotas: regional };
}

/**
 * GET /cloud/v2/client_quotas (AllClientQuotasSerializer): the account's quotas (accountQuotas).
 * `edgeform import` reads the usage to leave out the lists of kinds a region holds none of;
 * plan's quota check compares the limits less the usage with what a plan creates.
 */
function clientQuotas(ctx: Ctx): ReturnType<typeof jsonReply> {
  return jsonReply(200, accountQuotas(ctx));
}

/** The project and region lists, and the client quotas. */
export const projectRoutes: ServiceRoute<Needs>[] = [...projects.routes, ...regions.routes, { method: 'GET', pattern: '/cloud/v2/client_quotas', handler: clientQuotas }];
