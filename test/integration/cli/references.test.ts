import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * References between resources, through the CLI in-process against the emulator: a value known
 * at plan time is resolved and diffed; one only known after apply shows `(known after apply)`,
 * is marked in the JSON plan, and apply resolves it once its block is made (the example stack);
 * a saved plan with unknowns applies, an edited one is refused.
 */

let emu: TestEmulator;
let env: Record<string, string>;
useTestEmulator((started) => ([emu, env] = [started, emulatorEnv(started)]), { taskDurationMs: 0 });

const run = async (args: string[], cwd?: string): Promise<CliResult> => {
  const result = await runCliInProcess(args, { env, ...(cwd === undefined ? {} : { cwd }) });
  expect(`${result.stdout}${result.stderr}`).not.toContain(emu.apiKey);
  return result;
};
const stackFile = (yaml: string): string => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
const writes = () => emu.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route}`);
const app = (name: string) => [...emu.state.fastedgeApps.values()].find((a) => a.name === name) as unknown as { env: Record<string, string> } | undefined;
const madeIp = () => [...emu.state.floatingIps.values()].find((f) => f.tags.some((t) => t.key === 'edgeform-address' && t.value === 'cloud_floating_ip.edge'));

/** The example stack, copied (its apply lock is keyed by its path). */
function exampleCopy(): string {
  const file = join(writeStackFiles({}), 'references.yaml');
  copyFileSync('examples/references.yaml', file);
  return file;
}

describe('references between resources', () => {
  it('examples/references.yaml: plan shows the address known after apply, apply creates the IP first and the app with its address, the next plan is a no-op', async () => {
    const file = exampleCopy();
    const planned = await run(['plan', file]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('+ env: {"ORIGIN_IP":(known after apply),"ORIGIN_URL":(known after apply)}');
    expect(planned.stdout).toContain('# env.ORIGIN_IP = ${cloud_floating_ip.edge.floating_ip_address} (known after apply)');

    const json = JSON.parse((await run(['plan', file, '--format', 'json'])).stdout) as { resource_changes: Array<Record<string, unknown>> };
    const gateway = json.resource_changes.find((c) => c.address === 'fastedge_app.origin_gateway')!;
    expect(gateway.depends_on).toEqual(['cloud_floating_ip.edge']);
    expect(gateway.after_unknown).toEqual({ app_id: true, env: { ORIGIN_IP: true, ORIGIN_URL: true } });
    expect(gateway.references).toEqual([
      { path: ['env', 'ORIGIN_IP'], template: '${cloud_floating_ip.edge.floating_ip_address}' },
      { path: ['env', 'ORIGIN_URL'], template: 'http://${cloud_floating_ip.edge.floating_ip_address}:8080/' },
    ]);

    emu.requests.length = 0;
    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect(writes()).toEqual(['POST /cloud/v1/floatingips/{project_id}/{region_id}', 'POST /fastedge/v1/apps']);
    const address = madeIp()!.floating_ip_address!;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(app('origin-gateway')!.env).toEqual({ ORIGIN_IP: address, ORIGIN_URL: `http://${address}:8080/` });

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('resolves a reference to an adopted resource at plan time and diffs it as any value', async () => {
    const file = stackFile(`version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  known:
    type: cloud_floating_ip
    floating_ip_id: ${DEMO.fip}
  gw:
    type: fastedge_app
    name: known-gw
    binary: 502
    comment: "origin \${cloud_floating_ip.known.floating_ip_address}"
`);
    const planned = await run(['plan', file]);
    expect(planned.stdout).toContain('+ comment: "origin 203.0.113.10"');
    expect(planned.stdout).not.toContain('${cloud_floating_ip.known');
    expect((await run(['apply', file, '--auto-approve'])).code).toBe(0);
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('a reference to an adopted floating IP without an address is a plan error at the reference naming the source and field, and nothing is sent', async () => {
    emu.state.floatingIps.get(DEMO.fip)!.floating_ip_address = null;
    const file = stackFile(`version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  edge:
    type: cloud_floating_ip
    floating_ip_id: ${DEMO.fip}
  gw:
    type: fastedge_app
    name: bare-gw
    binary: 502
    env:
      ORIGIN_IP: \${cloud_floating_ip.edge.floating_ip_address}
`);
    emu.requests.length = 0;
    const planned = await run(['plan', file]);
    expect(planned.code).toBe(1);
    expect(`${planned.stdout}${planned.stderr}`).toContain(
      'stack.yaml:12:18: error: fastedge_app.gw: env.ORIGIN_IP: ${cloud_floating_ip.edge.floating_ip_address} has no value: cloud_floating_ip.edge exists and this apply does not change it, but the platform holds no value for its floating_ip_address',
    );
    expect(planned.stdout).not.toContain('known after apply');
    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(writes()).toEqual([]);
  });

  it('a resolved value the field refuses is a plan error at the reference, and nothing is sent', async () => {
    const file = stackFile(`version: 1
resources:
  b:
    type: fastedge_app
    app_id: 1300
  a:
    type: fastedge_app
    name: odd-gw
    binary: 502
    status: \${fastedge_app.b.binary}
`);
    emu.requests.length = 0;
    const planned = await run(['plan', file]);
    expect(planned.code).toBe(1);
    expect(`${planned.stdout}${planned.stderr}`).toMatch(/stack\.yaml:10:13: error: fastedge_app\.a: status: \$\{fastedge_app\.b\.binary\} is \d+, which /);
    expect(writes()).toEqual([]);
  });

  it('an existing app whose env reads a floating IP created in the same apply: an update known after apply, resolved when the IP is made', async () => {
    const before = stackFile(`version: 1
resources:
  gw:
    type: fastedge_app
    name: update-gw
    binary: 502
    env: { ORIGIN_IP: 192.0.2.1 }
`);
    expect((await run(['apply', before, '--auto-approve'])).code).toBe(0);
    const file = stackFile(`version: 1
name: refs
defaults: { project_id: 1, region_id: 76 }
resources:
  edge:
    type: cloud_floating_ip
  gw:
    type: fastedge_app
    name: update-gw
    binary: 502
    env:
      ORIGIN_IP: \${cloud_floating_ip.edge.floating_ip_address}
`);
    const planned = await run(['plan', file]);
    expect(planned.stdout).toContain('~ "ORIGIN_IP" = "192.0.2.1" -> (known after apply)');
    expect(planned.stdout).toContain('Plan: 1 to add, 1 to change, 0 to destroy.');
    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(app('update-gw')!.env).toEqual({ ORIGIN_IP: madeIp()!.floating_ip_address });
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('applies a saved plan whose unknowns are still unknown, and refuses one whose reference was edited (nothing sent)', async () => {
    const file = exampleCopy();
    const dir = join(file, '..');
    const saved = join(dir, 'plan.json');
    expect((await run(['plan', 'references.yaml', '--out', saved], dir)).code).toBe(0);

    const edited = join(dir, 'edited.json');
    const doc = JSON.parse(readFileSync(saved, 'utf8')) as { resource_changes: Array<{ address: string; references?: Array<{ template: string }> }> };
    doc.resource_changes.find((c) => c.address === 'fastedge_app.origin_gateway')!.references![0]!.template = '${cloud_floating_ip.edge.id}';
    writeFileSync(edited, JSON.stringify(doc));
    emu.requests.length = 0;
    const refused = await run(['apply', edited], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('fastedge_app.origin_gateway');
    expect(writes()).toEqual([]);

    const applied = await run(['apply', saved], dir);
    expect(applied.code).toBe(0);
    const address = madeIp()!.floating_ip_address!;
    expect(app('origin-gateway')!.env).toEqual({ ORIGIN_IP: address, ORIGIN_URL: `http://${address}:8080/` });
  });
});
