import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { chainStack, makeCloudChain } from '../../helpers/cloud-chain.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A stack named "prod" creating `n` floating IPs in project 1, region 76. */
const floatingIps = (n: number) =>
  `version: 1\nname: prod\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n` +
  Array.from({ length: n }, (_, i) => `  ip${i}:\n    type: cloud_floating_ip\n    tags: { n: "${i}" }\n`).join('');

const floatingUsage = (emu: TestEmulator, region: number) => [...emu.state.floatingIps.values()].filter((f) => f.region_id === region).length;

describe('the quota check (plan --check-quota, on by default in apply)', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('refuses a create over quota before any write, naming the counter, the limit, the use, the request and what is missing', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const used = floatingUsage(emu, 76);
    emu.state.quotaLimits.regional.set(76, { floating_count_limit: used + 1 });
    const stack = join(writeStackFiles({ 'stack.yaml': floatingIps(3) }), 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(plan.code).toBe(1);
    const said = plan.stdout + plan.stderr;
    expect(said).toContain(`the plan needs 3 more floating IPs in region 76, but its quota floating_count_limit is ${used + 1} with ${used} used: 2 missing`);
    expect(said).toContain('cloud_quota_limit_request');
    expect(said).toContain(`floating_count_limit: ${used + 3}`);
    expect(emu.requests.filter((r) => r.path === '/cloud/v2/client_quotas')).toHaveLength(1);

    emu.requests.length = 0;
    const apply = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain('floating_count_limit');
    expect(writesSeen(emu)).toEqual([]);
    expect(floatingUsage(emu, 76)).toBe(used);

    // Within the quota, the same apply goes ahead; --no-check-quota asks nothing.
    emu.state.quotaLimits.regional.set(76, { floating_count_limit: used + 3 });
    emu.requests.length = 0;
    const fits = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(fits.code, fits.stderr).toBe(0);
    expect(floatingUsage(emu, 76)).toBe(used + 3);
    emu.requests.length = 0;
    const unchecked = await runCliInProcess(['plan', stack], { env: emulatorEnv(emu) });
    expect(unchecked.code).toBe(0);
    expect(emu.requests.map((r) => r.path)).not.toContain('/cloud/v2/client_quotas');
  });

  it('asks nothing when the plan creates nothing that takes a quota', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = join(writeStackFiles({ 'stack.yaml': floatingIps(1) }), 'stack.yaml');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) })).code).toBe(0);
    emu.requests.length = 0;
    const again = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(again.code).toBe(0);
    expect(emu.requests.map((r) => r.path)).not.toContain('/cloud/v2/client_quotas');
  });

  it('warns, and plans, when the quotas cannot be read', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    emu.faults.failNext({ method: 'GET', path: '/cloud/v2/client_quotas', status: 403 });
    const stack = join(writeStackFiles({ 'stack.yaml': floatingIps(1) }), 'stack.yaml');
    const plan = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(plan.code).toBe(0);
    expect(plan.stdout + plan.stderr).toContain('the quota check could not be made: GET /cloud/v2/client_quotas failed');
  });

  it("asks check_limits for an instance's vCPUs and RAM and refuses what it says is over quota", async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const quotas = (await emu.call('GET', '/cloud/v2/client_quotas')).body.regional_quotas.find((q: { region_id: number }) => q.region_id === 76);
    emu.state.quotaLimits.regional.set(76, { cpu_count_limit: quotas.cpu_count_usage + 1 });
    const stack = join(writeStackFiles({ 'stack.yaml': chainStack() }), 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(
      `the plan needs 2 more cpu_count in region 76, but its quota cpu_count_limit is ${quotas.cpu_count_usage + 1} with ${quotas.cpu_count_usage} used: 1 missing (check_limits)`,
    );
    const asked = emu.requests.filter((r) => r.path === '/cloud/v2/instances/1/76/check_limits');
    expect(asked).toHaveLength(1);
    expect(writesSeen(emu).filter((w) => !w.endsWith('/check_limits'))).toEqual([]);
  });

  it('lets a chain that fits through, with one client_quotas read and one check_limits per flavor and place', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    await makeCloudChain(emu);
    const stack = join(writeStackFiles({ 'stack.yaml': chainStack() }), 'stack.yaml');
    emu.requests.length = 0;
    const plan = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(emu.requests.filter((r) => r.path === '/cloud/v2/client_quotas')).toHaveLength(1);
    expect(emu.requests.filter((r) => r.path.endsWith('/check_limits'))).toHaveLength(1);
  });

  it('refuses load balancer creates over loadbalancer_count before any write, said once though check_limits says it too', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const used = [...emu.state.loadBalancers.values()].filter((lb) => lb.region_id === 76).length;
    emu.state.quotaLimits.regional.set(76, { loadbalancer_count_limit: used + 1 });
    const balancers = ['a', 'b'].map((n) => `  lb_${n}:\n    type: cloud_load_balancer\n    name: edge-${n}\n    flavor: lb1-1-2\n`).join('');
    const stack = join(writeStackFiles({ 'stack.yaml': `version: 1\nname: prod\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${balancers}` }), 'stack.yaml');

    const plan = await runCliInProcess(['plan', stack, '--check-quota'], { env: emulatorEnv(emu) });
    expect(plan.code).toBe(1);
    const said = plan.stdout + plan.stderr;
    expect(said).toContain(`the plan needs 2 more load balancers in region 76, but its quota loadbalancer_count_limit is ${used + 1} with ${used} used: 1 missing`);
    expect(said).toContain(`loadbalancer_count_limit: ${used + 2}`);
    expect(said.match(/quota loadbalancer_count_limit is/g)).toHaveLength(1);
    // Each balancer's check_limits is asked (what its VIP takes), on its own.
    expect(emu.requests.filter((r) => r.path === '/cloud/v1/loadbalancers/1/76/check_limits')).toHaveLength(2);

    emu.requests.length = 0;
    const apply = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain('loadbalancer_count_limit');
    expect(writesSeen(emu).filter((w) => !w.endsWith('/check_limits'))).toEqual([]);
    expect([...emu.state.loadBalancers.values()].filter((lb) => lb.region_id === 76)).toHaveLength(used);
  });

  it("counts the emulator's balancers in client_quotas, so import lists them where they are without --region-id", async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    expect((await emu.call('POST', '/cloud/v1/loadbalancers/1/76', { body: { name: 'counted-lb' } })).status).toBe(200);
    emu.requests.length = 0;
    const imported = await runCliInProcess(['import', 'cloud_load_balancer'], { env: emulatorEnv(emu) });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('name: counted-lb');
    expect(emu.requests.map((r) => r.path)).toContain('/cloud/v1/loadbalancers/1/76');
  });
});
