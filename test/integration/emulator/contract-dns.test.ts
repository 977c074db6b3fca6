/**
 * Contract tests of the emulator's DNS service against the vendor's dns_api.yaml: every answer
 * of every zone and record set operation validates against the response schema of the same
 * operation and status; sample requests are judged by the vendor's request schema and the
 * emulator agrees (or refuses what the schema accepts but the platform does not: an IPv4 that
 * is not one, an unknown record type). The vendor documents its errors as 400 with an `error`;
 * the emulator answers `{"error": "..."}` for them, and for the 404 and 409 the vendor leaves out.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectValid, loadSpec, queryChecker, requestValidator, responseValidator } from '../../helpers/openapi.js';

const DNS = 'dns_api.yaml';
const P = {
  zones: '/dns/v2/zones',
  zone: '/dns/v2/zones/{name}',
  enable: '/dns/v2/zones/{name}/enable',
  disable: '/dns/v2/zones/{name}/disable',
  dnssec: '/dns/v2/zones/{name}/dnssec',
  rrsets: '/dns/v2/zones/{zoneName}/rrsets',
  rrset: '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
};

export const DNS_FIXTURES: EmulatorFixtures = {
  dns_zones: [
    {
      name: 'example.com',
      updated_at: '2026-01-10T00:00:00Z',
      rrsets: [
        { name: 'www', type: 'A', ttl: 300, resource_records: [{ content: ['203.0.113.10'] }, { content: ['203.0.113.11'], enabled: false }] },
        { name: 'example.com', type: 'MX', resource_records: [{ content: [10, 'mail.example.com.'] }] },
        { name: '@', type: 'TXT', resource_records: [{ content: ['v=spf1 -all'] }] },
        {
          name: 'geo.example.com.',
          type: 'A',
          ttl: 60,
          pickers: [
            { type: 'geodns', strict: false },
            { type: 'first_n', limit: 1 },
          ],
          resource_records: [
            { content: ['198.51.100.1'], meta: { countries: ['de'], weight: 30 } },
            { content: ['198.51.100.2'], meta: { default: true } },
          ],
        },
      ],
    },
    { name: 'example.org', enabled: false, dnssec_enabled: true },
  ],
};

let emu: TestEmulator;
useTestEmulator((started) => (emu = started), { fixtures: DNS_FIXTURES });

/** Whether the vendor documents `status` for the operation. */
function documented(method: string, template: string, status: number): boolean {
  return String(status) in (loadSpec(DNS).doc.paths[template][method.toLowerCase()].responses as Record<string, unknown>);
}

/**
 * Sends a request (its body first judged by the vendor's request schema when `validBody` is
 * given) and checks the answer: a 200 against the operation's schema, an error as `{"error"}`
 * (a 400 is one the vendor documents for the operation).
 */
async function expectCall(method: string, template: string, path: string, status: number, body?: unknown, validBody?: boolean): Promise<any> {
  if (body !== undefined && validBody !== undefined) expect(requestValidator(DNS, method, template)(body), 'the vendor schema judges the sample body').toBe(validBody);
  const queryProblems = queryChecker(DNS, method, template)(new URL(path, 'http://x').searchParams);
  if (status === 200) expect(queryProblems).toEqual([]);
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(status);
  if (status === 200) expectValid(responseValidator(DNS, method, template, 200), res.body);
  else {
    if (status === 400) expect(documented(method, template, 400)).toBe(true);
    expect(res.body).toEqual({ error: expect.any(String) });
  }
  return res.body;
}

describe('zones (dns_api.yaml)', () => {
  it('GET the list answers ListZoneResponse, paged by limit and offset with the total', async () => {
    const body = await expectCall('GET', P.zones, '/dns/v2/zones?limit=1&offset=1', 200);
    expect(body.total_amount).toBe(2);
    expect(body.zones.map((z: any) => z.name)).toEqual(['example.org']);
  });
  it('GET the list filtered by several names, exactly', async () => {
    const body = await expectCall('GET', P.zones, '/dns/v2/zones?name=example.com&name=other.net&exact_match=true', 200);
    expect(body.zones.map((z: any) => z.name)).toEqual(['example.com']);
  });
  it('GET the list with a limit that is not a number (refused by the schema) answers 400', async () => {
    expect(queryChecker(DNS, 'GET', P.zones)(new URLSearchParams('limit=x'))).not.toEqual([]);
    await expectCall('GET', P.zones, '/dns/v2/zones?limit=x', 400);
  });
  it('GET the list ordered by an unknown field answers 400', () => expectCall('GET', P.zones, '/dns/v2/zones?order_by=colour', 400));

  it('POST answers CreateZoneResponse; the zone then reads as ItemZoneResponse with SOA and NS at its apex', async () => {
    const created = await expectCall('POST', P.zones, '/dns/v2/zones', 200, { name: 'New.Example.NET.', contact: 'hostmaster@example.net', nx_ttl: 600 }, true);
    expect(created).toEqual({ id: 3, warnings: [] });
    const zone = await expectCall('GET', P.zone, '/dns/v2/zones/new.example.net', 200);
    expect(zone).toMatchObject({ name: 'new.example.net', contact: 'hostmaster@example.net', nx_ttl: 600, enabled: true, dnssec_enabled: false });
    expect(zone.records.map((r: any) => `${r.name} ${r.type}`)).toEqual(['new.example.net SOA', 'new.example.net NS']);
  });
  it('POST without a name is refused by the schema and answered 400', () => expectCall('POST', P.zones, '/dns/v2/zones', 400, { contact: 'x@example.net' }, false));
  it('POST with a malformed name answers 400', () => expectCall('POST', P.zones, '/dns/v2/zones', 400, { name: 'bad..name' }, true));
  it('POST with expiry that is not an integer is refused by the schema and answered 400', () =>
    expectCall('POST', P.zones, '/dns/v2/zones', 400, { name: 'x.example.net', expiry: 'soon' }, false));
  it('POST of an existing zone answers 409', () => expectCall('POST', P.zones, '/dns/v2/zones', 409, { name: 'example.com' }, true));

  it('GET one answers ItemZoneResponse; an unknown zone 404', async () => {
    const zone = await expectCall('GET', P.zone, '/dns/v2/zones/example.com', 200);
    expect(zone.rrsets_amount).toEqual({ dynamic: { healthcheck: 0, total: 1 }, static: 5, total: 6 });
    await expectCall('GET', P.zone, '/dns/v2/zones/nothing.example', 404);
  });
  it('PUT answers UpdateZoneResponse; a change of name answers 400; an unknown zone 404', async () => {
    expect(await expectCall('PUT', P.zone, '/dns/v2/zones/example.com', 200, { name: 'example.com', refresh: 7200, meta: { team: { name: 'web' } } }, true)).toEqual({});
    await expectCall('PUT', P.zone, '/dns/v2/zones/example.com', 400, { name: 'example.net' }, true);
    await expectCall('PUT', P.zone, '/dns/v2/zones/example.com', 400, { refresh: 60 }, false);
    await expectCall('PUT', P.zone, '/dns/v2/zones/example.com', 400, { name: 'example.com', retry: -1 }, false);
    await expectCall('PUT', P.zone, '/dns/v2/zones/nothing.example', 404, { name: 'nothing.example' }, true);
  });
  it('PATCH enable and disable answer EnableZoneResponse and DisableZoneResponse', async () => {
    expect(await expectCall('PATCH', P.disable, '/dns/v2/zones/example.com/disable', 200)).toEqual({});
    expect(await expectCall('PATCH', P.enable, '/dns/v2/zones/example.org/enable', 200)).toEqual({});
    await expectCall('PATCH', P.enable, '/dns/v2/zones/nothing.example/enable', 404);
  });
  it('DNSSEC: GET while off answers 400; PATCH on answers ToggleDNSSECResponse; GET then answers GetDNSSECDSResponse', async () => {
    await expectCall('GET', P.dnssec, '/dns/v2/zones/example.com/dnssec', 400);
    const toggled = await expectCall('PATCH', P.dnssec, '/dns/v2/zones/example.com/dnssec', 200, { enabled: true }, true);
    const ds = await expectCall('GET', P.dnssec, '/dns/v2/zones/example.com/dnssec', 200);
    expect(toggled.ds).toBe(ds.ds);
    expect(ds.ds).toMatch(/^example\.com\. 3600 IN DS \d+ 13 2 [0-9A-F]{64}$/);
    await expectCall('PATCH', P.dnssec, '/dns/v2/zones/example.com/dnssec', 400, { enabled: 'yes' }, false);
    await expectCall('PATCH', P.dnssec, '/dns/v2/zones/example.com/dnssec', 200, { enabled: false }, true);
  });
  it('DELETE answers DeleteZoneResponse, then the zone is gone (404)', async () => {
    expect(await expectCall('DELETE', P.zone, '/dns/v2/zones/example.com', 200)).toEqual({});
    await expectCall('DELETE', P.zone, '/dns/v2/zones/example.com', 404);
    await expectCall('GET', P.rrsets, '/dns/v2/zones/example.com/rrsets', 404);
  });
});

describe('record sets (dns_api.yaml)', () => {
  const www = '/dns/v2/zones/example.com/www/A';
  it('GET the list answers ListRRSetResponse, paged by limit and offset with the total', async () => {
    const body = await expectCall('GET', P.rrsets, '/dns/v2/zones/example.com/rrsets?limit=2&offset=2', 200);
    expect(body.total_amount).toBe(6);
    expect(body.rrsets.map((r: any) => `${r.name} ${r.type}`)).toEqual(['example.com SOA', 'example.com TXT']);
  });
  it('GET the list of an unknown zone answers 404; a negative offset 400', async () => {
    await expectCall('GET', P.rrsets, '/dns/v2/zones/nothing.example/rrsets', 404);
    await expectCall('GET', P.rrsets, '/dns/v2/zones/example.com/rrsets?offset=-1', 400);
  });
  it('GET one answers OutputRRSet with its name fully qualified; unknown 404; an unknown type 400', async () => {
    const body = await expectCall('GET', P.rrset, '/dns/v2/zones/example.com/www.example.com./a', 200);
    expect(body).toMatchObject({
      name: 'www.example.com',
      type: 'A',
      ttl: 300,
      resource_records: [
        { content: ['203.0.113.10'], enabled: true },
        { content: ['203.0.113.11'], enabled: false },
      ],
    });
    await expectCall('GET', P.rrset, '/dns/v2/zones/example.com/www/AAAA', 404);
    await expectCall('GET', P.rrset, '/dns/v2/zones/example.com/www/XYZ', 400);
  });
  it('POST answers OutputRRSet (every record type the schema lists)', async () => {
    const samples: Array<[string, string, unknown[][]]> = [
      ['v6', 'AAAA', [['2001:db8::1']]],
      ['alias', 'CNAME', [['www.example.com.']]],
      ['sub', 'NS', [['ns1.example.net.']]],
      ['_sip._tcp', 'SRV', [[10, 5, 5060, 'sip.example.com.']]],
      ['txt', 'TXT', [['a "quoted" text; with semicolon', 'second string']]],
      [
        'mail',
        'MX',
        [
          [10, 'mx1.example.com.'],
          [20, 'mx2.example.com.'],
        ],
      ],
    ];
    for (const [name, type, contents] of samples) {
      const body = await expectCall(
        'POST',
        P.rrset,
        `/dns/v2/zones/example.com/${name}/${type}`,
        200,
        { ttl: 120, resource_records: contents.map((content) => ({ content })) },
        true,
      );
      expect(body).toMatchObject({ name: `${name}.example.com`, type, ttl: 120 });
      expect(body.resource_records.map((r: any) => r.content)).toEqual(contents);
    }
  });
  it('POST with pickers and meta answers OutputRRSet with them', async () => {
    const request = {
      ttl: 60,
      pickers: [{ type: 'geodistance' }, { type: 'first_n', limit: 2 }],
      meta: { failover: { protocol: 'HTTP', port: 80, frequency: 30, timeout: 5 } },
      resource_records: [
        { content: ['192.0.2.1'], meta: { latlong: [52.52, 13.4] } },
        { content: ['192.0.2.2'], enabled: false },
      ],
    };
    const body = await expectCall('POST', P.rrset, '/dns/v2/zones/example.com/near/A', 200, request, true);
    expect(body.pickers).toEqual(request.pickers);
    expect(body.meta).toEqual(request.meta);
  });
  it('POST of an existing record set answers 409', () => expectCall('POST', P.rrset, www, 409, { resource_records: [{ content: ['192.0.2.1'] }] }, true));
  it('POST without resource_records is refused by the schema and answered 400', () => expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/A', 400, { ttl: 60 }, false));
  it('POST with an A record that is not an IPv4 address answers 400', () =>
    expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/A', 400, { resource_records: [{ content: ['2001:db8::1'] }] }, true));
  it('POST with an AAAA record that is not an IPv6 address answers 400', () =>
    expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/AAAA', 400, { resource_records: [{ content: ['192.0.2.1'] }] }, true));
  it('POST with a TTL out of range answers 400', () =>
    expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/A', 400, { ttl: 2147483648, resource_records: [{ content: ['192.0.2.1'] }] }, true));
  it('POST with an unknown picker type is refused by the schema and answered 400', () =>
    expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/A', 400, { pickers: [{ type: 'random' }], resource_records: [{ content: ['192.0.2.1'] }] }, false));
  it('POST of an unknown record type answers 400', () => expectCall('POST', P.rrset, '/dns/v2/zones/example.com/x/WKS', 400, { resource_records: [{ content: ['x'] }] }, true));
  it('POST of a name outside the zone answers 400', () =>
    expectCall('POST', P.rrset, '/dns/v2/zones/example.com/www.example.net./A', 400, { resource_records: [{ content: ['192.0.2.1'] }] }, true));
  it('POST to an unknown zone answers 404', () => expectCall('POST', P.rrset, '/dns/v2/zones/nothing.example/x/A', 404, { resource_records: [{ content: ['192.0.2.1'] }] }, true));
  it('PUT answers OutputRRSet, replacing the records; PUT of a new record set creates it', async () => {
    const body = await expectCall('PUT', P.rrset, www, 200, { ttl: 600, resource_records: [{ content: ['203.0.113.11'] }, { content: ['203.0.113.12'] }] }, true);
    expect(body.resource_records.map((r: any) => r.content[0])).toEqual(['203.0.113.11', '203.0.113.12']);
    expect(body.ttl).toBe(600);
    const created = await expectCall('PUT', P.rrset, '/dns/v2/zones/example.com/api/A', 200, { resource_records: [{ content: ['192.0.2.9'] }] }, true);
    expect(created).toMatchObject({ name: 'api.example.com', ttl: 300 });
    await expectCall('GET', P.rrset, '/dns/v2/zones/example.com/api/A', 200);
  });
  it('PUT with malformed content answers 400 and changes nothing', async () => {
    await expectCall('PUT', P.rrset, www, 400, { resource_records: [{ content: ['203.0.113.300'] }] }, true);
    const body = await expectCall('GET', P.rrset, www, 200);
    expect(body.resource_records).toHaveLength(2);
  });
  it('DELETE answers DeleteRRSetResponse, then the record set is gone (404)', async () => {
    expect(await expectCall('DELETE', P.rrset, www, 200)).toEqual({});
    await expectCall('DELETE', P.rrset, www, 404);
  });
  it('DELETE of the apex SOA or NS answers 400; writes of SOA answer 400', async () => {
    await expectCall('DELETE', P.rrset, '/dns/v2/zones/example.com/example.com/SOA', 400);
    await expectCall('DELETE', P.rrset, '/dns/v2/zones/example.com/@/NS', 400);
    await expectCall('PUT', P.rrset, '/dns/v2/zones/example.com/@/SOA', 400, { resource_records: [{ content: ['x'] }] }, true);
    await expectCall('POST', P.rrset, '/dns/v2/zones/example.com/@/SOA', 400, { resource_records: [{ content: ['x'] }] }, true);
  });
});
