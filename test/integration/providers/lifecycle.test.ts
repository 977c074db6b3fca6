import { describe, expect, it } from 'vitest';
import { executePlan } from '../../../src/apply/executor.js';
import { PlanPayloadError, TaskTimeoutError } from '../../../src/errors.js';
import { cloudInstance } from '../../../src/kinds/cloud-instance/provider.js';
import { cloudK8sCluster } from '../../../src/kinds/cloud-k8s-cluster/provider.js';
import { cloudQuotaLimitRequest } from '../../../src/kinds/cloud-quota-limit-request/provider.js';
import { fastedgeApp } from '../../../src/kinds/fastedge-app/provider.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';

/**
 * The kind skeleton (src/kinds/lifecycle.ts): each kind's task timeout is its own and reaches
 * the task poller, which knows no kind; an action a kind does not declare is refused before
 * anything is sent. Tasks here run two hours on the emulator's clock, so every wait ends at its
 * timeout (the polls advance the clock; nothing waits on the wall clock).
 */
let emu: TestEmulator;
let h: ProviderHarness;
/** The harness's context, polling tasks once a minute of the emulator's clock: an hour's wait is 60 polls. */
let ctx: ProviderContext;

useProviderHarness(
  (e, harness) => {
    emu = e;
    h = harness;
    ctx = createProviderContext({ api: harness.api, sleep: async (ms) => e.clock.advance(ms), now: () => e.clock.now(), pollSchedule: { initialMs: 60_000, maxMs: 60_000 } });
  },
  { taskDurationMs: 2 * 60 * 60_000 },
);

describe('task timeouts are the kind’s own', () => {
  it('waits 60 minutes on a Kubernetes upgrade task (cloud_k8s_cluster declares it)', async () => {
    const change = await planChange(
      ctx,
      resource('cloud_k8s_cluster', 'cluster', { project_id: 1, region_id: 76, cluster_name: DEMO.cluster, version: 'v1.30.6', ensure: 'present' }),
    );
    const error = await cloudK8sCluster.apply(ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error).toMatchObject({ taskType: 'upgrade_k8s_cluster_v2', elapsedMs: 60 * 60_000 });
  });

  it('waits the poller’s 20 minutes on a resize task (cloud_instance declares none)', async () => {
    const change = await planChange(
      ctx,
      resource('cloud_instance', 'vm', { project_id: 1, region_id: 76, instance_id: DEMO.instance, flavor_id: 'g2-standard-4-8', ensure: 'present' }),
    );
    const error = await cloudInstance.apply(ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error).toMatchObject({ taskType: 'resize_vm', elapsedMs: 20 * 60_000 });
  });

  it('waits 60 minutes on the task holding a Kubernetes cluster’s lock before acting', async () => {
    // Someone else's upgrade holds the lock for two hours.
    await emu.call('POST', `/cloud/v2/k8s/clusters/1/76/${DEMO.cluster}/upgrade`, { body: { version: 'v1.30.6' } });
    const plan = await planBlocks(ctx, [
      resource('cloud_k8s_cluster', 'cluster', { project_id: 1, region_id: 76, cluster_name: DEMO.cluster, version: 'v1.30.6', ensure: 'present' }),
    ]);
    const outcome = await executePlan({
      plan,
      ctx: ctx,
      providers: providers.resources,
      maxTasks: 1,
      confirm: { attempts: 1, delayMs: () => 0, sleep: () => Promise.resolve() },
    });
    expect(outcome.resources).toMatchObject([{ address: 'cloud_k8s_cluster.cluster', status: 'failed', error: expect.stringContaining('did not finish within 3600 s') }]);
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('actions a kind does not declare', () => {
  it('refuses an update of a quota request (create, delete and replace only) before sending anything', async () => {
    const change = await planChange(ctx, resource('cloud_quota_limit_request', 'req', { request_id: 42, ensure: 'present' }));
    const error = await cloudQuotaLimitRequest.apply(ctx, { ...change, action: 'update', payload: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanPayloadError);
    expect((error as Error).message).toContain('a cloud_quota_limit_request can be created, deleted or replaced, the change says update');
    expect(h.sent.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses a replace of a FastEdge app (it changes in place) before sending anything', async () => {
    const change = await planChange(ctx, resource('fastedge_app', 'app', { app_id: 1234, ensure: 'present' }));
    const error = await fastedgeApp.apply(ctx, { ...change, action: 'replace', payload: { body: { name: 'x' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanPayloadError);
    expect((error as Error).message).toContain('a fastedge_app can be created, updated or deleted, the change says replace');
    expect(h.sent.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(emu.mutations).toEqual([]);
  });
});
