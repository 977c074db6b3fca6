import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { readsSeen, sweepDocuments } from '../../helpers/fleet.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A network stack (`net`) whose floating IP a service stack (`web`) reads through `${stack:...}`. */
const NET = `version: 1
name: net
defaults: { project_id: 1, region_id: 76 }
resources:
  edge: { type: cloud_floating_ip, tags: { role: edge } }
`;
const web = (reference = '${stack:net/cloud_floating_ip.edge.floating_ip_address}') => `version: 1
name: web
defaults: { project_id: 1, region_id: 76 }
resources:
  app:
    type: cloud_floating_ip
    tags: { upstream: "${reference}" }
`;

const writes = (emu: TestEmulator) => emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/')).map((r) => `${r.method} ${r.path}`);

describe('${stack:NAME/TYPE.BLOCK.FIELD}: a field of a resource another stack owns', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);
  async function start(): Promise<Record<string, string>> {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    return emulatorEnv(emu);
  }

  it('plans the reader after the stack it reads: known after apply until that stack creates it, then its value', async () => {
    const env = await start();
    // web.yaml sorts after net.yaml: put the reader first by name, so only the reference orders them.
    const root = writeStackFiles({ 'a-web.yaml': web(), 'z-net.yaml': NET });
    const before = await runCliInProcess(['plan', '--stacks', root, '--format', 'json'], { env });
    expect(before.code, before.stdout).toBe(0);
    const docs = sweepDocuments(before.stdout);
    expect(docs.map((d) => d.name)).toEqual(['net', 'web']);
    const app = docs[1]!.resource_changes.find((c: any) => c.address === 'cloud_floating_ip.app');
    expect(app.action).toBe('create');
    expect(app.after_unknown).toMatchObject({ tags: { upstream: true } });
    expect(writes(emu!)).toEqual([]);

    const text = await runCliInProcess(['plan', '--stacks', root], { env });
    expect(text.stdout).toContain('${stack:net/cloud_floating_ip.edge.floating_ip_address} (known after apply)');

    // net applied alone: web's plan now reads the address from the platform (found by net's ownership tags).
    expect((await runCliInProcess(['apply', join(root, 'z-net.yaml'), '--auto-approve'], { env })).code).toBe(0);
    const address = [...emu!.state.floatingIps.values()].find((f) => f.tags.some((t) => t.key === 'edgeform-stack' && t.value === 'net'))!.floating_ip_address;
    emu!.requests.length = 0;
    const after = await runCliInProcess(['plan', '--stacks', root, '--format', 'json'], { env });
    expect(after.code, after.stdout).toBe(0);
    const webPlan = sweepDocuments(after.stdout).find((d) => d.name === 'web')!;
    const change = webPlan.resource_changes.find((c: any) => c.address === 'cloud_floating_ip.app');
    expect(change.after.tags).toEqual({ upstream: address });
    // net's list read serves web's reference too: one list of the place for the whole sweep.
    expect(readsSeen(emu!)).toEqual(['/cloud/v1/floatingips/1/76']);
  });

  it('refuses, located and before any request, an unknown stack, an unknown block, an unknown field and a cycle', async () => {
    const env = await start();
    const cases: Array<[string, string]> = [
      ['${stack:nett/cloud_floating_ip.edge.floating_ip_address}', 'no stack under the root is named "nett"; did you mean "net"?'],
      ['${stack:net/cloud_floating_ip.egde.floating_ip_address}', 'stack "net" declares no cloud_floating_ip.egde; did you mean "cloud_floating_ip.edge"?'],
      ['${stack:net/cloud_floating_ip.edge.address}', 'a cloud_floating_ip has no readable field "address"'],
      ['${stack:web/cloud_floating_ip.app.id}', 'it names its own stack'],
    ];
    for (const [reference, message] of cases) {
      const root = writeStackFiles({ 'net.yaml': NET, 'web.yaml': web(reference) });
      emu!.requests.length = 0;
      const run = await runCliInProcess(['drift', '--stacks', root, '--format', 'json'], { env });
      expect(run.code).toBe(1);
      const webDoc = sweepDocuments(run.stdout).find((d) => d.path === join(root, 'web.yaml'))!;
      expect(webDoc.valid).toBe(false);
      expect(webDoc.diagnostics[0]).toMatchObject({ severity: 'error', range: { filename: join(root, 'web.yaml'), start: { line: 7 } } });
      expect(webDoc.diagnostics[0].summary).toContain(message);
      // Nothing is read for the invalid stack (net alone lists its place).
      expect(readsSeen(emu!)).toEqual(['/cloud/v1/floatingips/1/76']);
    }

    const cycle = writeStackFiles({
      'net.yaml': NET.replace('tags: { role: edge }', 'tags: { role: "${stack:web/cloud_floating_ip.app.id}" }'),
      'web.yaml': web(),
    });
    emu!.requests.length = 0;
    const run = await runCliInProcess(['plan', '--stacks', cycle], { env });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('the stacks read each other in a cycle: net -> web -> net');
    expect(run.stderr + run.stdout).toContain('the stacks read each other in a cycle: web -> net -> web');
    expect(readsSeen(emu!)).toEqual([]);
  });
});

describe('${stack:...} in a stack run alone', () => {
  it('is a located plan error that names the fleet run, and apply sends nothing', async () => {
    const emu = await startTestEmulator({ taskDurationMs: 0 });
    try {
      const env = emulatorEnv(emu);
      const root = writeStackFiles({ 'net.yaml': NET, 'web.yaml': web() });
      const valid = await runCliInProcess(['validate', join(root, 'web.yaml')], { env });
      expect(valid.code, valid.stderr).toBe(0);
      const plan = await runCliInProcess(['plan', join(root, 'web.yaml')], { env });
      expect(plan.code).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(`${join(root, 'web.yaml')}:7:`);
      expect(plan.stdout + plan.stderr).toContain('stack "net" is read only in a run of the fleet');
      const apply = await runCliInProcess(['apply', join(root, 'web.yaml'), '--auto-approve'], { env });
      expect(apply.code).toBe(1);
      expect(writes(emu)).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});

describe('edgeform stacks and ${stack:...}', () => {
  it('lists the stacks each stack reads, and a reference the fleet cannot satisfy as an error of its stack, offline', async () => {
    const root = writeStackFiles({ 'net.yaml': NET, 'web.yaml': web(), 'bad.yaml': web('${stack:nett/cloud_floating_ip.edge.id}').replace('name: web', 'name: bad') });
    const run = await runCliInProcess(['stacks', root, '--format', 'json']);
    expect(run.code).toBe(1);
    const listing = JSON.parse(run.stdout) as { stacks: Array<{ name: string | null; valid: boolean; stack_reads: string[]; diagnostics: Array<{ summary: string }> }> };
    const byPath = Object.fromEntries(listing.stacks.map((s) => [s.name, s]));
    expect(byPath.web).toMatchObject({ valid: true, stack_reads: ['net'] });
    expect(byPath.net).toMatchObject({ valid: true, stack_reads: [] });
    expect(byPath.bad!.valid).toBe(false);
    expect(byPath.bad!.diagnostics[0]!.summary).toContain('no stack under the root is named "nett"');
    const text = await runCliInProcess(['stacks', root]);
    expect(text.stdout).toContain('after   net (the stacks its ${stack:...} references read)');
  });
});
