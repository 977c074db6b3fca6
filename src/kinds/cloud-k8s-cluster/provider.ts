import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { canonicalJson } from '../../model/fingerprint.js';
import { KNOWN_AFTER_APPLY } from '../../plan/types.js';
import { EdgeformError, InconsistentResultError, StoppedError } from '../../errors.js';
import { describeStep, nextUpgradeStep, parseK8sVersion, planUpgradePath } from './upgrade-path.js';
import type { ApplyResult, ProviderContext, ResourceProvider } from '../provider.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import { listEndpointOf } from '../kind-list.js';
import { clusterImport } from './import.js';
import { clusterAnswer, clusterList, type Cluster } from './list.js';
import { readOrGone } from '../shared.js';

/** The versions a cluster may be upgraded to next (K8sClusterVersionV2CollectionSerializer). */
const versionsAnswer = z.looseObject({ results: z.array(z.looseObject({ version: z.string() })) });

/** The update's payload: the planned path of versions, one minor version a step. */
const payloadSchema = z.object({ upgrade_path: z.array(z.string()).min(1) });

const clusterPath = (p: number, r: number, name: string) => apiPath`/cloud/v2/k8s/clusters/${p}/${r}/${name}`;

async function readCluster(ctx: ProviderContext, p: number, r: number, name: string): Promise<Cluster> {
  return (await ctx.api.get(clusterPath(p, r, name), { schema: clusterAnswer, signal: ctx.signal })).body;
}

async function readUpgradeVersions(ctx: ProviderContext, p: number, r: number, name: string): Promise<string[]> {
  const body = (await ctx.api.get(`${clusterPath(p, r, name)}/upgrade_versions`, { schema: versionsAnswer, signal: ctx.signal })).body;
  return body.results.map((v) => v.version);
}

/** Reads one cluster (GET) or the clusters of a project and region (the list, which does not page), with one projection. */
const reads = defineListReads<'cloud_k8s_cluster', Cluster>({
  readOne: (ctx, d) => readOrGone(() => readCluster(ctx, d.project_id, d.region_id, d.cluster_name)),
  async project(ctx, desired, cluster) {
    const state: Record<string, unknown> = { cluster_name: cluster.name, version: cluster.version, status: cluster.status };
    if (cluster.version !== desired.version) state.upgrade_versions = await readUpgradeVersions(ctx, desired.project_id, desired.region_id, desired.cluster_name);
    return { exists: true, state, lockTaskId: cluster.task_id ?? null };
  },
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.cluster_name,
    itemId: (cluster) => cluster.name,
    ...listEndpointOf(clusterList, ([d]) => d),
  },
});

/** How long a Kubernetes task may run (a rolling upgrade replaces every node): 60 minutes. */
export const K8S_TASK_TIMEOUT_MS = 60 * 60_000;

/** Reads of a cluster after a finished step before giving up on seeing the step's version. */
export const STEP_SETTLE_READS = 10;

/** The wait between those reads. */
export const STEP_SETTLE_DELAY_MS = 2_000;

/** What the upgrade loop does after reading the cluster. */
export type UpgradeProgress = { kind: 'done' } | { kind: 'await-previous'; version: string } | { kind: 'next-step' };

/**
 * Decides the upgrade loop's next move from the version the cluster reads (`live`), the stack's
 * `target`, and the version the last finished step upgraded to (`awaiting`, null before the
 * first step). While the cluster still reads older than that step, the read lags the finished
 * task: wait and read again rather than start the same step twice. Pure.
 */
export function decideUpgradeProgress(input: { live: string; target: string; awaiting: string | null }): UpgradeProgress {
  if (input.live === input.target) return { kind: 'done' };
  if (input.awaiting === null) return { kind: 'next-step' };
  const live = parseK8sVersion(input.live);
  const awaited = parseK8sVersion(input.awaiting);
  if (live && awaited && live.compare(awaited) < 0) return { kind: 'await-previous', version: input.awaiting };
  return { kind: 'next-step' };
}

/**
 * An upgrade, step by step along the planned path: each step's POST starts an
 * `upgrade_k8s_cluster_v2` task and is never sent twice (after an unknown outcome the cluster is
 * re-read). Clusters are not created or deleted by edgeform.
 */
const lifecycle = defineLifecycle('cloud_k8s_cluster', {
  updateVerbs: ['Upgrading', 'Upgraded'],
  tasks: { scope: cloudTaskScope, lock: (cluster: Cluster) => cluster.task_id, timeoutMs: K8S_TASK_TIMEOUT_MS },
  update: {
    payload: payloadSchema,
    taskType: 'upgrade_k8s_cluster_v2',
    async run(ctx, { desired: d, payload }, sendTasks) {
      const planned = payload.upgrade_path;
      const path = clusterPath(d.project_id, d.region_id, d.cluster_name);
      const maxSteps = planned.length + 1;
      let steps = 0;
      let awaiting: string | null = null;
      let lastStep: ApplyResult = undefined;
      let lagReads = 0;
      for (;;) {
        let cluster: Cluster;
        try {
          cluster = await readCluster(ctx, d.project_id, d.region_id, d.cluster_name);
        } catch (error) {
          // The last step finished (acknowledged): confirming it is the executor's re-read.
          if (awaiting === d.version && lastStep !== 'unacknowledged' && !ctx.signal.aborted) return;
          throw error;
        }
        const progress = decideUpgradeProgress({ live: cluster.version, target: d.version, awaiting });
        if (progress.kind === 'done') return;
        if (progress.kind === 'await-previous') {
          lagReads += 1;
          if (lagReads >= STEP_SETTLE_READS) {
            throw new InconsistentResultError(
              `inconsistent result after apply: the upgrade of ${d.cluster_name} to ${progress.version} finished, but the cluster still reads ${cluster.version} after ${lagReads} reads; no further step was started. Run apply again once the cluster shows ${progress.version}.`,
            );
          }
          await ctx.sleep(STEP_SETTLE_DELAY_MS);
          continue;
        }
        lagReads = 0;
        if (steps >= maxSteps) {
          throw new EdgeformError('EDGEFORM_UPGRADE_PATH', `the upgrade of ${d.cluster_name} did not reach ${d.version} after ${maxSteps} steps`);
        }
        if (steps > 0 && ctx.stopping?.aborted) {
          throw new StoppedError(
            `stopped at ${cluster.version} on the way to ${d.version} because of the interrupt; no further upgrade step was started. Run apply again to continue.`,
          );
        }
        const next = nextUpgradeStep(cluster.version, d.version, await readUpgradeVersions(ctx, d.project_id, d.region_id, d.cluster_name));
        if (next.kind === 'error') throw new EdgeformError('EDGEFORM_UPGRADE_PATH', `cannot continue the upgrade of ${d.cluster_name}: ${next.message}`);
        ctx.progress(`upgrading ${cluster.version} -> ${next.version}`);
        // The upgrade POST is never sent twice: after an unknown outcome the cluster is re-read.
        lastStep = await sendTasks(
          { method: 'POST', path: `${path}/upgrade`, body: { version: next.version } },
          { reread: () => readCluster(ctx, d.project_id, d.region_id, d.cluster_name), done: (now) => now?.version === next.version },
        );
        steps += 1;
        awaiting = next.version;
      }
    },
  },
});

/**
 * Managed Kubernetes clusters (v2 API, addressed by name): edgeform manages the version.
 * The platform upgrades one minor version at a time and offers the allowed next versions in
 * `upgrade_versions`, so a jump of several minors is planned as a path and applied step by
 * step, asking the platform for the next version before each step. Downgrades are refused.
 * After a step's task finished, the cluster may read its old version for a while; the next
 * step starts only once the finished one shows. Once the last step's task finished, the
 * platform has acknowledged the change: a read failing after that is left to the executor's
 * confirmation (a warning), not a failure of the upgrade. The clusters of one project and
 * region are read together from the list, which holds them all in one answer.
 */
export const cloudK8sCluster: ResourceProvider<'cloud_k8s_cluster'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_k8s_cluster',

  read: reads.read,
  groupRead: reads.groupRead,
  import: clusterImport,

  summarize: (state) => ({ cluster_name: state.cluster_name, version: state.version }),

  plan(desired, state) {
    const before = { cluster_name: state.cluster_name, version: state.version };
    const after = { cluster_name: state.cluster_name, version: desired.version };
    // A version known only after apply (a reference): the upgrade is planned again once it is known.
    if (desired.version === KNOWN_AFTER_APPLY) {
      return {
        action: 'update',
        before,
        after,
        changes: [{ path: ['version'], op: 'update', before: state.version, after: KNOWN_AFTER_APPLY }],
        payload: { upgrade_path: [KNOWN_AFTER_APPLY] },
        errors: [],
        warnings: [],
        notes: ['the upgrade path is planned once the version is known'],
      };
    }
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

  /** A cluster already at a step of the planned upgrade path (someone, or an earlier run, made it) is on the way. */
  isProgressOf(change, fresh) {
    const path = (change.payload?.upgrade_path as string[] | undefined) ?? [];
    const now = fresh.before.version;
    return typeof now === 'string' && path.includes(now) && canonicalJson(fresh.after) === canonicalJson(change.after);
  },
};
