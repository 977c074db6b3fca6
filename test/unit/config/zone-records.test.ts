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

async function load(zone: string) {
  const dir = writeStackFiles({ 'stack.yaml': STACK, 'zones/example.com.zone': zone });
  return loadStack(join(dir, 'stack.yaml'), {});
}

describe('dns_zone records_file: the zone file read into dns_rrset blocks at load', () => {
  it('makes each record set but the SOA and apex NS a dns_rrset block after its zone, relative names qualified with the zone as origin', async () => {
    const { stack, diagnostics } = await load(ZONE);
    expect(diagnostics).toEqual([]);
    const rrsets = stack!.resources.filter((b) => b.type === 'dns_rrset');
    expect(rrsets.map((b) => [b.address, b.dependsOn, b.attributes])).toEqual([
      [
        'dns_rrset.main/www.example.com/A',
        ['dns_zone.main'],
        { zone: 'example.com', name: 'www.example.com', record_type: 'A', ttl: 300, resource_records: [{ content: ['192.0.2.1'] }], ensure: 'present' },
      ],
      [
        'dns_rrset.main/mail.example.com/MX',
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
