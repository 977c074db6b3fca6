/**
 * Contract tests of the emulator's billing service against the vendor OpenAPI
 * (test/fixtures/openapi/cloud_api.yaml): the pricing previews, an instance's current price,
 * the instance and load balancer check_limits routes, the load balancer preview, the cost report totals and the client quotas answer match
 * their operations' response schemas in every price status, and requests shaped as the vendor's
 * request schemas are served.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { expectDocumentedAnswer, expectValid, requestValidator } from '../../helpers/openapi.js';
import { PRICE_STATUSES } from '../../../src/emulator/services/billing/index.js';

const CLOUD = 'cloud_api.yaml';
const FIPS = '/cloud/v1/pricing/{project_id}/{region_id}/floating_ips';
const VOLUMES = '/cloud/v1/pricing/{project_id}/{region_id}/volumes';
const INSTANCES = '/cloud/v2/pricing/{project_id}/{region_id}/instances';
const INSTANCE = '/cloud/v1/pricing/{project_id}/{region_id}/instances/{instance_id}';
const CHECK = '/cloud/v2/instances/{project_id}/{region_id}/check_limits';
const BALANCERS = '/cloud/v2/pricing/{project_id}/{region_id}/loadbalancers';
const CHECK_LB = '/cloud/v1/loadbalancers/{project_id}/{region_id}/check_limits';
const TOTALS = '/cloud/v1/cost_report/totals';
const QUOTAS = '/cloud/v2/client_quotas';

const preview = { flavor: 'g2-standard-4-8', names: ['a', 'b'], interfaces: [{ type: 'external' }], volumes: [{ source: 'image', size: 10, type_name: 'ssd_hiiops' }] };
const report = {
  time_from: '2025-12-15T00:00:00Z',
  time_to: '2026-01-01T00:00:00Z',
  enable_last_day: true,
  tags: { condition_type: 'AND', conditions: [{ key: 'edgeform-stack', value: 'prod', strict: true }] },
};

describe('emulator billing service: the vendor shapes', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());
  beforeEach(() => {
    emu.state.priceList.price_status = 'show';
  });

  it('sends requests the vendor request schemas accept', () => {
    expectValid(requestValidator(CLOUD, 'POST', FIPS), { count: 3 });
    expectValid(requestValidator(CLOUD, 'POST', VOLUMES), { source: 'new-volume', size: 20, type_name: 'standard' });
    expectValid(requestValidator(CLOUD, 'POST', INSTANCES), preview);
    expectValid(requestValidator(CLOUD, 'POST', CHECK), { flavor: 'g2-standard-2-4', names: ['web'], interfaces: [], volumes: [] });
    expectValid(requestValidator(CLOUD, 'POST', BALANCERS), { flavor: 'lb1-2-4', vip_network_id: '00000000-0000-4000-8000-000000000001', vip_ip_family: 'ipv4' });
    expectValid(requestValidator(CLOUD, 'POST', CHECK_LB), { vip_network_id: '00000000-0000-4000-8000-000000000001', vip_ip_family: 'ipv4' });
    expectValid(requestValidator(CLOUD, 'POST', TOTALS), report);
  });

  for (const status of PRICE_STATUSES)
    it(`answers every pricing route in the vendor's shape with price_status ${status}`, async () => {
      emu.state.priceList.price_status = status;
      const fip = await expectDocumentedAnswer(emu, CLOUD, 'POST', FIPS, '/cloud/v1/pricing/1/76/floating_ips', 200, { count: 3 });
      const volume = await expectDocumentedAnswer(emu, CLOUD, 'POST', VOLUMES, '/cloud/v1/pricing/1/76/volumes', 200, { source: 'new-volume', size: 20 });
      const vm = await expectDocumentedAnswer(emu, CLOUD, 'POST', INSTANCES, '/cloud/v2/pricing/1/76/instances', 200, preview);
      const current = await expectDocumentedAnswer(emu, CLOUD, 'GET', INSTANCE, `/cloud/v1/pricing/1/76/instances/${DEMO.instance}`, 200);
      const totals = await expectDocumentedAnswer(emu, CLOUD, 'POST', TOTALS, TOTALS, 200, report);
      const lb = await expectDocumentedAnswer(emu, CLOUD, 'POST', BALANCERS, '/cloud/v2/pricing/1/76/loadbalancers', 200, { flavor: 'lb1-1-2', floating_ip: { source: 'new' } });
      for (const answer of [fip, volume, vm, current, totals, lb]) expect(answer.price_status).toBe(status);
      if (status === 'show') {
        expect(fip).toMatchObject({ currency_code: 'EUR', price_per_month: 10.95 });
        expect(volume.price_per_month).toBe(1.46);
        expect(vm).toMatchObject({ vm_count: 2, per_month: { floating_ip: 0 } });
        // lb1-1-2: 1 vCPU at 0.01/h and 2 GiB at 0.005/h; an external VIP's IP at 0.004/h; a new floating IP at 0.005/h.
        expect(lb).toMatchObject({ currency_code: 'EUR', per_month: { flavor: 14.6, external_ip: 2.92, floating_ip: 3.65 }, total_price_per_month: 21.17 });
      } else {
        // Never 0: no price at all.
        expect([fip.price_per_month, volume.price_per_month, vm.total_price_per_month, current.price_per_month, lb.total_price_per_month]).toEqual([null, null, null, null, null]);
      }
    });

  it('answers check_limits with only what is exceeded, and client_quotas with the limits set', async () => {
    expect(await expectDocumentedAnswer(emu, CLOUD, 'POST', CHECK, '/cloud/v2/instances/1/76/check_limits', 200, { flavor: 'g2-standard-2-4', names: ['a'] })).toEqual({});
    const before = (await emu.call('GET', QUOTAS)).body.regional_quotas.find((q: { region_id: number }) => q.region_id === 76);
    emu.state.quotaLimits.regional.set(76, { cpu_count_limit: before.cpu_count_usage + 3 });
    const over = await expectDocumentedAnswer(emu, CLOUD, 'POST', CHECK, '/cloud/v2/instances/1/76/check_limits', 200, { flavor: 'g2-standard-2-4', names: ['a', 'b'] });
    expect(over).toEqual({ cpu_count_limit: before.cpu_count_usage + 3, cpu_count_requested: 4, cpu_count_usage: before.cpu_count_usage });
    const quotas = await expectDocumentedAnswer(emu, CLOUD, 'GET', QUOTAS, QUOTAS, 200);
    expect(quotas.regional_quotas.find((q: { region_id: number }) => q.region_id === 76).cpu_count_limit).toBe(before.cpu_count_usage + 3);
    emu.state.quotaLimits.regional.delete(76);
  });

  it('answers the load balancer check_limits with only what is exceeded, and counts the balancers it holds in client_quotas', async () => {
    const path = '/cloud/v1/loadbalancers/1/76/check_limits';
    const network = { vip_network_id: '00000000-0000-4000-8000-000000000001' };
    expect(await expectDocumentedAnswer(emu, CLOUD, 'POST', CHECK_LB, path, 200, network)).toEqual({});
    const region = async () => (await emu.call('GET', QUOTAS)).body.regional_quotas.find((q: { region_id: number }) => q.region_id === 76);
    const before = (await region()).loadbalancer_count_usage;
    expect((await emu.call('POST', '/cloud/v1/loadbalancers/1/76', { body: { name: 'counted-lb' } })).status).toBe(200);
    const held = [...emu.state.loadBalancers.values()].filter((lb) => lb.region_id === 76).length;
    expect(held).toBe(before + 1);
    expect((await region()).loadbalancer_count_usage).toBe(held);
    emu.state.quotaLimits.regional.set(76, { loadbalancer_count_limit: held });
    const over = await expectDocumentedAnswer(emu, CLOUD, 'POST', CHECK_LB, path, 200, { floating_ip: { source: 'new' } });
    expect(over).toEqual({ loadbalancer_count_limit: held, loadbalancer_count_requested: 1, loadbalancer_count_usage: held });
    emu.state.quotaLimits.regional.delete(76);
  });

  it('counts secrets and external IPs in client_quotas, answers an external VIP over its quota in check_limits, and prices balancers in the cost report', async () => {
    const own = await startTestEmulator({
      fixtures: {
        secrets: [{ id: '5c000000-0000-4000-8000-000000000001', name: 'only-secret' }],
        load_balancers: [{ id: '5a000000-0000-4000-8000-000000000001', name: 'external', flavor: 'lb1-1-2', tags: { 'edgeform-stack': 'prod' } }],
      },
    });
    try {
      const region = async () => (await own.call('GET', QUOTAS)).body.regional_quotas.find((q: { region_id: number }) => q.region_id === 76);
      const usage = await region();
      // The region holds a secret (import lists the secrets only where this is not 0) and a balancer whose VIP is on the external network.
      expect(usage.secret_count_usage).toBe(1);
      const external = usage.external_ip_count_usage;
      expect(external).toBeGreaterThanOrEqual(1);
      await expectDocumentedAnswer(own, CLOUD, 'GET', QUOTAS, QUOTAS, 200);

      own.state.quotaLimits.regional.set(76, { external_ip_count_limit: external });
      const path = '/cloud/v1/loadbalancers/1/76/check_limits';
      expect(await expectDocumentedAnswer(own, CLOUD, 'POST', CHECK_LB, path, 200, {})).toEqual({
        external_ip_count_limit: external,
        external_ip_count_requested: 1,
        external_ip_count_usage: external,
      });
      // A VIP on a network of the client takes no external IP; an instance's external interface takes one.
      expect(await expectDocumentedAnswer(own, CLOUD, 'POST', CHECK_LB, path, 200, { vip_network_id: '00000000-0000-4000-8000-000000000001' })).toEqual({});
      const vm = await expectDocumentedAnswer(own, CLOUD, 'POST', CHECK, '/cloud/v2/instances/1/76/check_limits', 200, {
        flavor: 'g2-standard-2-4',
        interfaces: [{ type: 'external' }],
      });
      expect(vm).toMatchObject({ external_ip_count_requested: 1 });
      own.state.quotaLimits.regional.delete(76);

      own.clock.advance(10 * 3_600_000);
      // The emulator's clock starts on 2026-01-01: the ten hours since.
      const today = { ...report, time_from: '2026-01-01T00:00:00Z', time_to: '2026-01-01T00:00:00Z' };
      const totals = await expectDocumentedAnswer(own, CLOUD, 'POST', TOTALS, TOTALS, 200, today);
      const { discount_percent, tax_percent } = own.state.priceList;
      const cost = (perHour: number) => Math.round(10 * perHour * (1 - discount_percent / 100) * (1 + tax_percent / 100) * 1e4) / 1e4;
      // lb1-1-2 at 0.02/h (1 vCPU at 0.01, 2 GiB at 0.005) and its external IP at 0.004/h, for 10 hours.
      expect(totals.results.map((r: { type: string; flavor?: string; billing_value: number; cost: number }) => [r.type, r.flavor, r.billing_value, r.cost])).toEqual([
        ['load_balancer', 'lb1-1-2', 600, cost(0.02)],
        ['external_ip', undefined, 600, cost(0.004)],
      ]);
    } finally {
      await own.close();
    }
  });

  it('prices a balancer on a network of the client without an external IP, and an existing floating IP as its own', async () => {
    const lb = await expectDocumentedAnswer(emu, CLOUD, 'POST', BALANCERS, '/cloud/v2/pricing/1/76/loadbalancers', 200, {
      flavor: 'lb1-1-2',
      vip_network_id: '00000000-0000-4000-8000-000000000001',
      floating_ip: { source: 'existing', existing_floating_id: '00000000-0000-4000-8000-000000000002' },
    });
    expect(lb).toMatchObject({ per_month: { flavor: 14.6, external_ip: 0, floating_ip: 0 }, total_price_per_month: 14.6 });
  });

  it('refuses what the vendor refuses: a missing count, a period over 31 days, an unknown field, an unknown instance', async () => {
    expect((await emu.call('POST', '/cloud/v1/pricing/1/76/floating_ips', { body: {} })).status).toBe(400);
    expect((await emu.call('POST', TOTALS, { body: { ...report, time_from: '2025-11-01T00:00:00Z' } })).status).toBe(400);
    expect((await emu.call('POST', TOTALS, { body: { ...report, extra: 1 } })).status).toBe(400);
    expect((await emu.call('GET', '/cloud/v1/pricing/1/76/instances/00000000-0000-4000-8000-00000000dead')).status).toBe(404);
    expect((await emu.call('POST', '/cloud/v2/pricing/1/76/loadbalancers', { body: {} })).status).toBe(400);
    expect((await emu.call('POST', '/cloud/v2/pricing/1/76/loadbalancers', { body: { flavor: 'lb9-9-9' } })).status).toBe(400);
  });
});
