import { describe, expect, it } from 'vitest';
import { cloudQuotaLimitRequest } from '../../../src/kinds/cloud-quota-limit-request/provider.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';

const ONE = '/cloud/v2/limits_request/{request_id}';

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => {
  emu = e;
  h = harness;
});

const absent = resource('cloud_quota_limit_request', 'stale_request', { request_id: 42, ensure: 'absent' });

describe('cloud_quota_limit_request read', () => {
  it('observes the status and description', async () => {
    expect(await cloudQuotaLimitRequest.read(h.ctx, { request_id: 42, ensure: 'present' })).toEqual({
      exists: true,
      state: { request_id: 42, status: 'in progress', description: 'More vCPUs for the staging project' },
    });
  });

  it('answers a request the platform does not know (404) as not existing', async () => {
    expect(await cloudQuotaLimitRequest.read(h.ctx, { request_id: 9999, ensure: 'present' })).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the request', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await cloudQuotaLimitRequest.read(h.ctx, { request_id: 42, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 429, retryAfter: 6 });
    expect((await cloudQuotaLimitRequest.read(h.ctx, { request_id: 42, ensure: 'present' })).exists).toBe(true);
    expect(h.retryDelays).toEqual([6000]);
  });
});

describe('cloud_quota_limit_request apply', () => {
  it('deletes a request planned for deletion, and the platform no longer has it', async () => {
    const change = await planChange(h.ctx, absent);
    expect(change.action).toBe('delete');
    expect(change.before).toEqual({ request_id: 42, status: 'in progress', description: 'More vCPUs for the staging project' });
    await cloudQuotaLimitRequest.apply(h.ctx, change);
    expect(emu.state.quotaRequests.has(42)).toBe(false);
    expect(emu.state.quotaRequests.has(43)).toBe(true);
  });

  it('counts a 404 on delete as done: someone deleted the request since the plan', async () => {
    const change = await planChange(h.ctx, absent);
    emu.state.quotaRequests.delete(42);
    await expect(cloudQuotaLimitRequest.apply(h.ctx, change)).resolves.toBeUndefined();
    expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([404]);
  });
});
