import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const HOUR = 3_600_000;
const TOTALS = '/cloud/v1/cost_report/totals';

/** A stack named NAME (or none) creating a floating IP and a 10 GiB volume in project 1, region 76. */
const stackYaml = (name: string | null) => `version: 1
${name === null ? '' : `name: ${name}\n`}defaults: { project_id: 1, region_id: 76 }
resources:
  ip:
    type: cloud_floating_ip
  data:
    type: cloud_volume
    name: data
    size: 10
`;

describe('edgeform cost: what a stack cost, from the cost report filtered by its ownership tag', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('reports the spend of a stack after an apply, per resource type and region, counting only what carries its tag', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const dir = writeStackFiles({ 'stack.yaml': stackYaml('shop') });
    const stack = join(dir, 'stack.yaml');
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    emu.clock.advance(48 * HOUR);
    emu.requests.length = 0;

    // The emulator's clock started at 2026-01-01; two days later. 48 h × 0.005 (IP) and × 10 GiB × 0.0001 (volume).
    const text = await runCliInProcess(['cost', stack, '--since', '7d', '--until', '2026-01-03'], { env: emulatorEnv(emu) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Spend of stack "shop" (${stack}) from 2025-12-27 to 2026-01-03, per the platform's cost report:`);
    expect(text.stdout).toContain('  floatingip in region 76: 0.24 EUR');
    expect(text.stdout).toContain('  volume standard in region 76: 0.048 EUR');
    expect(text.stdout).toContain('Total: 0.29 EUR');
    expect(text.stdout).toContain(
      'Counted: resources carrying the tag edgeform-stack=shop, which edgeform writes on cloud_floating_ip, cloud_instance, cloud_load_balancer, cloud_network',
    );
    // The demo world's own instances and IPs carry no such tag: not counted.
    expect(text.stdout).not.toMatch(/^ {2}instance /m);
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${TOTALS}`]);

    const json = JSON.parse((await runCliInProcess(['cost', stack, '--since', '2026-01-01', '--until', '2026-01-03', '--format', 'json'], { env: emulatorEnv(emu) })).stdout);
    expect(json).toMatchObject({
      format_version: '1.0',
      failures: [],
      stacks: [{ stack: 'shop', from: '2026-01-01', to: '2026-01-03', price_status: 'show', totals: [{ currency: 'EUR', cost: 0.29 }] }],
    });
    expect(json.stacks[0].items).toContainEqual({
      type: 'floatingip',
      region_id: 76,
      detail: null,
      billing_value: 2880,
      billing_value_unit: 'minutes',
      cost: 0.24,
      currency: 'EUR',
      err: null,
    });

    const md = await runCliInProcess(['cost', stack, '--until', '2026-01-03', '--format', 'markdown'], { env: emulatorEnv(emu) });
    expect(md.stdout).toContain('### edgeform cost for `shop`');
    expect(md.stdout).toContain('| `floatingip` | 76 | `0.24 EUR` |');
    expect(md.stdout).toContain('**Total:** `0.29 EUR`');

    emu.state.priceList.price_status = 'hide';
    const hidden = await runCliInProcess(['cost', stack, '--until', '2026-01-03'], { env: emulatorEnv(emu) });
    expect(hidden.stdout).toContain("floatingip in region 76: hidden by the account's plan");
    expect(hidden.stdout).toContain("Total: hidden by the account's plan");
  });

  it('reports every stack of a fleet with --stacks, and says why a stack without a name has no spend, sending nothing for it', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const root = writeStackFiles({
      'a/stack.yaml': stackYaml('alpha'),
      'b/stack.yaml': `version: 1\nresources:\n  ip:\n    type: cloud_floating_ip\n    project_id: 1\n    region_id: 76\n    floating_ip_id: ${DEMO.fip}\n`,
    });
    expect((await runCliInProcess(['apply', join(root, 'a/stack.yaml'), '--auto-approve'], { env: emulatorEnv(emu) })).code).toBe(0);
    emu.clock.advance(24 * HOUR);
    emu.requests.length = 0;
    const fleet = await runCliInProcess(['cost', '--stacks', root, '--until', '2026-01-02'], { env: emulatorEnv(emu) });
    expect(fleet.code).toBe(1);
    expect(fleet.stdout).toContain('Spend of stack "alpha"');
    expect(fleet.stdout).toContain('floatingip in region 76: 0.12 EUR');
    expect(fleet.stderr).toContain('b/stack.yaml: the stack has no name: its resources carry no ownership tag to count them by');
    expect(emu.requests.filter((r) => r.path === TOTALS)).toHaveLength(1);
  });

  it('refuses a period the cost report does not answer, and a stack name too short for its tag filter, before sending anything', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = join(writeStackFiles({ 'stack.yaml': stackYaml('ab') }), 'stack.yaml');
    const long = await runCliInProcess(['cost', stack, '--since', '40d'], { env: emulatorEnv(emu) });
    expect(long.code).toBe(1);
    expect(long.stderr).toContain('covers at most 31 days');
    const short = await runCliInProcess(['cost', stack], { env: emulatorEnv(emu) });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('stack "ab" has 2');
    expect(emu.requests.filter((r) => r.path === TOTALS)).toEqual([]);
  });
});
