/**
 * Contract of what the dns_zone and dns_rrset providers send, against the vendor's dns_api.yaml:
 * the bodies of their creates and updates validate against InputZone, InputRRSet and
 * ToggleDNSSECRequestBody, and every query a plan's reads send (the zone list filtered by name,
 * a zone's record set list) is a documented parameter of its operation.
 */
import { describe, expect, it } from 'vitest';
import { dnsRrset } from '../../../src/kinds/dns-rrset/provider.js';
import { dnsZone } from '../../../src/kinds/dns-zone/provider.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectValid, queryChecker, requestValidator } from '../../helpers/openapi.js';
import { createProviderHarness } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { providers } from '../../../src/kinds/providers.js';

const DNS = 'dns_api.yaml';
const ref = { address: 'x.y', stack: null };

const zone: ResourceAttributes['dns_zone'] = {
  name: 'Contract.Example.',
  contact: 'hm@contract.example',
  nx_ttl: 300,
  expiry: 604800,
  meta: { webhook: 'https://hook.example' },
  enabled: false,
  dnssec: true,
  ensure: 'present',
};
const rrset: ResourceAttributes['dns_rrset'] = {
  zone: 'contract.example',
  name: 'www',
  record_type: 'MX',
  ttl: 300,
  resource_records: [
    { content: ['10', 'Mx1.Contract.Example.'], meta: { countries: ['us'], weight: 3 } },
    { content: [20, 'mx2.contract.example'], enabled: false },
  ],
  pickers: [
    { type: 'geodns', strict: false },
    { type: 'first_n', limit: 1 },
  ],
  meta: { failover: { protocol: 'HTTP', port: 443, frequency: 60, timeout: 5, url: '/health', tls: true } },
  ensure: 'present',
};

describe('dns_zone and dns_rrset requests (contract)', () => {
  it('a zone create sends an InputZone, and DNSSEC a ToggleDNSSECRequestBody', () => {
    const payload = dnsZone.create!.plan(zone, ref).payload as { body: unknown; dnssec: boolean };
    expectValid(requestValidator(DNS, 'POST', '/dns/v2/zones'), payload.body);
    expect(payload.body).toMatchObject({ name: 'contract.example', enabled: false });
    expectValid(requestValidator(DNS, 'PATCH', '/dns/v2/zones/{name}/dnssec'), { enabled: payload.dnssec });
  });

  it('a zone update sends an InputZone with the live values and the declared ones over them', () => {
    const live = {
      name: 'contract.example',
      contact: 'old@contract.example',
      primary_server: 'ns1.gcore.test',
      expiry: 1,
      refresh: 2,
      retry: 3,
      nx_ttl: 4,
      meta: {},
      enabled: true,
      dnssec: false,
    };
    const planned = dnsZone.plan(zone, live);
    const body = (planned.payload as { body: unknown }).body;
    expectValid(requestValidator(DNS, 'PUT', '/dns/v2/zones/{name}'), body);
    expect(body).toMatchObject({ name: 'contract.example', primary_server: 'ns1.gcore.test', refresh: 2, contact: 'hm@contract.example', nx_ttl: 300, enabled: true });
    expect(planned.payload).toMatchObject({ enabled: false, dnssec: true });
  });

  it('a record set create and update send an InputRRSet, records normalised', () => {
    const created = (dnsRrset.create!.plan(rrset, ref).payload as { body: { resource_records: Array<{ content: unknown[] }> } }).body;
    expectValid(requestValidator(DNS, 'POST', '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}'), created);
    expect(created.resource_records.map((r) => r.content)).toEqual([
      [10, 'mx1.contract.example'],
      [20, 'mx2.contract.example'],
    ]);
    const live = {
      zone: 'contract.example',
      name: 'www.contract.example',
      record_type: 'MX',
      ttl: 60,
      resource_records: [{ content: [10, 'mx1.contract.example'] }],
      pickers: [],
      meta: {},
    };
    const updated = (dnsRrset.plan(rrset, live).payload as { body: unknown }).body;
    expectValid(requestValidator(DNS, 'PUT', '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}'), updated);
  });
});

describe('dns reads send documented queries (contract)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { resetEach: false });

  it('the zone list filtered by name and a zone record set list', async () => {
    const h = createProviderHarness(emu);
    try {
      const blocks = [
        resource('dns_zone', 'a', { name: 'example.org', ensure: 'present' }),
        resource('dns_zone', 'b', { name: 'nothing.example', ensure: 'present' }),
        resource('dns_rrset', 'r1', { ...rrset, zone: 'example.org', name: '@', record_type: 'A', resource_records: [{ content: ['203.0.113.10'] }] }),
        resource('dns_rrset', 'r2', { ...rrset, zone: 'example.org', name: 'www', record_type: 'CNAME', resource_records: [{ content: ['example.org'] }] }),
      ];
      emu.requests.length = 0;
      const read = await readStack(h.ctx, stackOf(blocks), providers, { parallelism: 4 });
      expect([...read.reads.values()].every((r) => r.ok)).toBe(true);
      const zones = queryChecker(DNS, 'GET', '/dns/v2/zones');
      const rrsets = queryChecker(DNS, 'GET', '/dns/v2/zones/{zoneName}/rrsets');
      const routes = emu.requests.map((r) => r.route).sort();
      expect(routes).toEqual(['/dns/v2/zones', '/dns/v2/zones/{zoneName}/rrsets']);
      for (const r of emu.requests) {
        const query = new URL(r.path, 'http://x').searchParams;
        expect(r.route === '/dns/v2/zones' ? zones(query) : rrsets(query)).toEqual([]);
      }
    } finally {
      await h.close();
    }
  });
});
