import { describe, expect, it } from 'vitest';
import { cloudQuotaLimitRequest } from '../../../src/kinds/cloud-quota-limit-request/provider.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, planChange, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { REF } from '../../helpers/ref.js';
import { resource } from '../../helpers/stack.js';

type Desired = ResourceAttributes['cloud_quota_limit_request'];

const LIMITS = { regional_limits: [{ region_id: 76, gpu_count_limit: 4 }] };
const desired = (over: Partial<Desired> = {}): Desired => ({ description: 'GPUs for inference', requested_limits: LIMITS, ensure: 'present', ...over });
const block = (over: Partial<Desired> = {}) => resource('cloud_quota_limit_request', 'gpus', desired(over));

let emu: TestEmulator;
let h: ProviderHarness;
useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const named = (description: string) => [...emu.state.quotaRequests.values()].filter((r) => r.description === description);

describe('cloud_quota_limit_request read', () => {
  it('finds a request without an id by its description, with its status and limits', async () => {
    expect(await cloudQuotaLimitRequest.read(h.ctx, desired({ description: 'Extra floating IPs' }), REF)).toEqual({
      exists: true,
      state: { request_id: 43, status: 'done', description: 'Extra floating IPs', requested_limits: { regional_limits: [{ region_id: 76, floating_count_limit: 20 }] } },
      foundBy: 'description "Extra floating IPs"',
    });
  });

  it('refuses a description two requests share, naming both ids', async () => {
    emu.state.quotaRequests.set(50, { ...emu.state.quotaRequests.get(43)!, id: 50 });
    await expect(cloudQuotaLimitRequest.read(h.ctx, desired({ description: 'Extra floating IPs' }), REF)).rejects.toMatchObject({
      code: 'EDGEFORM_AMBIGUOUS_IDENTITY',
      candidates: ['43', '50'],
    });
  });
});

describe('cloud_quota_limit_request apply', () => {
  it('creates a missing request with one POST of its description and limits', async () => {
    const change = await planChange(h.ctx, block());
    expect(change).toMatchObject({ action: 'create', identity: 'description "GPUs for inference"' });
    await expect(cloudQuotaLimitRequest.apply(h.ctx, change)).resolves.toBeUndefined();
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/cloud/v2/limits_request', body: { description: 'GPUs for inference', requested_limits: LIMITS } },
    ]);
    expect(named('GPUs for inference')).toEqual([expect.objectContaining({ status: 'in progress', requested_limits: LIMITS })]);
    const again = await planChange(h.ctx, block());
    expect(again).toMatchObject({ action: 'no-op', notes: ['status: in progress'] });
  });

  it('never sends the POST twice when its answer is lost: the platform made it, the re-read finds it', async () => {
    emu.faults.dropNext({ method: 'POST', path: '/cloud/v2/limits_request', when: 'after' });
    const change = await planChange(h.ctx, block());
    await expect(cloudQuotaLimitRequest.apply(h.ctx, change)).resolves.toBe('unacknowledged');
    expect(h.sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(named('GPUs for inference')).toHaveLength(1);
  });

  it('replaces a request whose limits differ in two steps, as the executor runs them: DELETE the found one, then POST the new one', async () => {
    const change = await planChange(h.ctx, block({ description: 'More vCPUs for the staging project' }));
    expect(change).toMatchObject({ action: 'replace', before: { request_id: 42 } });
    expect(change.changes).toEqual([
      {
        path: ['requested_limits'],
        op: 'update',
        before: { regional_limits: [{ region_id: 76, cpu_count_limit: 64, ram_limit: 131072 }] },
        after: LIMITS,
        forces_replacement: true,
      },
    ]);
    await expect(cloudQuotaLimitRequest.apply(h.ctx, change)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('two steps') });
    expect(h.sent.filter((r) => r.method !== 'GET')).toEqual([]);
    await cloudQuotaLimitRequest.beforeReplace!(h.ctx, change);
    await cloudQuotaLimitRequest.apply(h.ctx, { ...change, action: 'delete' });
    await cloudQuotaLimitRequest.apply(h.ctx, { ...change, action: 'create' });
    expect(h.sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /cloud/v2/limits_request/42', 'POST /cloud/v2/limits_request']);
    expect(named('More vCPUs for the staging project')).toEqual([expect.objectContaining({ requested_limits: LIMITS })]);
  });

  it('refuses to replace a request the block pins by request_id (its id would name the destroyed one)', async () => {
    const plan = await planBlocks(h.ctx, [block({ request_id: 42, description: 'More vCPUs for the staging project' })]);
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics[0]!.summary).toContain('requested_limits of quota limit request 42 differ, and a request cannot be changed in place');
  });

  it('deletes a request found by its description (ensure: absent)', async () => {
    const change = await planChange(h.ctx, resource('cloud_quota_limit_request', 'old', { description: 'Extra floating IPs', ensure: 'absent' }));
    expect(change).toMatchObject({ action: 'delete', before: { request_id: 43, status: 'done', description: 'Extra floating IPs' } });
    await cloudQuotaLimitRequest.apply(h.ctx, change);
    expect([...emu.state.quotaRequests.keys()]).toEqual([42]);
  });

  it('refuses an update (quota requests cannot change in place) and sends nothing', async () => {
    const change = await planChange(h.ctx, block());
    await expect(cloudQuotaLimitRequest.apply(h.ctx, { ...change, action: 'update' })).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
    expect(h.sent.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
