import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoFixtures, emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * DNS reads and import through the CLI in process against the emulator: planning a zone of
 * 1,000 record sets costs its paged list (never a GET per record set), and what import writes
 * of applied zones and record sets plans no changes.
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

/** Starts the demo world and applies examples/dns.yaml to it; the emulator and the CLI's environment for it. */
async function withDnsExample(): Promise<{ emu: TestEmulator; env: Record<string, string> }> {
  const started = await startTestEmulator({});
  emu = started;
  const env = emulatorEnv(started);
  const file = join(writeStackFiles({}), 'dns.yaml');
  copyFileSync('examples/dns.yaml', file);
  expect((await runCliInProcess(['apply', file, '--auto-approve'], { env })).code).toBe(0);
  return { emu: started, env };
}

const stackIn = (text: string) => join(writeStackFiles({ 'stack.yaml': text }), 'stack.yaml');

describe('DNS reads and import', () => {
  it('plans a zone of 1,000 record sets with one paged list of them (2 pages of 1,000: 0.002 requests a record set), never a GET each', async () => {
    const count = 1000;
    const fixtures = demoFixtures() as ReturnType<typeof demoFixtures> & { dns_zones?: unknown[] };
    const rrsets = Array.from({ length: count }, (_, i) => ({
      name: `host-${i}`,
      type: 'A',
      ttl: 60,
      resource_records: [{ content: [`10.0.${Math.floor(i / 250)}.${i % 250}`] }],
    }));
    fixtures.dns_zones = [...(fixtures.dns_zones ?? []), { name: 'big.example', rrsets }];
    emu = await startTestEmulator({ fixtures });
    const blocks = rrsets.map(
      (r, i) =>
        `  h${i}: { type: dns_rrset, zone: big.example, name: ${r.name}, record_type: A, ttl: 60, resource_records: [{ content: [${r.resource_records[0]!.content[0]!}] }] }`,
    );
    const stack = stackIn(`version: 1\nresources:\n${blocks.join('\n')}\n`);
    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: emulatorEnv(emu) });
    expect(planned.code, output(planned)).toBe(0);
    const requests = emu.requests.slice(from).map((r) => `${r.method} ${r.route}`);
    // The zone holds 1,002 record sets (its apex SOA and NS besides the 1,000): two pages.
    expect(requests).toEqual(['GET /dns/v2/zones/{zoneName}/rrsets', 'GET /dns/v2/zones/{zoneName}/rrsets']);
    expect(requests.length / count).toBeLessThanOrEqual(0.01);
  });

  it('plans 1,000 record sets of a zone the platform does not have yet with one list answered 404, never a GET each', async () => {
    emu = await startTestEmulator({});
    const blocks = Array.from(
      { length: 1000 },
      (_, i) => `  h${i}: { type: dns_rrset, zone: new.example, name: host-${i}, record_type: A, resource_records: [{ content: [10.0.0.${i % 250}] }] }`,
    );
    const stack = stackIn(`version: 1\nresources:\n  zone: { type: dns_zone, name: new.example }\n${blocks.join('\n')}\n`);
    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', stack], { env: emulatorEnv(emu) });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('Plan: 1001 to add, 0 to change, 0 to destroy.');
    const requests = emu.requests.slice(from).map((r) => `${r.method} ${r.route} ${r.status}`);
    expect(requests).toEqual(['GET /dns/v2/zones/{name} 404', 'GET /dns/v2/zones/{zoneName}/rrsets 404']);
  });

  it('applies record set creates, updates and deletes with one request each: each answer confirms its change, so no list of the zone is read to confirm (issue 33)', async () => {
    const count = 60;
    const fixtures = demoFixtures() as ReturnType<typeof demoFixtures> & { dns_zones?: unknown[] };
    // The zone holds sets 0-19 (with another TTL: updated), 60-79 (not declared: deleted); 20-59 are created.
    const held = (i: number) => ({ name: `host-${i}`, type: 'A', ttl: 600, resource_records: [{ content: [`10.0.0.${i}`] }] });
    fixtures.dns_zones = [
      ...(fixtures.dns_zones ?? []),
      { name: 'apply.example', rrsets: [...Array.from({ length: 20 }, (_, i) => held(i)), ...Array.from({ length: 20 }, (_, i) => held(60 + i))] },
    ];
    emu = await startTestEmulator({ fixtures });
    const block = (i: number) => `  h${i}: { type: dns_rrset, zone: apply.example, name: host-${i}, record_type: A, ttl: 60, resource_records: [{ content: [10.0.0.${i}] }] }`;
    const gone = (i: number) =>
      `  g${i}: { type: dns_rrset, zone: apply.example, name: host-${i}, record_type: A, resource_records: [{ content: [10.0.0.${i}] }], ensure: absent }`;
    const stack = stackIn(`version: 1\nresources:\n${[...Array.from({ length: count }, (_, i) => block(i)), ...Array.from({ length: 20 }, (_, i) => gone(60 + i))].join('\n')}\n`);
    const from = emu.requests.length;
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(applied.code, output(applied)).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 40 added, 20 changed, 20 destroyed.');
    const requests = emu.requests.slice(from).map((r) => `${r.method} ${r.route}`);
    const counts = Object.fromEntries([...new Set(requests)].map((r) => [r, requests.filter((x) => x === r).length]));
    // The zone's list: once for the plan, once for the reads before acting (asked for together); the
    // account's zones once, which the plan checks each record set to create against; then one write a change.
    expect(counts).toEqual({
      'GET /dns/v2/zones': 1,
      'GET /dns/v2/zones/{zoneName}/rrsets': 2,
      'POST /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}': 40,
      'PUT /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}': 20,
      'DELETE /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}': 20,
    });
    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: emulatorEnv(emu) });
    expect(again.code, output(again)).toBe(0);
  });

  it('imports the zones and record sets it applied (import --all) into a stack that plans no changes', async () => {
    const { env } = await withDnsExample();
    const out = join(writeStackFiles({}), 'imported.yaml');
    const imported = await runCliInProcess(['import', 'dns_zone', '--out', out], { env });
    expect(imported.code, output(imported)).toBe(0);
    const all = await runCliInProcess(['import', '--all', '--reseller-id', '7', '--out', out, '--force'], { env });
    expect(all.code, output(all)).toBe(0);
    const plan = await runCliInProcess(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, output(plan)).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('import dns_zone --name: the zone named and its record sets, each naming it by reference, in a stack that plans no changes', async () => {
    const { emu, env } = await withDnsExample();
    const out = join(writeStackFiles({}), 'imported.yaml');
    const before = emu.requests.length;
    const imported = await runCliInProcess(['import', 'dns_zone', '--name', 'Example.NET.', '--out', out], { env });
    expect(imported.code, output(imported)).toBe(0);
    // Only the named zone's record sets are listed (not example.org's).
    const rrsetLists = emu.requests.slice(before).filter((r) => r.method === 'GET' && r.path.includes('/rrsets'));
    expect(new Set(rrsetLists.map((r) => r.path.split('?')[0]))).toEqual(new Set(['/dns/v2/zones/example.net/rrsets']));
    const text = readFileSync(out, 'utf8');
    // The demo world's example.org is not named: neither it nor its record sets are written.
    expect(text).not.toContain('example.org');
    expect(text.match(/type: dns_zone/g)).toHaveLength(1);
    // examples/dns.yaml's six record sets (SOA and apex NS are the zone's), each naming the zone by reference.
    expect(text.match(/type: dns_rrset/g)).toHaveLength(6);
    expect(text.match(/zone: "\$\{dns_zone\.example_net\.name\}"/g)).toHaveLength(6);
    const plan = await runCliInProcess(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, output(plan)).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    const all = await runCliInProcess(['import', '--all', '--name', 'example.net'], { env });
    expect(all.code).toBe(1);
    expect(all.stderr).toContain('--name applies to one KIND, not to --all');
  });

  it('import dns_zone --name --records-file: the zone with its record sets in a zone file beside the stack, which plans no changes', async () => {
    const { env } = await withDnsExample();
    const dir = writeStackFiles({});
    const out = join(dir, 'imported.yaml');
    const imported = await runCliInProcess(['import', 'dns_zone', '--name', 'example.net', '--records-file', '--out', out], { env });
    expect(imported.code, output(imported)).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('records_file: zones/example.net.zone');
    // The geo record set has pickers and meta, which a zone file cannot hold: it stays a block.
    expect(text.match(/type: dns_rrset/g)).toHaveLength(1);
    const zone = readFileSync(join(dir, 'zones/example.net.zone'), 'utf8');
    expect(zone).toContain('$ORIGIN example.net.');
    expect(zone).toMatch(/^blog 300 IN CNAME www\.example\.net\.$/m);
    expect(zone).toMatch(/^@ 300 IN MX 10 mx1\.example\.net\.$/m);
    const plan = await runCliInProcess(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, output(plan)).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    const refused = await runCliInProcess(['import', 'dns_rrset', '--records-file', '--out', join(dir, 'x.yaml')], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--records-file applies only to import dns_zone --out FILE');
  });
});
