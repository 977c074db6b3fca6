import semver from 'semver';
import { CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPlacement, cloudUnpaged, placedIn, type CloudScope } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { formatOffsetDate } from '../../format.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import { clusterKey } from './cluster-key.js';
import type { K8sClusterRecord, K8sSlice, UpgradeEffect } from './index.js';

type Ctx = RouteContext<K8sSlice>;

const ONE = '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}';

/**
 * Versions a cluster may be upgraded to: only the newest patch of the next minor version in
 * the catalogue (one minor at a time); empty when the cluster is at the newest minor.
 */
export function upgradeVersions(catalogue: readonly string[], current: string): string[] {
  const cur = semver.parse(current, { loose: true });
  if (!cur) return [];
  let best: { text: string; version: semver.SemVer } | undefined;
  for (const text of catalogue) {
    const v = semver.parse(text, { loose: true });
    if (!v || v.major !== cur.major || v.minor !== cur.minor + 1 || v.prerelease.length > 0) continue;
    if (!best || semver.gt(v, best.version)) best = { text: text.startsWith('v') ? text : `v${text}`, version: v };
  }
  return best ? [best.text] : [];
}

/** A cluster in the K8sClusterV2Serializer shape. */
export function renderCluster(c: K8sClusterRecord): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    version: c.version,
    status: c.status,
    task_id: c.task_id,
    creator_task_id: c.creator_task_id,
    created_at: formatOffsetDate(c.created_at),
    keypair: c.keypair,
    is_public: c.is_public,
    is_ipv6: false,
    pools: c.pools.map((p) => ({
      ...p,
      created_at: formatOffsetDate(p.created_at),
      labels: { ...p.labels },
      taints: { ...p.taints },
      security_group_ids: [...p.security_group_ids],
      crio_config: {},
      kubelet_config: {},
      servergroup_id: '',
      servergroup_name: '',
      servergroup_policy: '',
    })),
    add_ons: { slurm: { enabled: false, file_share_id: null, ssh_key_ids: null, worker_count: null } },
    csi: { nfs: { vast_enabled: false } },
    logging: null,
    authentication: null,
    autoscaler_config: null,
    cni: null,
    ddos_profile: null,
    fixed_network: null,
    fixed_subnet: null,
    pods_ip_pool: '172.16.0.0/18',
    services_ip_pool: '172.24.0.0/18',
    pods_ipv6_pool: null,
    services_ipv6_pool: null,
  };
}

/**
 * Kubernetes clusters (v2, addressed by name): the list (`{count, results}`, unpaged), GET one,
 * and POST upgrade (task upgrade_k8s_cluster_v2) to a version upgrade_versions offers.
 */
export const k8sClusters = defineCollection<K8sSlice, K8sClusterRecord, CloudScope>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v2/k8s/clusters/{project_id}/{region_id}',
  idParam: 'cluster_name',
  noun: 'Cluster',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.k8sClusters,
  key: (name, { projectId, regionId }) => clusterKey(projectId, regionId, name),
  inScope: placedIn,
  idOf: (cluster) => cluster.name,
  tasks: { kind: 'k8s_cluster', resourceId: (c) => clusterKey(c.project_id, c.region_id, c.name) },
  list: { paging: cloudUnpaged, render: renderCluster },
  get: renderCluster,
  updates: [
    {
      method: 'POST',
      path: `${ONE}/upgrade`,
      task(ctx, cluster, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const version = body.version;
        if (version === undefined) fail(cloudError(400, 'version: Field required', ctx.requestId));
        if (typeof version !== 'string' || version === '') fail(cloudError(400, 'version: Input should be a valid string', ctx.requestId));
        checkLock();
        const offered = upgradeVersions(ctx.state.k8sVersions, cluster.version);
        if (!offered.includes(version)) {
          const hint = offered.length > 0 ? `available: ${offered.join(', ')}` : 'no upgrade is available';
          fail(cloudError(400, `Cluster ${cluster.name} (${cluster.version}) cannot be upgraded to ${version}; ${hint}`, ctx.requestId));
        }
        const effect: UpgradeEffect = { type: 'upgrade_k8s_cluster_v2', version, previous_status: cluster.status };
        return { type: 'upgrade_k8s_cluster_v2', effect, data: { version } };
      },
    },
  ],
});

function getUpgradeVersions(ctx: Ctx): Reply {
  const cluster = k8sClusters.find(ctx);
  const results = upgradeVersions(ctx.state.k8sVersions, cluster.version).map((version) => ({ version }));
  return jsonReply(200, { count: results.length, results });
}

/** The Kubernetes cluster v2 routes: the collection's, and GET upgrade_versions. */
export const k8sRoutes: ServiceRoute<K8sSlice>[] = [...k8sClusters.routes, { method: 'GET', pattern: `${ONE}/upgrade_versions`, handler: getUpgradeVersions }];
