import { apiPath } from '../api/path.js';
import { EdgeformError } from '../errors.js';
import { describeStep, nextUpgradeStep, planUpgradePath } from '../plan/upgrade-path.js';
import type { ProviderContext, ResourceProvider } from './provider.js';
import { readOrGone, startTasks } from './shared.js';

interface Cluster {
  name: string;
  version: string;
  status: string;
  task_id?: string | null;
}

interface VersionCollection {
  results: { version: string }[];
}

const clusterPath = (p: number, r: number, name: string) => apiPath`/cloud/v2/k8s/clusters/${p}/${r}/${name}`;

async function readCluster(ctx: ProviderContext, p: number, r: number, name: string): Promise<Cluster> {
  return (await ctx.api.request<Cluster>({ method: 'GET', path: clusterPath(p, r, name), signal: ctx.signal })).body;
}

async function readUpgradeVersions(ctx: ProviderContext, p: number, r: number, name: string): Promise<string[]> {
  const body = (await ctx.api.request<VersionCollection>({ method: 'GET', path: `${clusterPath(p, r, name)}/upgrade_versions`, signal: ctx.signal })).body;
  return body.results.map((v) => v.version);
}

/**
 * Managed Kubernetes clusters (v2 API, addressed by name): edgeform manages the version.
 * The platform upgrades one minor version at a time and offers the allowed next versions in
 * `upgrade_versions`, so a jump of several minors is planned as a path and applied step by
 * step, asking the platform for the next version before each step. Downgrades are refused.
 */
export const cloudK8sCluster: ResourceProvider<'cloud_k8s_cluster'> = {
  kind: 'resource',
  type: 'cloud_k8s_cluster',
  idField: 'cluster_name',
  verbs: { update: ['Upgrading', 'Upgraded'], delete: ['Destroying', 'Destroyed'] },

  async read(ctx, desired) {
    const { project_id: p, region_id: r, cluster_name: name } = desired;
    const cluster = await readOrGone(() => readCluster(ctx, p, r, name));
    if (!cluster) return { exists: false };
    const state: Record<string, unknown> = { cluster_name: cluster.name, version: cluster.version, status: cluster.status };
    if (cluster.version !== desired.version) state.upgrade_versions = await readUpgradeVersions(ctx, p, r, name);
    return { exists: true, state, lockTaskId: cluster.task_id ?? null };
  },

  summarize: (state) => ({ cluster_name: state.cluster_name, version: state.version }),

  plan(desired, state) {
    const before = { cluster_name: state.cluster_name, version: state.version };
    const after = { cluster_name: state.cluster_name, version: desired.version };
    const path = planUpgradePath(String(state.version), desired.version, (state.upgrade_versions as string[] | undefined) ?? []);
    if (path.kind === 'none') return { action: 'no-op', before, after: before, changes: [], errors: [], warnings: [], notes: [] };
    if (path.kind === 'error') return { action: 'no-op', before, after, changes: [], errors: [{ field: 'version', summary: path.message }], warnings: [], notes: [] };
    const steps = path.steps.map(describeStep);
    return {
      action: 'update',
      before,
      after,
      changes: [{ path: ['version'], op: 'update', before: state.version, after: desired.version }],
      payload: { upgrade_path: steps },
      errors: [],
      warnings: [],
      notes: [
        steps.length === 1
          ? `upgrade: ${String(state.version)} -> ${steps[0]}`
          : `upgrade path: ${[String(state.version), ...steps].join(' -> ')} (${steps.length} steps; the platform upgrades one minor version at a time and offers each next version when the previous step is done)`,
      ],
    };
  },

  async apply(ctx, change) {
    const d = change.desired as { project_id: number; region_id: number; cluster_name: string; version: string };
    const path = clusterPath(d.project_id, d.region_id, d.cluster_name);
    const maxSteps = ((change.payload?.upgrade_path as string[] | undefined)?.length ?? 1) + 1;
    for (let step = 1; step <= maxSteps; step++) {
      const cluster = await readCluster(ctx, d.project_id, d.region_id, d.cluster_name);
      if (cluster.version === d.version) return;
      if (step > 1 && ctx.stopping?.aborted) {
        throw new EdgeformError('EDGEFORM_STOPPED', `stopped at ${cluster.version} on the way to ${d.version} because of the interrupt; no further upgrade step was started. Run apply again to continue.`);
      }
      const next = nextUpgradeStep(cluster.version, d.version, await readUpgradeVersions(ctx, d.project_id, d.region_id, d.cluster_name));
      if (next.kind === 'error') throw new EdgeformError('EDGEFORM_UPGRADE_PATH', `cannot continue the upgrade of ${d.cluster_name}: ${next.message}`);
      ctx.progress(`upgrading ${cluster.version} -> ${next.version}`);
      await startTasks(
        ctx,
        async () => (await ctx.api.request<{ tasks: string[] }>({ method: 'POST', path: `${path}/upgrade`, body: { version: next.version }, retry: 'never-reached-only', signal: ctx.signal })).body,
        async () => {
          const now = await readCluster(ctx, d.project_id, d.region_id, d.cluster_name);
          if (now.task_id) return { kind: 'running', taskId: now.task_id };
          return now.version === next.version ? { kind: 'done' } : { kind: 'not-started' };
        },
        'upgrade_k8s_cluster_v2',
      );
    }
    throw new EdgeformError('EDGEFORM_UPGRADE_PATH', `the upgrade of ${d.cluster_name} did not reach ${d.version} after ${maxSteps} steps`);
  },
};
