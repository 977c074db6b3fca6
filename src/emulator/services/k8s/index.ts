import { z } from 'zod';
import { CLOUD_PRODUCT } from '../../cloud-common.js';
import { datetime, fixtureDate, int, listSection, nextTaskError, positiveInt, stableUuid, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import type { TaskTarget } from '../../tasks.js';
import { clusterKey } from './cluster-key.js';
import { k8sRoutes } from './routes.js';

/** A node pool of a Kubernetes cluster, in API shape. */
export interface K8sPoolRecord {
  id: string;
  name: string;
  flavor_id: string;
  node_count: number;
  min_node_count: number;
  max_node_count: number;
  status: string;
  boot_volume_size: number;
  boot_volume_type: string;
  auto_healing_enabled: boolean;
  is_public_ipv4: boolean;
  labels: Record<string, string>;
  taints: Record<string, string>;
  /** Security groups of the pool's nodes (the vendor's current SDK models require the field). */
  security_group_ids: string[];
  created_at: number;
}

/** A Kubernetes cluster (v2, addressed by name) as held in memory. */
export interface K8sClusterRecord {
  id: string;
  name: string;
  project_id: number;
  region_id: number;
  version: string;
  status: 'Provisioned' | 'Provisioning' | 'Deleting';
  task_id: string | null;
  creator_task_id: string | null;
  keypair: string;
  is_public: boolean;
  pools: K8sPoolRecord[];
  created_at: number;
  next_task_error: string | null;
}

/** The Kubernetes service's slice of the state. */
export interface K8sSlice {
  /** Keyed by `project_id/region_id/name` (see clusterKey). */
  readonly k8sClusters: Map<string, K8sClusterRecord>;
  /** The version catalogue upgrade_versions picks from. */
  k8sVersions: string[];
}

/** What upgrade_k8s_cluster_v2 does when it finishes. */
export type UpgradeEffect = { type: 'upgrade_k8s_cluster_v2'; version: string; previous_status: K8sClusterRecord['status'] };

const version = z.string().regex(/^v?\d+\.\d+\.\d+$/, 'must be a version like v1.29.8');

const poolFixture = z.strictObject({
  id: uuid.optional(),
  name: z.string().min(1),
  flavor_id: z.string().min(1),
  node_count: int.min(0).default(1),
  min_node_count: int.min(0).optional(),
  max_node_count: int.min(0).optional(),
  status: z.string().default('Running'),
  boot_volume_size: positiveInt.default(50),
  boot_volume_type: z.string().default('standard'),
  auto_healing_enabled: z.boolean().default(true),
  is_public_ipv4: z.boolean().default(false),
  labels: z.record(z.string(), z.string()).default({}),
  taints: z.record(z.string(), z.string()).default({}),
  security_group_ids: z.array(uuid).optional(),
});

const clusterFixture = z.strictObject({
  name: z.string().min(1),
  id: uuid.optional(),
  project_id: int.optional(),
  region_id: int.optional(),
  version,
  status: z.enum(['Provisioned', 'Provisioning', 'Deleting']).default('Provisioned'),
  keypair: z.string().default('default'),
  is_public: z.boolean().default(true),
  pools: z.array(poolFixture).optional(),
  created_at: datetime.optional(),
  creator_task_id: uuid.nullable().default(null),
  next_task_error: nextTaskError,
});

const upgradeTasks: TaskTarget<'k8s_cluster', K8sClusterRecord, UpgradeEffect, K8sSlice> = {
  kind: 'k8s_cluster',
  // Tasks name a cluster by its key; next-task-error by its name too.
  find: (state, id) => state.k8sClusters.get(id) ?? [...state.k8sClusters.values()].find((c) => c.name === id),
  begin(cluster) {
    cluster.status = 'Provisioning';
  },
  finish(state, cluster, task, ok) {
    const { effect } = task;
    cluster.status = effect.previous_status === 'Provisioning' ? 'Provisioned' : effect.previous_status;
    if (!ok) return;
    cluster.version = effect.version;
    state.recordMutation(task.finish_at, 'k8s_cluster', task.resource_id, task.task_type, { version: cluster.version }, task.id);
  },
};

/**
 * Kubernetes clusters (v2, by name): list, GET, upgrade_versions (only the newest patch of the
 * next minor of the catalogue), POST upgrade (task upgrade_k8s_cluster_v2: status Provisioning
 * while it runs). Fixtures: `k8s_versions` (the catalogue) and `k8s_clusters`.
 */
export const k8sService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { k8s_versions: listSection(version), k8s_clusters: listSection(clusterFixture) },
  fixtureIds: { k8s_clusters: (x, world) => clusterKey(x.project_id ?? world.project_id, x.region_id ?? world.region_id, x.name) },
  createState: (): K8sSlice => ({ k8sClusters: new Map(), k8sVersions: [] }),
  load(slice, { k8s_versions, k8s_clusters }, world) {
    slice.k8sClusters.clear();
    slice.k8sVersions = [...k8s_versions];
    for (const x of k8s_clusters) {
      const projectId = x.project_id ?? world.project_id;
      const regionId = x.region_id ?? world.region_id;
      const createdAt = fixtureDate(x.created_at);
      const pools = x.pools ?? [
        {
          name: `${x.name}-pool-1`,
          flavor_id: 'g1-standard-2-4',
          node_count: 2,
          status: 'Running',
          boot_volume_size: 50,
          boot_volume_type: 'standard',
          auto_healing_enabled: true,
          is_public_ipv4: false,
          labels: {},
          taints: {},
        },
      ];
      slice.k8sClusters.set(clusterKey(projectId, regionId, x.name), {
        id: x.id ?? stableUuid(`k8s/${projectId}/${regionId}/${x.name}`),
        name: x.name,
        project_id: projectId,
        region_id: regionId,
        version: x.version.startsWith('v') ? x.version : `v${x.version}`,
        status: x.status,
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/k8s/${projectId}/${regionId}/${x.name}`),
        keypair: x.keypair,
        is_public: x.is_public,
        pools: pools.map((p) => ({
          id: ('id' in p && p.id) || stableUuid(`k8s-pool/${projectId}/${regionId}/${x.name}/${p.name}`),
          name: p.name,
          flavor_id: p.flavor_id,
          node_count: p.node_count,
          min_node_count: ('min_node_count' in p ? p.min_node_count : undefined) ?? p.node_count,
          max_node_count: ('max_node_count' in p ? p.max_node_count : undefined) ?? Math.max(p.node_count, 1),
          status: p.status,
          boot_volume_size: p.boot_volume_size,
          boot_volume_type: p.boot_volume_type,
          auto_healing_enabled: p.auto_healing_enabled,
          is_public_ipv4: p.is_public_ipv4,
          labels: { ...p.labels },
          taints: { ...p.taints },
          security_group_ids: ('security_group_ids' in p ? p.security_group_ids : undefined) ?? [stableUuid(`k8s-sg/${projectId}/${regionId}/${x.name}`)],
          created_at: createdAt,
        })),
        created_at: createdAt,
        next_task_error: x.next_task_error,
      });
    }
  },
  dump: (state) => ({ k8s_clusters: [...state.k8sClusters.values()], k8s_versions: state.k8sVersions }),
  routes: k8sRoutes,
  mutationKinds: ['k8s_cluster'],
  taskTargets: [upgradeTasks],
});
