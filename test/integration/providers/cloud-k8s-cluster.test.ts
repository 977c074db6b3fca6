import { describe, expect, it } from 'vitest';
import { InternalServerError } from '../../../src/api/errors.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { cloudK8sCluster, decideUpgradeProgress } from '../../../src/kinds/cloud-k8s-cluster/provider.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, routesSeen, type ProviderHarness, useProviderHarness, desiredOf } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const ONE = '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}';
const UPGRADE_VERSIONS = `${ONE}/upgrade_versions`;
const UPGRADE = `${ONE}/upgrade`;

const desired = desiredOf<ResourceAttributes['cloud_k8s_cluster']>({ project_id: 1, region_id: 76, cluster_name: DEMO.cluster, version: 'v1.31.3', ensure: 'present' });

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const liveVersion = () => emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!.version;

describe('cloud_k8s_cluster read', () => {
  it('observes version and status, and the next versions the platform offers', async () => {
    expect(await cloudK8sCluster.read(h.ctx, desired(), REF)).toEqual({
      exists: true,
      state: { cluster_name: 'prod-eu', version: 'v1.29.8', status: 'Provisioned', upgrade_versions: ['v1.30.6'] },
      lockTaskId: null,
    });
  });

  it('answers a cluster the platform does not know (404) as not existing', async () => {
    expect(await cloudK8sCluster.read(h.ctx, desired({ cluster_name: 'nope' }), REF)).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the cluster', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await cloudK8sCluster.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: UPGRADE_VERSIONS, status: 429, retryAfter: 2 });
    expect(await cloudK8sCluster.read(h.ctx, desired(), REF)).toMatchObject({ exists: true, state: { upgrade_versions: ['v1.30.6'] } });
    expect(h.retryDelays).toEqual([2000]);
  });

  it('plans a two-minor jump as a path of two steps', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    expect(change.payload).toEqual({ upgrade_path: ['v1.30.6', 'v1.31.3'] });
    expect(change.notes[0]).toContain('upgrade path: v1.29.8 -> v1.30.6 -> v1.31.3 (2 steps;');
  });

  it('refuses a downgrade with a plan error', async () => {
    const plan = await planBlocks(h.ctx, [resource('cloud_k8s_cluster', 'cluster', desired({ version: 'v1.28.9' }))]);
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics[0]?.summary).toBe('cloud_k8s_cluster.cluster: downgrading from v1.29.8 to v1.28.9 is not supported; the platform only upgrades');
  });
});

describe('cloud_k8s_cluster apply', () => {
  it('performs a two-step path as two upgrade POSTs, asking upgrade_versions before each', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    await cloudK8sCluster.apply(h.ctx, change);

    expect(routesSeen(emu, (r) => r === UPGRADE || r === UPGRADE_VERSIONS)).toEqual([
      // the plan's read
      `GET ${UPGRADE_VERSIONS}`,
      // step 1
      `GET ${UPGRADE_VERSIONS}`,
      `POST ${UPGRADE}`,
      // step 2
      `GET ${UPGRADE_VERSIONS}`,
      `POST ${UPGRADE}`,
    ]);
    expect(h.sent.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([{ version: 'v1.30.6' }, { version: 'v1.31.3' }]);
    expect(liveVersion()).toBe('v1.31.3');
    expect(emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!.status).toBe('Provisioned');
    expect((await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()))).action).toBe('no-op');
  });

  it('after the first interrupt, finishes the step under way and starts no further step', async () => {
    const stopping = new AbortController();
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    // The stop arrives while step 1 runs (first progress note of the upgrade).
    const ctx = { ...h.ctx, stopping: stopping.signal, progress: () => stopping.abort() };
    await expect(cloudK8sCluster.apply(ctx, change)).rejects.toThrow('stopped at v1.30.6 on the way to v1.31.3 because of the interrupt');
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`]);
    expect(liveVersion()).toBe('v1.30.6');
  });

  it('never re-sends a dropped upgrade POST: it waits on the task found in task_id and goes on', async () => {
    emu.faults.dropNext({ method: 'POST', path: UPGRADE, when: 'after' });
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    await cloudK8sCluster.apply(h.ctx, change);
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`, `POST ${UPGRADE}`]);
    expect([...emu.state.tasks.values()].filter((t) => t.task_type === 'upgrade_k8s_cluster_v2')).toHaveLength(2);
    expect(liveVersion()).toBe('v1.31.3');
  });
});

describe('cloud_k8s_cluster apply when a read fails after a step finished', () => {
  /** A context that makes every read of the cluster fail (all 4 attempts) once the nth step's task is being waited on. */
  const readsFailAfterStep = (n: number): ProviderContext => {
    let waits = 0;
    return {
      ...h.ctx,
      progress(message, detail) {
        h.ctx.progress(message, detail);
        if (message.startsWith('waiting on task') && ++waits === n) emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 6 });
      },
    };
  };

  it('resolves once the last step finished (acknowledged), leaving the confirmation to the executor', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    await expect(cloudK8sCluster.apply(readsFailAfterStep(2), change)).resolves.toBeUndefined();
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`, `POST ${UPGRADE}`]);
    expect(liveVersion()).toBe('v1.31.3');
  });

  it('fails when the read after an earlier step fails: the upgrade is not complete', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    await expect(cloudK8sCluster.apply(readsFailAfterStep(1), change)).rejects.toBeInstanceOf(InternalServerError);
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`]);
    expect(liveVersion()).toBe('v1.30.6');
  });
});

describe('cloud_k8s_cluster apply after a 5xx answer (outcome unknown)', () => {
  it('never re-sends an upgrade answered 502: it re-reads, finds nothing started, and fails with the original error', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    emu.faults.failNext({ method: 'POST', path: UPGRADE, status: 502 });
    const error = await cloudK8sCluster.apply(h.ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502 });
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`]);
    expect(routesSeen(emu).at(-1)).toBe(`GET ${ONE}`);
    expect(liveVersion()).toBe('v1.29.8');
  });
});

/**
 * A context whose cluster reads lag each finished upgrade: once a step's tasks finished, the
 * emulator's cluster is set back to the version it had before the step, and the real version
 * shows again only after `showAfterSleeps` provider sleeps (never when null).
 */
function laggingContext(showAfterSleeps: number | null): ProviderContext {
  const cluster = () => emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!;
  let hidden: string | null = null;
  let sleeps = 0;
  return {
    ...h.ctx,
    async waitForTasks(ids, options) {
      const before = cluster().version;
      const finished = await h.ctx.waitForTasks(ids, options);
      hidden = cluster().version;
      cluster().version = before;
      sleeps = 0;
      return finished;
    },
    async sleep(ms) {
      await h.ctx.sleep(ms);
      sleeps += 1;
      if (hidden !== null && showAfterSleeps !== null && sleeps >= showAfterSleeps) {
        cluster().version = hidden;
        hidden = null;
      }
    },
  };
}

describe('cloud_k8s_cluster apply when reads lag a finished step', () => {
  it('re-reads until the step shows before asking for the next step: two upgrade POSTs, no repeat', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    await cloudK8sCluster.apply(laggingContext(2), change);
    expect(h.sent.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([{ version: 'v1.30.6' }, { version: 'v1.31.3' }]);
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`, `POST ${UPGRADE}`]);
    // Two lagging reads after each step (the second step's lag delays "done" the same way).
    expect(h.providerSleeps).toHaveLength(4);
    expect(liveVersion()).toBe('v1.31.3');
  });

  it('fails with an inconsistent-result error when the step never shows, without a second POST', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    const error = (await cloudK8sCluster.apply(laggingContext(null), change).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.message).toContain('inconsistent result after apply');
    expect(error.message).toContain('v1.30.6');
    expect(error.code).toBe('EDGEFORM_INCONSISTENT_RESULT');
    expect(routesSeen(emu, (r) => r === UPGRADE)).toEqual([`POST ${UPGRADE}`]);
    expect(h.providerSleeps).toHaveLength(9);
  });
});

describe('decideUpgradeProgress (what the upgrade loop does after each read)', () => {
  it('is done when the cluster reads the target', () => {
    expect(decideUpgradeProgress({ live: 'v1.31.3', target: 'v1.31.3', awaiting: 'v1.31.3' })).toEqual({ kind: 'done' });
    expect(decideUpgradeProgress({ live: 'v1.31.3', target: 'v1.31.3', awaiting: null })).toEqual({ kind: 'done' });
  });

  it('starts the first step when nothing is awaited', () => {
    expect(decideUpgradeProgress({ live: 'v1.29.8', target: 'v1.31.3', awaiting: null })).toEqual({ kind: 'next-step' });
  });

  it('waits while the cluster still reads a version older than the finished step', () => {
    expect(decideUpgradeProgress({ live: 'v1.29.8', target: 'v1.31.3', awaiting: 'v1.30.6' })).toEqual({ kind: 'await-previous', version: 'v1.30.6' });
    expect(decideUpgradeProgress({ live: 'v1.30.6', target: 'v1.31.3', awaiting: 'v1.31.3' })).toEqual({ kind: 'await-previous', version: 'v1.31.3' });
  });

  it('goes on once the step shows, or when the cluster is already past it', () => {
    expect(decideUpgradeProgress({ live: 'v1.30.6', target: 'v1.31.3', awaiting: 'v1.30.6' })).toEqual({ kind: 'next-step' });
    expect(decideUpgradeProgress({ live: 'v1.30.7', target: 'v1.32.1', awaiting: 'v1.30.6' })).toEqual({ kind: 'next-step' });
  });

  it('compares versions as versions, not strings', () => {
    expect(decideUpgradeProgress({ live: 'v1.9.0', target: 'v1.11.0', awaiting: 'v1.10.2' })).toEqual({ kind: 'await-previous', version: 'v1.10.2' });
  });
});

describe('cloud_k8s_cluster apply of a change without its payload', () => {
  it('refuses a change without upgrade_path and sends nothing', async () => {
    const change = await planChange(h.ctx, resource('cloud_k8s_cluster', 'cluster', desired()));
    const { payload: _, ...broken } = change;
    await expect(cloudK8sCluster.apply(h.ctx, broken)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('upgrade_path') });
    await expect(cloudK8sCluster.apply(h.ctx, { ...change, payload: { upgrade_path: [] } })).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([]);
  });
});
