import { writeFileSync } from 'node:fs';
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

describe('${stack:...} to a stack with errors of its own', () => {
  it('names that stack as invalid (it keeps its name), never "no stack is named", and lists it by name', async () => {
    const invalidNet = NET.replace('tags: { role: edge }', 'tags: { role: edge }, colour: blue');
    const root = writeStackFiles({ 'net.yaml': invalidNet, 'web.yaml': web() });
    const run = await runCliInProcess(['stacks', root, '--format', 'json']);
    expect(run.code).toBe(1);
    const listing = JSON.parse(run.stdout) as { stacks: Array<{ path: string; name: string | null; valid: boolean; diagnostics: Array<{ summary: string }> }> };
    const net = listing.stacks.find((s) => s.path.endsWith('net.yaml'))!;
    const webStack = listing.stacks.find((s) => s.path.endsWith('web.yaml'))!;
    expect(net).toMatchObject({ name: 'net', valid: false });
    expect(webStack.valid).toBe(false);
    expect(webStack.diagnostics.map((d) => d.summary)).toEqual([
      `\${stack:net/cloud_floating_ip.edge.floating_ip_address}: stack "net" (${join(root, 'net.yaml')}) is not valid: fix its errors first`,
    ]);
    const plan = await runCliInProcess(['plan', '--stacks', root]);
    expect(plan.stdout).toContain(`=== net (${join(root, 'net.yaml')}) ===`);
    expect(plan.stdout).not.toContain('did you mean');
  });

  it('suggests a name of another stack, never its own', async () => {
    const root = writeStackFiles({ 'net.yaml': NET, 'web.yaml': web('${stack:wbe/cloud_floating_ip.edge.id}') });
    const run = await runCliInProcess(['stacks', root, '--format', 'json']);
    const listing = JSON.parse(run.stdout) as { stacks: Array<{ name: string | null; diagnostics: Array<{ summary: string }> }> };
    const summary = listing.stacks.find((s) => s.name === 'web')!.diagnostics[0]!.summary;
    expect(summary).toContain('no stack under the root is named "wbe"');
    expect(summary).not.toContain('did you mean "web"');
  });
});

describe('${stack:...} to a resource its stack replaces', () => {
  // net owns the network; web puts its own subnet on it, through the network's id.
  const NETWORK = (type = '') => `version: 1
name: net
defaults: { project_id: 1, region_id: 76 }
resources:
  lan: { type: cloud_network, name: lan${type} }
`;
  const SUBNET = (ensure = '') => `version: 1
name: web
defaults: { project_id: 1, region_id: 76 }
resources:
  front: { type: cloud_subnet, name: front, network_id: "\${stack:net/cloud_network.lan.id}", cidr: 10.1.0.0/24${ensure} }
`;

  it("is refused at plan, in the stack that replaces it, while the other stack's subnet is on it; once that stack gives the subnet up, it applies", async () => {
    const emu = await startTestEmulator({ taskDurationMs: 0 });
    try {
      const env = emulatorEnv(emu);
      const root = writeStackFiles({ 'net.yaml': NETWORK(), 'web.yaml': SUBNET() });
      expect((await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env })).code).toBe(0);
      const [subnet] = emu.state.subnets.values();

      // A new network type cannot be set in place: net replaces the network web's subnet is on.
      writeFileSync(join(root, 'net.yaml'), NETWORK(', network_type: vlan'));
      emu.requests.length = 0;
      const plan = await runCliInProcess(['plan', '--stacks', root, '--format', 'json'], { env });
      expect(plan.code).toBe(1);
      const netDoc = sweepDocuments(plan.stdout).find((d) => d.name === 'net')!;
      expect(netDoc.diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          code: 'destroy-blocked',
          range: expect.objectContaining({ filename: join(root, 'net.yaml'), start: { line: 5, column: 3 } }),
          summary: `cloud_network.lan cannot be replaced (destroyed, then created again): the platform refuses to delete it while subnet ${subnet!.id} uses it, and this plan does not destroy that`,
        }),
      ]);
      const apply = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env });
      expect(apply.code).toBe(1);
      expect(apply.stdout).toContain('not started: web');
      expect(writes(emu)).toEqual([]);

      // What the error's detail says: give the subnet up with the network unchanged, apply, then change the network.
      writeFileSync(join(root, 'net.yaml'), NETWORK());
      writeFileSync(join(root, 'web.yaml'), SUBNET(', ensure: absent'));
      expect((await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env })).code).toBe(0);
      writeFileSync(join(root, 'net.yaml'), NETWORK(', network_type: vlan'));
      const replaced = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env });
      expect(replaced.code, replaced.stdout + replaced.stderr).toBe(0);
      expect([...emu.state.networks.values()].map((n) => n.type)).toEqual(['vlan']);
      expect(emu.state.subnets.size).toBe(0);
    } finally {
      await emu.close();
    }
  });
});
