import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { contentFromRdata, rdataFromContent } from '../../../src/kinds/dns-rrset/schema.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const STACK = `version: 1
resources:
  main:
    type: dns_zone
    name: Example.COM.
    records_file: zones/example.com.zone
`;
const ZONE = '$TTL 300\n@ IN SOA ns1 hostmaster 1 2 3 4 5\n@ NS ns1.other.net.\nwww A 192.0.2.1\nmail MX 10 mx\n';
/** The zone block declaring what ZONE's SOA says, so nothing of it goes unapplied. */
const SOA_DECLARED = '    primary_server: ns1.example.com\n    contact: hostmaster@example.com\n    refresh: 2\n    retry: 3\n    expiry: 4\n    nx_ttl: 5\n';

async function load(zone: string, stack = STACK + SOA_DECLARED) {
  const dir = writeStackFiles({ 'stack.yaml': stack, 'zones/example.com.zone': zone });
  return loadStack(join(dir, 'stack.yaml'), {});
}

describe('dns_zone records_file: the zone file read into dns_rrset blocks at load', () => {
  it('keeps no list or field-source object of its own per record set: the blocks of a file share one of each (a zone file may make 174,145 of them)', async () => {
    const { stack } = await load(`${ZONE}${Array.from({ length: 50 }, (_, i) => `h${i} A 192.0.2.${i}\n`).join('')}`);
    const rrsets = stack!.resources.filter((b) => b.type === 'dns_rrset');
    expect(rrsets).toHaveLength(52);
    expect(new Set(rrsets.map((b) => b.dependsOn)).size).toBe(1);
    expect(new Set(rrsets.map((b) => b.fieldSources)).size).toBe(1);
    expect(rrsets[0]!.dependsOn).toEqual(['dns_zone.main']);
    expect(rrsets[0]!.name).toBe('example.com/www.example.com/A');
  });

  it('makes each record set but the SOA and apex NS a dns_rrset block after its zone, relative names qualified with the zone as origin', async () => {
    const { stack, diagnostics } = await load(ZONE);
    expect(diagnostics).toEqual([]);
    const rrsets = stack!.resources.filter((b) => b.type === 'dns_rrset');
    expect(rrsets.map((b) => [b.address, b.dependsOn, b.attributes])).toEqual([
      [
        'dns_rrset.example.com/www.example.com/A',
        ['dns_zone.main'],
        { zone: 'example.com', name: 'www.example.com', record_type: 'A', ttl: 300, resource_records: [{ content: ['192.0.2.1'] }], ensure: 'present' },
      ],
      [
        'dns_rrset.example.com/mail.example.com/MX',
        ['dns_zone.main'],
        { zone: 'example.com', name: 'mail.example.com', record_type: 'MX', ttl: 300, resource_records: [{ content: ['10', 'mx.example.com'] }], ensure: 'present' },
      ],
    ]);
  });

  it('makes the digest cover the zone file: another record, another digest', async () => {
    const a = await load(ZONE);
    const b = await load(ZONE.replace('192.0.2.1', '192.0.2.2'));
    const c = await load(ZONE);
    expect(a.stack!.digest).not.toBe(b.stack!.digest);
    expect(a.stack!.digest).toBe(c.stack!.digest);
  });

  it("warns of the SOA's values the zone block does not declare alike: edgeform does not send them", async () => {
    const { stack, diagnostics, files } = await load(ZONE, STACK + '    refresh: 2\n    contact: HostMaster@Example.com\n');
    expect(stack).toBeDefined();
    expect(diagnostics.map((d) => [d.severity, d.code, d.summary, d.address, `${d.range!.filename.split('/').pop()}:${d.range!.start.line}`])).toEqual([
      ['warning', 'soa-not-applied', 'example.com SOA: primary_server ns1.example.com, retry 3, expiry 4, nx_ttl 5 are not applied', 'dns_zone.main', 'example.com.zone:2'],
    ]);
    expect([...files.keys()].some((f) => f.endsWith('example.com.zone'))).toBe(true);
    expect((await load('$TTL 300\n@ IN SOA ns1 hostmaster 1 2h 3 4w 5\n', STACK)).diagnostics[0]!.summary).toBe(
      'example.com SOA: primary_server ns1.example.com, contact hostmaster@example.com, refresh 7200, retry 3, expiry 2419200, nx_ttl 5 are not applied',
    );
  });

  it("reports a zone file's own errors and the rules across blocks in one round, each at its line of the file with its frame", async () => {
    const { stack, diagnostics, files } = await load('$TTL 300\nwww CNAME web.example.com.\nwww A 192.0.2.1\nbad A 192.0.2.300\n');
    expect(stack).toBeUndefined();
    expect(diagnostics.map((d) => `${d.range!.filename.split('/').pop()}:${d.range!.start.line}:${d.range!.start.column}: ${d.summary}`)).toEqual([
      'example.com.zone:3:1: dns_rrset.example.com/www.example.com/A: a CNAME cannot stand beside other record types: www.example.com has a CNAME record set (in another block) and this A',
      'example.com.zone:4:1: bad.example.com A: "192.0.2.300" is not an IPv4 address',
    ]);
    const frameText = [...files].find(([name]) => name.endsWith('example.com.zone'))?.[1];
    expect(frameText).toContain('www A 192.0.2.1');
  });

  it('refuses a type a dns_rrset cannot hold at its line and column', async () => {
    const { stack, diagnostics } = await load('$TTL 300\nptr PTR host.example.com.\n');
    expect(stack).toBeUndefined();
    expect(diagnostics.map((d) => `${d.range!.filename.split('/').pop()}:${d.range!.start.line}:${d.range!.start.column}: ${d.summary}`)).toEqual([
      'example.com.zone:2:1: ptr.example.com PTR: a dns_rrset holds A, AAAA, NS, CNAME, MX, TXT, SRV, CAA, HTTPS, SVCB, not PTR',
    ]);
  });
});

describe('contentFromRdata', () => {
  it('qualifies the names of each type with the origin, keeps absolute ones and @', () => {
    expect(contentFromRdata('CNAME', ['www'], 'example.com')).toEqual(['www.example.com']);
    expect(contentFromRdata('NS', ['ns1.other.net.'], 'example.com')).toEqual(['ns1.other.net.']);
    expect(contentFromRdata('MX', ['10', '@'], 'example.com')).toEqual(['10', 'example.com']);
    expect(contentFromRdata('SRV', ['10', '5', '5060', 'sip'], 'example.com')).toEqual(['10', '5', '5060', 'sip.example.com']);
    expect(contentFromRdata('HTTPS', ['1', '.', 'alpn=h2,h3'], 'example.com')).toEqual(['1', '.', ['alpn', 'h2', 'h3']]);
    expect(contentFromRdata('TXT', ['a b', 'c'], 'example.com')).toEqual(['a b', 'c']);
    expect(contentFromRdata('CAA', ['0', 'issue', 'ca.example'], 'example.com')).toEqual(['0', 'issue', 'ca.example']);
  });
});

describe('rdataFromContent', () => {
  it('writes numbers as text, names absolute, HTTPS parameters as key=values, reading back as written', () => {
    const cases = [
      ['MX', [10, 'mail.example.com']],
      ['SRV', [10, 5, 5060, 'sip.example.com']],
      ['HTTPS', [1, '.', ['alpn', 'h2', 'h3']]],
      ['TXT', ['a b', 'c']],
      ['CNAME', ['www.example.com']],
    ] as const;
    expect(cases.map(([type, content]) => rdataFromContent(type, content))).toEqual([
      ['10', 'mail.example.com.'],
      ['10', '5', '5060', 'sip.example.com.'],
      ['1', '.', 'alpn=h2,h3'],
      ['a b', 'c'],
      ['www.example.com.'],
    ]);
    expect(contentFromRdata('MX', ['10', 'mail.example.com.'], 'example.com')).toEqual(['10', 'mail.example.com.']);
    expect(contentFromRdata('HTTPS', ['1', '.', 'alpn=h2,h3'], 'example.com')).toEqual(['1', '.', ['alpn', 'h2', 'h3']]);
  });
});
