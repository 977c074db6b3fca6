import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { readsSeen, sweepDocuments } from '../../helpers/fleet.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A stack named `name` with `count` floating IPs without id (found by ownership tags) in project 1, region `region`. */
const ipStack = (name: string, count: number, region = 76) =>
  `version: 1\nname: ${name}\ndefaults: { project_id: 1, region_id: ${region} }\nresources:\n${Array.from({ length: count }, (_, i) => `  ip${i}: { type: cloud_floating_ip, tags: { env: prod } }\n`).join('')}`;

describe('plan --stacks and drift --stacks: one sweep over many stacks', () => {
  const start = useCliEmulators();

  const FLEET = {
    'a.yaml': ipStack('a', 3),
    'b.yaml': ipStack('b', 3),
    'c/c.yaml': ipStack('c', 2),
    'd.yaml': ipStack('d', 2, 77),
  };

  async function appliedFleet(): Promise<{ emu: TestEmulator; root: string; env: Record<string, string> }> {
    const { emu, env } = await start();
    const root = writeStackFiles(FLEET);
    for (const file of Object.keys(FLEET)) {
      const applied = await runCliInProcess(['apply', join(root, file), '--auto-approve'], { env });
      expect(applied.code, applied.stderr).toBe(0);
    }
    emu.requests.length = 0;
    return { emu, root, env };
  }

  it('prices and quota-checks each stack with --cost and --check-quota, as a run of that stack alone does', async () => {
    const { emu, env } = await start();
    const root = writeStackFiles({ 'a.yaml': ipStack('a', 3), 'b.yaml': ipStack('b', 2) });
    const swept = await runCliInProcess(['plan', '--stacks', root, '--cost', '--check-quota'], { env });
    expect(swept.code, swept.stderr).toBe(0);
    const section = (name: string) => swept.stdout.slice(swept.stdout.indexOf(`=== ${name} (`)).split(/\n=== /)[0]!;
    expect(section('a')).toContain('+ 3 × cloud_floating_ip (ip0, ip1, ip2): 10.95 EUR/month');
    expect(section('a')).toContain('Monthly cost of the changes: 0.00 → 10.95 EUR (+10.95)');
    expect(section('b')).toContain('Monthly cost of the changes: 0.00 → 7.30 EUR (+7.30)');
    const asked = emu.requests.map((r) => `${r.method} ${r.route}`);
    // Each stack's floating IPs of one place priced in one request, its quotas read once; nothing written.
    expect(asked.filter((r) => r.includes('/pricing/'))).toHaveLength(2);
    expect(asked.filter((r) => r === 'GET /cloud/v2/client_quotas')).toHaveLength(2);
    expect(asked.filter((r) => !r.startsWith('GET ') && !r.includes('/pricing/'))).toEqual([]);
  });

  it('reads each list of a place once for the whole sweep, where separate runs read it once per stack', async () => {
    const { emu, root, env } = await appliedFleet();
    const swept = await runCliInProcess(['drift', '--stacks', root, '--format', 'json'], { env });
    expect(swept.code, swept.stderr).toBe(0);
    const docs = sweepDocuments(swept.stdout).sort((x, y) => String(x.path).localeCompare(String(y.path)));
    expect(docs.map((d) => [d.name, d.in_sync, d.exit_code])).toEqual([
      ['a', true, 0],
      ['b', true, 0],
      ['c', true, 0],
      ['d', true, 0],
    ]);
    expect(docs.map((d) => d.path)).toEqual([join(root, 'a.yaml'), join(root, 'b.yaml'), join(root, 'c/c.yaml'), join(root, 'd.yaml')]);
    // One list per place (1/76 and 1/77) for ten blocks of four stacks.
    expect(readsSeen(emu)).toEqual(['/cloud/v1/floatingips/1/76', '/cloud/v1/floatingips/1/77']);

    emu.requests.length = 0;
    for (const file of Object.keys(FLEET)) expect((await runCliInProcess(['drift', join(root, file)], { env })).code).toBe(0);
    // Separately: one list per stack (each filtered by its own name).
    expect(readsSeen(emu)).toHaveLength(4);
  });

  it('gives each stack its own result and exit code, and one stack error stops none of the others', async () => {
    const { emu, root, env } = await appliedFleet();
    // Drift in b (a tag changed on the platform), and an invalid stack beside them.
    const fip = [...emu.state.floatingIps.values()].find((f) => f.tags.some((t) => t.key === 'edgeform-stack' && t.value === 'b'))!;
    fip.tags = fip.tags.map((t) => (t.key === 'env' ? { ...t, value: 'dev' } : t));
    const broken = writeStackFiles({ ...FLEET, 'e.yaml': 'version: 1\nname: e\nresources:\n  x: { type: cloud_floating_ip, project_id: 1, region_id: 76, bogus: 1 }\n' });
    emu.requests.length = 0;

    const drift = await runCliInProcess(['drift', '--stacks', broken, '--format', 'json'], { env });
    expect(drift.code).toBe(1);
    // Results stream as stacks finish: the invalid one at once, before any request.
    const docs = sweepDocuments(drift.stdout).sort((x, y) => String(x.path).localeCompare(String(y.path)));
    expect(docs.map((d) => [d.name, d.exit_code])).toEqual([
      ['a', 0],
      ['b', 2],
      ['c', 0],
      ['d', 0],
      ['e', 1], // an invalid stack keeps its (valid) name
    ]);
    expect(docs[4]).toMatchObject({ valid: false, path: join(broken, 'e.yaml') });
    expect(readsSeen(emu)).toEqual(['/cloud/v1/floatingips/1/76', '/cloud/v1/floatingips/1/77']);

    const onlyDrift = await runCliInProcess(['drift', '--stacks', root], { env });
    expect(onlyDrift.code).toBe(2);
    expect(onlyDrift.stdout).toContain(`=== b (${join(root, 'b.yaml')}) ===`);
    expect(onlyDrift.stdout).toContain('Compared 4 stacks: 0 with errors, 1 drifted, 3 in sync.');

    const plan = await runCliInProcess(['plan', '--stacks', root, '--detailed-exitcode'], { env });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Planned 4 stacks: 0 with errors, 1 with changes, 3 without changes.');
    expect((await runCliInProcess(['plan', '--stacks', root], { env })).code).toBe(0);
  });

  it('takes one stack of a shard, and refuses a path with --stacks', async () => {
    const { root, env } = await appliedFleet();
    const all = new Set<unknown>();
    for (const shard of ['1/2', '2/2']) {
      const run = await runCliInProcess(['drift', '--stacks', root, '--shard', shard, '--format', 'json'], { env });
      expect(run.code, run.stderr).toBe(0);
      for (const d of sweepDocuments(run.stdout)) all.add(d.name);
    }
    expect([...all].sort()).toEqual(['a', 'b', 'c', 'd']);
    const both = await runCliInProcess(['plan', join(root, 'a.yaml'), '--stacks', root], { env });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('takes a stack path or --stacks ROOT, not both');
  });

  it('prunes what a stack owns and no longer declares from the shared list, and leaves the items of the other stacks alone', async () => {
    const { emu, root, env } = await appliedFleet();
    // a drops ip2 and prunes; b declares the same as before.
    writeFileSync(join(root, 'a.yaml'), ipStack('a', 2).replace('name: a', 'name: a\nprune: true'));
    const plan = await runCliInProcess(['plan', '--stacks', root, '--format', 'json', '--detailed-exitcode'], { env });
    expect(plan.code).toBe(2);
    const docs = sweepDocuments(plan.stdout);
    const changes = (name: string) =>
      (docs.find((d) => d.name === name)!.resource_changes as Array<{ address: string; action: string }>)
        .filter((c) => c.action !== 'no-op')
        .map((c) => `${c.action} ${c.address}`);
    expect(changes('a')).toEqual(['delete cloud_floating_ip.ip2']);
    expect(changes('b')).toEqual([]);
    expect(readsSeen(emu)).toEqual(['/cloud/v1/floatingips/1/76', '/cloud/v1/floatingips/1/77']);
  });

  it('fails the stacks of a place whose list cannot be read, and compares the others', async () => {
    const { emu, root, env } = await appliedFleet();
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/floatingips/1/77', status: 403, count: 1 });
    const drift = await runCliInProcess(['drift', '--stacks', root, '--format', 'json'], { env });
    expect(drift.code).toBe(1);
    const docs = sweepDocuments(drift.stdout).sort((x, y) => String(x.name).localeCompare(String(y.name)));
    expect(docs.map((d) => [d.name, d.exit_code])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['d', 1],
    ]);
  });
});
