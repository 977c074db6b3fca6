import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensurePresentOnly, nonEmptyString, projectId, regionId } from '../fields.js';

/** Kubernetes versions as the platform spells them: a leading "v", then major.minor.patch. */
const k8sVersion = z
  .string()
  .regex(/^v\d+\.\d+\.\d+$/, { error: 'must be a Kubernetes version like v1.31.3 (with the leading "v", as the platform spells it)' })
  .describe('Desired Kubernetes version, e.g. v1.31.3; a newer version is reached one minor at a time.');

/** cloud_k8s_cluster: adopts an existing cluster by name and upgrades it to `version`. */
export const cloudK8sClusterKind = defineKind({
  type: 'cloud_k8s_cluster',
  kind: 'resource',
  description: 'An existing managed Kubernetes cluster, adopted by name; edgeform upgrades it to version.',
  identity: ['cluster_name'],
  terraform: { resource: 'gcore_k8sv2', fields: { project_name: 'project_id', region_name: 'region_id', name: 'cluster_name' } },
  readable: {
    id: { type: 'string', description: 'The cluster name (a cluster is named, not numbered, in the API).', read: (s) => s.cluster_name },
    version: { type: 'string', description: 'The Kubernetes version the cluster runs.', read: (s) => s.version },
    status: { type: 'string', description: 'The cluster status (e.g. Provisioned).', read: (s) => s.status },
  },
  shape: () =>
    z.strictObject({
      project_id: projectId,
      region_id: regionId,
      cluster_name: nonEmptyString.describe('The cluster name.'),
      version: k8sVersion,
      ensure: ensurePresentOnly('cloud_k8s_cluster'),
    }),
});
