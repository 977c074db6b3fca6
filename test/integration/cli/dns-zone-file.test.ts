import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * A dns_zone's records_file through the CLI against the emulator: a zone file with errors is
 * refused at its lines and columns with nothing sent; a good one is applied as if each record
 * set were a dns_rrset block, and planned again with no changes.
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

const STACK = `version: 1
name: files
prune: true
resources:
  main:
    type: dns_zone
    name: files.example
    records_file: zones/files.example.zone
  api:
    type: dns_rrset
    zone: \${dns_zone.main.name}
    name: api
    record_type: A
    resource_records: [{ content: [192.0.2.80] }]
`;

const GOOD_ZONE = `$ORIGIN files.example.
$TTL 1h
@        IN SOA  ns1.other.example. hostmaster.files.example. ( 1 7200 3600 1209600 300 )
@        IN NS   ns1.other.example.
@           A    192.0.2.1
            MX   10 mail
            TXT  "v=spf1 -all"
www  300    AAAA 2001:DB8::1
blog        CNAME www
_sip._tcp   SRV  10 5 5060 sip.files.example.
@           CAA  0 issue "letsencrypt.org"
$ORIGIN sub.files.example.
host        A    192.0.2.9
`;

describe('dns_zone records_file through the CLI', () => {
  it('refuses a zone file with errors at their lines and columns, and sends nothing', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const bad = `$ORIGIN files.example.
$TTL 300
www      A     192.0.2.300
mail     MX    10
api      A     192.0.2.81
txt      TXT   "open
`;
    const dir = writeStackFiles({ 'stack.yaml': STACK, 'zones/files.example.zone': bad });
    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', join(dir, 'stack.yaml')], { env });
    expect(planned.code, output(planned)).toBe(1);
    const err = planned.stderr;
    expect(err).toContain('zones/files.example.zone:3:1: error: www.files.example A: "192.0.2.300" is not an IPv4 address');
    expect(err).toContain('zones/files.example.zone:4:1: error: mail.files.example MX: the content of a MX record has 2 elements (preference, host), not 1');
    expect(err).toMatch(/zones\/files\.example\.zone:5:1: error: api\.files\.example A is in .*files\.example\.zone and declared by dns_rrset\.api \(.*stack\.yaml:9:3\)/);
    expect(err).toContain('zones/files.example.zone:6:16: error: unterminated quoted string');
    expect(err).toContain('4 errors');
    expect(emu.requests.slice(from)).toEqual([]);
    const validated = await runCliInProcess(['validate', join(dir, 'stack.yaml')], {});
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain('files.example.zone:3:1: error');
  });

  it('refuses offline a TXT record of 500,000 strings (past the 65,535 octets of a DNS record), at its line, and sends nothing', async () => {
    emu = await startTestEmulator({});
    const huge = `$ORIGIN files.example.\n$TTL 300\nwww A 192.0.2.1\nbig TXT ${'"a" '.repeat(500_000)}\n`;
    const dir = writeStackFiles({ 'stack.yaml': STACK, 'zones/files.example.zone': huge });
    const from = emu.requests.length;
    const planned = await runCliInProcess(['plan', join(dir, 'stack.yaml')], { env: emulatorEnv(emu) });
    expect(planned.code, output(planned)).toBe(1);
    expect(planned.stderr).toContain(
      'zones/files.example.zone:4:1: error: big.files.example TXT: a TXT record of 500000 strings takes 1000000 octets; a DNS record holds at most 65535 (RFC 1035): split it into several records',
    );
    expect(planned.stdout).toBe('');
    expect(emu.requests.slice(from)).toEqual([]);
    const validated = await runCliInProcess(['validate', join(dir, 'stack.yaml')], {});
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain('zones/files.example.zone:4:1: error: big.files.example TXT: a TXT record of 500000 strings');
    // The code frame shows the line cut short, never the whole 2 MB of it.
    expect(validated.stderr.length).toBeLessThan(20_000);
  });

  it('plans a zone file of 2,000 record sets: the text summarises them, --format json and --out hold every change', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const records = Array.from({ length: 2_000 }, (_, i) => `h${i} A 192.0.2.${i % 250}`).join('\n');
    const dir = writeStackFiles({ 'stack.yaml': STACK, 'zones/files.example.zone': `$ORIGIN files.example.\n$TTL 300\n${records}\n` });
    const text = await runCliInProcess(['plan', join(dir, 'stack.yaml')], { env });
    expect(text.code, output(text)).toBe(0);
    expect(text.stdout).toContain('  dns_rrset: 2001 to add');
    expect(text.stdout).toContain('... 1991 more dns_rrset creates (every change: edgeform plan --format json)');
    expect(text.stdout).toContain('Plan: 2002 to add, 0 to change, 0 to destroy.');
    expect(text.stdout.length).toBeLessThan(10_000);
    const json = await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--format', 'json', '--out', join(dir, 'plan.json')], { env });
    expect(json.code, json.stderr).toBe(0);
    const document = JSON.parse(json.stdout);
    expect(document.resource_changes).toHaveLength(2_002);
    expect(document.resource_changes.filter((c: { address: string }) => c.address.startsWith('dns_rrset.files.example/h')).map((c: { address: string }) => c.address)).toHaveLength(
      2_000,
    );
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'))).toEqual(document);
  });

  it('applies the record sets of a zone file as if declared, then plans no changes', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const dir = writeStackFiles({ 'stack.yaml': STACK, 'zones/files.example.zone': GOOD_ZONE });
    const stack = join(dir, 'stack.yaml');
    const planned = await runCliInProcess(['plan', stack], { env });
    expect(planned.code, output(planned)).toBe(0);
    // The zone, the block's record set and the file's eight (SOA and apex NS are the zone's).
    expect(planned.stdout).toContain('Plan: 10 to add, 0 to change, 0 to destroy.');
    // Addressed by the set's id on the platform, ZONE/NAME/TYPE, as prune addresses a set it finds.
    expect(planned.stdout).toContain('+ dns_rrset.files.example/blog.files.example/CNAME');
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    // Apply prints each created set's id, ZONE/NAME/TYPE (two sets at the apex share a name).
    expect(applied.stdout).toMatch(/dns_rrset\.files\.example\/files\.example\/MX: Created after \d+s \[id files\.example\/files\.example\/MX, /);
    expect(applied.stdout).toMatch(/dns_rrset\.api: Created after \d+s \[id files\.example\/api\.files\.example\/A, /);
    const zone = emu.state.dnsZones.get('files.example')!;
    expect(zone.rrsets.get('blog.files.example/CNAME')!.resource_records.map((r) => r.content)).toEqual([['www.files.example']]);
    expect(zone.rrsets.get('files.example/MX')!.resource_records.map((r) => r.content)).toEqual([[10, 'mail.files.example']]);
    expect(zone.rrsets.get('www.files.example/AAAA')).toMatchObject({ ttl: 300, resource_records: [{ content: ['2001:db8::1'] }] });
    expect(zone.rrsets.get('files.example/A')).toMatchObject({ ttl: 3600 });
    expect(zone.rrsets.has('host.sub.files.example/A')).toBe(true);
    const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('refuses a CNAME beside another type at one name across blocks, a zone file record set included, at the value', async () => {
    const stack = `version: 1
resources:
  main:
    type: dns_zone
    name: files.example
    records_file: zones/files.example.zone
  alias:
    type: dns_rrset
    zone: files.example
    name: www
    record_type: CNAME
    resource_records: [{ content: [other.example] }]
  www_txt:
    type: dns_rrset
    zone: \${dns_zone.main.name}
    name: WWW.files.example.
    record_type: TXT
    resource_records: [{ content: [hello] }]
`;
    const dir = writeStackFiles({ 'stack.yaml': stack, 'zones/files.example.zone': '$TTL 300\nwww A 192.0.2.1\n' });
    const validated = await runCliInProcess(['validate', join(dir, 'stack.yaml')], {});
    expect(validated.code, output(validated)).toBe(1);
    expect(validated.stderr).toContain(
      'stack.yaml:17:18: error: dns_rrset.www_txt: record_type: a CNAME cannot stand beside other record types: www.files.example has a CNAME record set (in another block) and this TXT',
    );
    expect(validated.stderr).toMatch(/files\.example\.zone:2:1: error: dns_rrset\.files\.example\/www\.files\.example\/A: a CNAME cannot stand beside/);
    // The zone file's line is shown in a frame.
    expect(validated.stderr).toContain('> 2 | www A 192.0.2.1');
    expect(validated.stderr).toContain('2 errors');
  });
});
