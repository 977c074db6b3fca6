import { CLOUD_PRODUCT, booleanQuery, cloudPages, enumQuery } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { formatNaiveDate } from '../../format.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { FloatingIpSlice } from '../floating-ips/index.js';
import type { InstanceSlice } from '../instances/index.js';
import type { K8sSlice } from '../k8s/index.js';
import { fixtureDate } from '../../fixture-parts.js';
import type { ProjectRecord, ProjectSlice, RegionRecord } from './index.js';

/** What the project and region lists read: their own slice, and the cloud resources whose places they list too. */
type Needs = ProjectSlice & FloatingIpSlice & InstanceSlice & K8sSlice;
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

/** The project and region lists. */
export const projectRoutes: ServiceRoute<Needs>[] = [...projects.routes, ...regions.routes];
