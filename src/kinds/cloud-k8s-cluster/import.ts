import { defineImport } from '../kind-list.js';
import { clusterList } from './list.js';

/** Importing Kubernetes clusters: those of a project and region, each by its name (the cluster's platform identity), with its version. */
export const clusterImport = defineImport('cloud_k8s_cluster', {
  scope: 'cloud',
  quotaUsage: ['cluster_count_usage'],
  list: clusterList,
  itemId: (cluster) => cluster.name,
  attributes: (cluster, s) => ({ project_id: s.project_id, region_id: s.region_id, cluster_name: cluster.name, version: cluster.version }),
  blockName: (cluster) => cluster.name,
  facts: (cluster) => [['version', cluster.version]],
  // Only regions with managed Kubernetes list clusters.
  servedIn: (region) => region.has_k8s !== false,
});
