import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * dns_zone and dns_rrset through the CLI in process against the emulator: the whole cycle
 * (create, a plan with no changes although records are written in other spellings than the
 * platform keeps, an update, ensure: absent), and the request count of planning a zone of 1,000
 * record sets (one list, never a GET per record set).
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

const stackIn = (text: string) => join(writeStackFiles({ 'stack.yaml': text }), 'stack.yaml');

/** A zone and record sets, each record written in a spelling the platform stores differently. */
const zoneStack = (extra = '') => `version: 1
resources:
  main:
    type: dns_zone
    name: Shop.EXAMPLE.
    contact: hostmaster@shop.example
    nx_ttl: 300
  apex_a:
    type: dns_rrset
    zone: \${dns_zone.main.name}
    name: "@"
    record_type: A
    ttl: 300
    resource_records: [{ content: [198.51.100.2] }, { content: [" 192.0.2.1 "] }]
  v6:
    type: dns_rrset
    zone: \${dns_zone.main.name}
    name: WWW.shop.example.
    record_type: AAAA
    resource_records: [{ content: ["2001:DB8:0:0:0:0:0:1"] }]
  alias:
    type: dns_rrset
    zone: shop.example
    name: blog
    record_type: CNAME
    resource_records: [{ content: [Www.Shop.Example.] }]
  mail:
    type: dns_rrset
    zone: shop.example
    name: "@"
    record_type: MX
    resource_records: [{ content: ["20", mx2.shop.example.] }, { content: [10, MX1.shop.example] }]
  spf:
    type: dns_rrset
    zone: shop.example
    name: "@"
    record_type: TXT
    resource_records: [{ content: ['"v=spf1 -all"'] }]
  geo:
    type: dns_rrset
    zone: shop.example
    name: geo
    record_type: A
    pickers: [{ type: geodns, strict: false }, { type: first_n, limit: 1 }]
    resource_records:
      - content: [192.0.2.10]
        meta: { continents: [europe] }
      - content: [192.0.2.20]
        meta: { default: true }
${extra}`;

describe('dns_zone and dns_rrset through the CLI', () => {
  it('creates a zone and its record sets, plans no changes for other spellings, updates and destroys them', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const stack = stackIn(zoneStack());
    const planned = await runCliInProcess(['plan', stack], { env });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('Plan: 7 to add, 0 to change, 0 to destroy.');

    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    const zone = emu.state.dnsZones.get('shop.example')!;
    expect(zone).toMatchObject({ contact: 'hostmaster@shop.example', nx_ttl: 300 });
    expect(zone.rrsets.get('www.shop.example/AAAA')!.resource_records.map((r) => r.content)).toEqual([['2001:db8::1']]);
    expect(zone.rrsets.get('shop.example/MX')!.resource_records.map((r) => r.content)).toEqual([
      [10, 'mx1.shop.example'],
      [20, 'mx2.shop.example'],
    ]);
    expect(zone.rrsets.get('geo.shop.example/A')!.pickers).toEqual([
      { type: 'geodns', strict: false },
      { type: 'first_n', limit: 1 },
    ]);

    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toContain('No changes.');

    // An update: a record added, the TTL changed, the zone disabled.
    const updated = stackIn(
      zoneStack()
        .replace('\n    ttl: 300\n', '\n    ttl: 600\n')
        .replace('{ content: [198.51.100.2] }', '{ content: [198.51.100.2] }, { content: [203.0.113.7] }')
        .replace('nx_ttl: 300\n', 'nx_ttl: 300\n    enabled: false\n'),
    );
    const change = await runCliInProcess(['plan', updated], { env });
    expect(change.stdout, output(change)).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
    expect((await runCliInProcess(['apply', updated, '--auto-approve'], { env })).code).toBe(0);
    expect(emu.state.dnsZones.get('shop.example')!.enabled).toBe(false);
    expect(emu.state.dnsZones.get('shop.example')!.rrsets.get('shop.example/A')).toMatchObject({ ttl: 600 });
    expect((await runCliInProcess(['plan', updated, '--detailed-exitcode'], { env })).code).toBe(0);

    // Destroy: a record set, then the zone.
    const absent = stackIn(zoneStack().replace('record_type: CNAME\n', 'record_type: CNAME\n    ensure: absent\n'));
    expect((await runCliInProcess(['apply', absent, '--auto-approve'], { env })).code).toBe(0);
    expect(emu.state.dnsZones.get('shop.example')!.rrsets.has('blog.shop.example/CNAME')).toBe(false);
    const gone = stackIn('version: 1\nresources:\n  main: { type: dns_zone, name: shop.example, ensure: absent }\n');
    expect((await runCliInProcess(['apply', gone, '--auto-approve'], { env })).code).toBe(0);
    expect(emu.state.dnsZones.has('shop.example')).toBe(false);
  });

  it('examples/dns.yaml: plans a zone with A, AAAA, CNAME, MX, TXT and a geo-picker record set, applies it, and plans no changes after', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const file = join(writeStackFiles({}), 'dns.yaml');
    copyFileSync('examples/dns.yaml', file);
    const planned = await runCliInProcess(['plan', file], { env });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('Plan: 7 to add, 0 to change, 0 to destroy.');
    const applied = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    expect([...emu.state.dnsZones.get('example.net')!.rrsets.keys()].sort()).toEqual(
      ['example.net/A', 'example.net/MX', 'example.net/NS', 'example.net/SOA', 'example.net/TXT', 'blog.example.net/CNAME', 'www.example.net/A', 'www.example.net/AAAA'].sort(),
    );
    const again = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(again.code, output(again)).toBe(0);
  });

  it('prune: destroys first the record sets of a zone the stack declares that no block declares, never its apex SOA and NS, nor a zone only named literally', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const rrset = (key: string, zone: string, name: string, text: string) =>
      `  ${key}:\n    type: dns_rrset\n    zone: ${zone}\n    name: ${name}\n    record_type: TXT\n    resource_records: [{ content: ["${text}"] }]\n`;
    // Two zones, each with two record sets.
    const before = stackIn(
      'version: 1\nresources:\n  main: { type: dns_zone, name: shop.example }\n  other: { type: dns_zone, name: other.example }\n' +
        rrset('www', '${dns_zone.main.name}', 'www', 'a') +
        rrset('old', 'shop.example', 'old', 'b') +
        rrset('keep', '${dns_zone.other.name}', 'keep', 'c') +
        rrset('kept', 'other.example', 'kept', 'd'),
    );
    const created = await runCliInProcess(['apply', before, '--auto-approve'], { env });
    expect(created.code, output(created)).toBe(0);
    const zoneKeys = (zone: string) => [...emu!.state.dnsZones.get(zone)!.rrsets.keys()].sort();
    expect(zoneKeys('shop.example')).toEqual(['old.shop.example/TXT', 'shop.example/NS', 'shop.example/SOA', 'www.shop.example/TXT']);

    // shop.example is declared by a dns_zone block, other.example only named literally: only
    // shop.example's undeclared record set is pruned.
    const pruning = stackIn(
      'version: 1\nname: shop\nprune: true\nresources:\n  main: { type: dns_zone, name: shop.example }\n' +
        rrset('www', '${dns_zone.main.name}', 'www', 'a2') +
        rrset('keep', 'other.example', 'keep', 'c'),
    );
    const planned = await runCliInProcess(['plan', pruning], { env });
    expect(planned.code, output(planned)).toBe(0);
    // The zone, which no stack pruned, records this one as its pruning owner in the same apply.
    expect(planned.stdout).toContain('Plan: 0 to add, 2 to change, 1 to destroy.');
    expect(planned.stdout).toContain(`# the zone's meta records stack "shop" (dns_zone.main) as the one stack that prunes its record sets`);
    const listed = planned.stdout.split('\n').filter((l) => /^ {3}[-+~] dns_/.test(l));
    // The list of actions, then the details: what prune destroys first in both.
    expect(listed).toEqual([
      '   - dns_rrset.shop.example/old.shop.example/TXT (pruned)',
      '   ~ dns_zone.main',
      '   ~ dns_rrset.www',
      '   - dns_rrset.shop.example/old.shop.example/TXT',
      '   ~ dns_zone.main',
      '   ~ dns_rrset.www',
    ]);
    expect(planned.stdout).toContain('# no block declares it, and it is in zone shop.example, which a dns_zone block of this stack declares (prune: true)');

    const applied = await runCliInProcess(['apply', pruning, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    expect(zoneKeys('shop.example')).toEqual(['shop.example/NS', 'shop.example/SOA', 'www.shop.example/TXT']);
    expect(zoneKeys('other.example')).toEqual(['keep.other.example/TXT', 'kept.other.example/TXT', 'other.example/NS', 'other.example/SOA']);
    const again = await runCliInProcess(['plan', pruning, '--detailed-exitcode'], { env });
    expect(again.code, output(again)).toBe(0);
  });

  it('prune through a saved plan: apply PLANFILE destroys the record set the plan pruned (its change says ensure: absent)', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const rrsets = '  old: { type: dns_rrset, zone: shop.example, name: old, record_type: TXT, resource_records: [{ content: ["b"] }] }\n';
    const created = await runCliInProcess(['apply', stackIn('version: 1\nresources:\n  main: { type: dns_zone, name: shop.example }\n' + rrsets), '--auto-approve'], { env });
    expect(created.code, output(created)).toBe(0);
    const file = stackIn('version: 1\nname: shop\nprune: true\nresources:\n  main: { type: dns_zone, name: shop.example }\n');
    const saved = join(file, '..', 'plan.json');
    const planned = await runCliInProcess(['plan', file, '--out', saved], { env });
    expect(planned.stdout).toContain('- dns_rrset.shop.example/old.shop.example/TXT (pruned)');
    const applied = await runCliInProcess(['apply', saved, '--stack', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    expect([...emu.state.dnsZones.get('shop.example')!.rrsets.keys()].sort()).toEqual(['shop.example/NS', 'shop.example/SOA']);
  });
});
