import semver from 'semver';
import { cloudError, cloudObjectBody, cloudPlacement, lockedConflict, startRequestTask } from '../../cloud-common.js';
import { formatOffsetDate } from '../../format.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import { clusterKey } from './cluster-key.js';
import type { K8sClusterRecord, K8sSlice, UpgradeEffect } from './index.js';

type Ctx = RouteContext<K8sSlice>;

const LIST = '/cloud/v2/k8s/clusters/{project_id}/{region_id}';
const ONE = `${LIST}/{cluster_name}`;

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

function findCluster(ctx: Ctx): K8sClusterRecord {
  const { projectId, regionId } = cloudPlacement(ctx);
  const name = ctx.params.cluster_name ?? '';
  const cluster = ctx.state.k8sClusters.get(clusterKey(projectId, regionId, name));
  if (!cluster) fail(cloudError(404, `Cluster ${name} not found`, ctx.requestId));
  return cluster;
}

function listClusters(ctx: Ctx): Reply {
  const { projectId, regionId } = cloudPlacement(ctx);
  const results: Record<string, unknown>[] = [];
  for (const c of ctx.state.k8sClusters.values()) {
    if (c.project_id === projectId && c.region_id === regionId) results.push(renderCluster(c));
  }
  return jsonReply(200, { count: results.length, results });
}

function getCluster(ctx: Ctx): Reply {
  return jsonReply(200, renderCluster(findCluster(ctx)));
}

function getUpgradeVersions(ctx: Ctx): Reply {
  const cluster = findCluster(ctx);
  const results = upgradeVersions(ctx.state.k8sVersions, cluster.version).map((version) => ({ version }));
  return jsonReply(200, { count: results.length, results });
}

function upgradeCluster(ctx: Ctx): Reply {
  const cluster = findCluster(ctx);
  const body = cloudObjectBody(ctx);
  const version = body.version;
  if (version === undefined) fail(cloudError(400, 'version: Field required', ctx.requestId));
  if (typeof version !== 'string' || version === '') fail(cloudError(400, 'version: Input should be a valid string', ctx.requestId));
  if (cluster.task_id) lockedConflict(ctx, `Cluster ${cluster.name}`, cluster.task_id);
  const offered = upgradeVersions(ctx.state.k8sVersions, cluster.version);
  if (!offered.includes(version)) {
    const hint = offered.length > 0 ? `available: ${offered.join(', ')}` : 'no upgrade is available';
    fail(cloudError(400, `Cluster ${cluster.name} (${cluster.version}) cannot be upgraded to ${version}; ${hint}`, ctx.requestId));
  }
  const task = startRequestTask(ctx, {
    taskType: 'upgrade_k8s_cluster_v2',
    kind: 'k8s_cluster',
    resourceId: clusterKey(cluster.project_id, cluster.region_id, cluster.name),
    projectId: cluster.project_id,
    regionId: cluster.region_id,
    effect: { type: 'upgrade_k8s_cluster_v2', version, previous_status: cluster.status } satisfies UpgradeEffect,
    data: { version },
    requestId: ctx.requestId,
  });
  return jsonReply(200, { tasks: [task.id] });
}

/** The Kubernetes cluster v2 routes: list, GET by name, upgrade_versions, upgrade (task upgrade_k8s_cluster_v2). */
export const k8sRoutes: ServiceRoute<K8sSlice>[] = [
  { method: 'GET', pattern: LIST, handler: listClusters },
  { method: 'GET', pattern: ONE, handler: getCluster },
  { method: 'GET', pattern: `${ONE}/upgrade_versions`, handler: getUpgradeVersions },
  { method: 'POST', pattern: `${ONE}/upgrade`, handler: upgradeCluster },
];
