import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../../src/config/load-stack.js';
import { writeStackFiles } from '../../../helpers/stack-files.js';

async function load(resources: string) {
  const dir = writeStackFiles({ 'stack.yaml': `version: 1\nresources:\n${resources}` });
  return loadStack(join(dir, 'stack.yaml'), {});
}
const errors = (diagnostics: readonly { severity: string; summary: string; range?: { start: { line: number; column: number } } }[]) =>
  diagnostics.filter((d) => d.severity === 'error').map((d) => [d.summary, d.range?.start.line, d.range?.start.column]);

const zone = `  main:
    type: dns_zone
    name: Example.com
`;

describe('dns_zone and dns_rrset blocks, validated offline', () => {
  it("reads a record set's zone given as a reference to a zone block's literal name, and orders it after the zone", async () => {
    const result = await load(`${zone}  www:
    type: dns_rrset
    zone: \${dns_zone.main.name}
    name: www
    record_type: A
    resource_records: [{ content: [192.0.2.1] }]
`);
    expect(errors(result.diagnostics)).toEqual([]);
    const www = result.stack!.resources.find((b) => b.address === 'dns_rrset.www')!;
    expect(www.attributes).toMatchObject({ zone: 'Example.com' });
    expect(www.dependsOn).toEqual(['dns_zone.main']);
  });

  it('still refuses a zone reference whose value is not known offline', async () => {
    const result = await load(`${zone}  www:
    type: dns_rrset
    zone: \${dns_zone.main.ds}
    name: www
    record_type: A
    resource_records: [{ content: [192.0.2.1] }]
`);
    expect(errors(result.diagnostics)).toEqual([[expect.stringContaining('zone cannot hold a reference'), 8, 11]]);
  });

  it('meets a typo in a zone reference with the did-you-mean of its address, kind or field, never "cannot hold a reference"', async () => {
    const block = (name: string, zone: string) => `  ${name}:
    type: dns_rrset
    zone: ${zone}
    name: ${name}
    record_type: A
    resource_records: [{ content: [192.0.2.1] }]
`;
    const result = await load(`${zone}${block('a', '${dns_zone.mian.name}')}${block('b', '${dns_zone.main.nmae}')}${block('c', '${dns_zon.main.name}')}`);
    expect(errors(result.diagnostics)).toEqual([
      ['${dns_zone.mian.name} refers to dns_zone.mian, which is not in the stack; did you mean "dns_zone.main"?', 8, 11],
      ['${dns_zone.main.nmae}: a dns_zone has no readable field "nmae"; did you mean "name"?', 14, 11],
      ['${dns_zon.main.name}: unknown resource type "dns_zon"; did you mean "dns_zone"?', 20, 11],
    ]);
  });

  it('locates bad names, TTLs, contents and duplicate records at the value', async () => {
    const result = await load(`  bad:
    type: dns_rrset
    zone: example.com
    name: -www
    record_type: MX
    ttl: -1
    resource_records:
      - content: [10, mail.example.com]
      - content: ["10", "Mail.Example.com."]
      - content: [mail.example.com]
  ip:
    type: dns_rrset
    zone: example.com
    name: v6
    record_type: AAAA
    resource_records: [{ content: [192.0.2.1] }]
`);
    expect(errors(result.diagnostics)).toEqual([
      [expect.stringContaining('may not start or end with "-"'), 6, 11],
      [expect.stringContaining('a TTL is 0 or more seconds'), 8, 10],
      [expect.stringContaining('the same record as resource_records[0]'), 11, 18],
      [expect.stringContaining('has 2 elements (preference, host), not 1'), 12, 18],
      [expect.stringContaining('"192.0.2.1" is not an IPv6 address'), 18, 36],
    ]);
  });

  it('checks pickers and meta against the vendor schema, with did-you-mean', async () => {
    const result = await load(`  geo:
    type: dns_rrset
    zone: example.com
    name: geo
    record_type: A
    pickers: [{ type: geodns }, { type: geo }]
    resource_records:
      - content: [192.0.2.1]
        meta: { countrys: [us] }
`);
    const found = errors(result.diagnostics);
    expect(found).toHaveLength(2);
    expect(found[0]).toEqual([expect.stringContaining('geodns'), 8, 41]);
    expect(found[1]![0]).toContain('countries');
  });

  it('refuses a CNAME at the apex or with more than one record, and a zone name with a bad label', async () => {
    const result = await load(`  apex:
    type: dns_rrset
    zone: example.com
    name: "@"
    record_type: CNAME
    resource_records: [{ content: [a.example.net] }, { content: [b.example.net] }]
  z:
    type: dns_zone
    name: exa_mple-.com
`);
    expect(errors(result.diagnostics).map(([summary]) => summary)).toEqual([
      expect.stringContaining('a CNAME cannot stand at the zone apex'),
      expect.stringContaining('a CNAME record set holds one record'),
      expect.stringContaining('may not start or end with "-"'),
    ]);
  });
});
