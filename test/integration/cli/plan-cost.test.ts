import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { example } from '../../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { TEST_TLS_KEY } from '../../helpers/tls-key.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PRICING = (r: { path: string }) => r.path.startsWith('/cloud/v1/pricing/') || r.path.startsWith('/cloud/v2/pricing/');

describe('plan --cost: monthly prices from the platform pricing routes', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('prices the web-service example: each create, the totals, and the kinds the platform does not price', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const plan = await runCliInProcess(['plan', example('web-service.yaml'), '--cost'], { env: emulatorEnv(emu) });
    expect(plan.code, plan.stderr).toBe(0);
    // Default price list: 20 GiB standard at 0.0001/GiB·h, a floating IP at 0.005/h, 2 vCPU + 4 GiB at 0.01 and 0.005/h; 730 h a month.
    expect(plan.stdout).toContain('Cost (monthly, as the platform prices it):');
    expect(plan.stdout).toContain('+ cloud_volume.boot: 1.46 EUR/month');
    expect(plan.stdout).toContain('+ cloud_floating_ip.ip: 3.65 EUR/month');
    expect(plan.stdout).toContain('+ cloud_instance.vm: 29.20 EUR/month');
    expect(plan.stdout).toContain('Monthly cost of the changes: 0.00 → 34.31 EUR (+34.31) (not priced: cloud_network, cloud_security_group, cloud_ssh_key, cloud_subnet)');
    const priced = emu.requests.filter(PRICING).map((r) => `${r.method} ${r.route}`);
    expect(priced.sort()).toEqual([
      'POST /cloud/v1/pricing/{project_id}/{region_id}/floating_ips',
      'POST /cloud/v1/pricing/{project_id}/{region_id}/volumes',
      'POST /cloud/v2/pricing/{project_id}/{region_id}/instances',
    ]);
    // Pricing is reads: nothing is written.
    expect(writesSeen(emu).filter((w) => !w.includes('/pricing/'))).toEqual([]);

    const json = JSON.parse((await runCliInProcess(['plan', example('web-service.yaml'), '--cost', '--format', 'json'], { env: emulatorEnv(emu) })).stdout);
    expect(json.cost.totals).toEqual([{ currency: 'EUR', before: 0, after: 34.31, difference: 34.31 }]);
    expect(json.cost.lines.find((l: { addresses: string[] }) => l.addresses[0] === 'cloud_instance.vm').after).toEqual({
      status: 'show',
      currency: 'EUR',
      per_month: 29.2,
      without_discount_per_month: 29.2,
      discount_percent: 0,
      tax_percent: 0,
    });
    const md = await runCliInProcess(['plan', example('web-service.yaml'), '--cost', '--format', 'markdown'], { env: emulatorEnv(emu) });
    expect(md.stdout).toContain('**Cost:** `0.00 → 34.31 EUR (+34.31) (not priced: cloud_network, cloud_security_group, cloud_ssh_key, cloud_subnet)` per month.');
  });

  it('prices the load-balanced example: the balancer by the v2 preview, without an external IP for its VIP on the network the plan creates', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), WEB_TLS_KEY: TEST_TLS_KEY };
    const plan = await runCliInProcess(['plan', example('load-balanced.yaml'), '--cost'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    // lb1-1-2: 1 vCPU at 0.01/h and 2 GiB at 0.005/h, 730 h; its VIP is on lb-net, so no external IP (0.004/h) is counted.
    expect(plan.stdout).toContain('+ cloud_load_balancer.lb: 14.60 EUR/month');
    // Each instance: 2 vCPU + 4 GiB and its 20 GiB boot volume; the floating IP; the balancer.
    expect(plan.stdout).toContain('+ cloud_instance.web_1: 30.66 EUR/month');
    expect(plan.stdout).toContain('+ cloud_floating_ip.lb_ip: 3.65 EUR/month');
    expect(plan.stdout).toMatch(/Monthly cost of the changes: 0\.00 → 79\.57 EUR \(\+79\.57\) \(not priced: [^)]*cloud_lb_listener, cloud_lb_pool[^)]*\)/);
    const balancer = emu.requests.filter((r) => r.route === '/cloud/v2/pricing/{project_id}/{region_id}/loadbalancers');
    expect(balancer.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /cloud/v2/pricing/1/76/loadbalancers 200']);
    expect(writesSeen(emu).filter((w) => !w.includes('/pricing/'))).toEqual([]);
  });

  it('prices a balancer resize as the current flavor against the new one', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const dir = writeStackFiles({
      'stack.yaml': 'version: 1\nname: lbs\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  lb:\n    type: cloud_load_balancer\n    name: edge-lb\n    flavor: lb1-1-2\n',
    });
    expect((await runCliInProcess(['apply', join(dir, 'stack.yaml'), '--auto-approve'], { env: emulatorEnv(emu) })).code).toBe(0);
    writeFileSync(join(dir, 'stack.yaml'), readFileSync(join(dir, 'stack.yaml'), 'utf8').replace('lb1-1-2', 'lb1-2-4'));
    const plan = await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--cost'], { env: emulatorEnv(emu) });
    expect(plan.code, plan.stderr).toBe(0);
    // External VIP: the flavor (1 vCPU + 2 GiB, then 2 vCPU + 4 GiB) and its external IP (2.92 a month).
    expect(plan.stdout).toContain('~ cloud_load_balancer.lb: 17.52 EUR/month → 32.12 EUR/month (+14.60)');
  });

  it('prices a resize as a difference: the current price against the new flavor', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const plan = await runCliInProcess(['plan', example('quickstart.yaml'), '--cost', '--format', 'json'], { env: emulatorEnv(emu) });
    const json = JSON.parse(plan.stdout);
    const resize = json.cost.lines.find((l: { addresses: string[] }) => l.addresses[0] === 'cloud_instance.web_vm');
    expect(resize).toMatchObject({ action: 'update', before: { per_month: 29.2 }, after: { per_month: 58.4 } });
    expect(json.cost.totals).toEqual([{ currency: 'EUR', before: 29.2, after: 58.4, difference: 29.2 }]);
    expect(emu.requests.filter(PRICING).map((r) => `${r.method} ${r.route}`)).toEqual(
      expect.arrayContaining(['GET /cloud/v1/pricing/{project_id}/{region_id}/instances/{instance_id}', 'POST /cloud/v2/pricing/{project_id}/{region_id}/instances']),
    );
    const text = await runCliInProcess(['plan', example('quickstart.yaml'), '--cost'], { env: emulatorEnv(emu) });
    expect(text.stdout).toContain('~ cloud_instance.web_vm: 29.20 EUR/month → 58.40 EUR/month (+29.20)');
  });

  it("never shows a price the account's plan hides as 0, and shows the discount and the tax as the answer says", async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    emu.state.priceList.price_status = 'hide';
    const hidden = await runCliInProcess(['plan', example('web-service.yaml'), '--cost'], { env: emulatorEnv(emu) });
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toContain("+ cloud_instance.vm: hidden by the account's plan");
    expect(hidden.stdout).toContain("Monthly cost of the changes: no price shown (some prices hidden by the account's plan;");
    expect(hidden.stdout).not.toMatch(/0\.00 EUR/);

    Object.assign(emu.state.priceList, { price_status: 'show', discount_percent: 50, tax_percent: 20 });
    const taxed = await runCliInProcess(['plan', example('web-service.yaml'), '--cost'], { env: emulatorEnv(emu) });
    expect(taxed.stdout).toContain('+ cloud_instance.vm: 17.52 EUR/month (50% discount, incl. 20% tax)');
  });

  it('only warns when pricing fails, and batches the floating IP creates of a place into one count', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    emu.faults.failNext({ method: 'POST', path: '/cloud/v2/pricing/1/76/instances', status: 400 });
    const plan = await runCliInProcess(['plan', example('web-service.yaml'), '--cost', '--detailed-exitcode'], { env: emulatorEnv(emu) });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('+ cloud_instance.vm: price unknown (POST /cloud/v2/pricing/1/76/instances failed');
    expect(plan.stdout + plan.stderr).toMatch(/warning.*price unknown for cloud_instance\.vm/);
    expect(plan.stdout).toContain('Monthly cost of the changes: 0.00 → 5.11 EUR (+5.11) (1 price unknown;');

    emu.requests.length = 0;
    const dir = writeStackFiles({
      'stack.yaml': `version: 1\nname: ips\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${['a', 'b', 'c'].map((n) => `  ${n}:\n    type: cloud_floating_ip\n`).join('')}`,
    });
    const ips = JSON.parse((await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--cost', '--format', 'json'], { env: emulatorEnv(emu) })).stdout);
    expect(emu.requests.filter((r) => r.route === '/cloud/v1/pricing/{project_id}/{region_id}/floating_ips')).toHaveLength(1);
    expect(ips.cost.lines).toEqual([
      expect.objectContaining({ addresses: ['cloud_floating_ip.a', 'cloud_floating_ip.b', 'cloud_floating_ip.c'], after: expect.objectContaining({ per_month: 10.95 }) }),
    ]);
  });
});
