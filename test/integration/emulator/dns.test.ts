/**
 * Behaviour of the emulator's DNS service beyond the vendor's shapes (those are in
 * contract-dns.test.ts): paging across pages, filters, names given relative or fully
 * qualified, the serial and SOA, the refusals, the mutation log, the state dump, reset and the
 * fixtures checks.
 */
import { describe, expect, it } from 'vitest';
import { EmulatorFixturesError, loadFixtures, type EmulatorFixtures } from '../../../src/emulator/index.js';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const ZONES = 23;
const FIXTURES: EmulatorFixtures = {
  dns_zones: [
    ...Array.from({ length: ZONES }, (_, i) => ({ name: `zone-${String(i).padStart(2, '0')}.example`, enabled: i % 2 === 0 })),
    {
      name: 'big.example',
      serial: 100,
      rrsets: Array.from({ length: 250 }, (_, i) => ({ name: `host-${String(i).padStart(3, '0')}`, type: 'A', resource_records: [{ content: [`192.0.2.${i % 250}`] }] })),
    },
  ],
};

let emu: TestEmulator;
useTestEmulator((started) => (emu = started), { fixtures: FIXTURES, control: true });

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function refused(method: string, path: string, body: unknown, status: number, error: string | RegExp): Promise<void> {
  const res = await emu.call(method, path, { body });
  expect(res.status, res.text).toBe(status);
  expect(res.body.error).toMatch(error);
}

describe('DNS zones', () => {
  it('pages the zone list: every zone once, in name order, each page with the total', async () => {
    const names: string[] = [];
    for (let offset = 0; ; offset += 10) {
      const page = await ok('GET', `/dns/v2/zones?limit=10&offset=${offset}`);
      expect(page.total_amount).toBe(ZONES + 1);
      names.push(...page.zones.map((z: any) => z.name));
      if (page.zones.length < 10) break;
    }
    expect(names).toHaveLength(ZONES + 1);
    expect(names).toEqual([...names].sort());
    expect((await ok('GET', '/dns/v2/zones')).zones).toHaveLength(ZONES + 1);
    expect((await ok('GET', '/dns/v2/zones?offset=100')).zones).toEqual([]);
  });

  it('filters by name (part, any case, several, comma-separated), exactly, by enabled, and orders descending', async () => {
    const names = async (query: string): Promise<string[]> => (await ok('GET', `/dns/v2/zones?${query}`)).zones.map((z: any) => z.name);
    expect(await names('name=ZONE-0')).toHaveLength(10);
    expect(await names('name=zone-01.example,zone-02.example&exact_match=true')).toEqual(['zone-01.example', 'zone-02.example']);
    expect(await names('name=ZONE-01.EXAMPLE&exact_match=true&case_sensitive=true')).toEqual([]);
    expect(await names('name=zone-1&enabled=false')).toEqual(['zone-11.example', 'zone-13.example', 'zone-15.example', 'zone-17.example', 'zone-19.example']);
    expect((await names('order_direction=desc&limit=2'))[0]).toBe('zone-22.example');
    await refused('GET', '/dns/v2/zones?enabled=yes', undefined, 400, /enabled/);
    await refused('GET', '/dns/v2/zones?order_direction=up', undefined, 400, /order_direction/);
  });

  it('names a created zone in lower case without the dot, gives it the next id, and refuses one that exists in any spelling', async () => {
    expect(await ok('POST', '/dns/v2/zones', { name: 'Shop.Example.' })).toEqual({ id: ZONES + 2, warnings: [] });
    await refused('POST', '/dns/v2/zones', { name: 'SHOP.example' }, 409, 'zone shop.example already exists');
    await refused('POST', '/dns/v2/zones', { name: 'localhost' }, 400, /two labels/);
    await refused('POST', '/dns/v2/zones', [1], 400, /JSON object/);
    expect((await ok('GET', '/dns/v2/zones/SHOP.example.')).name).toBe('shop.example');
  });

  it('raises the serial and keeps the SOA in step on every change; a change of nothing changes nothing', async () => {
    const soa = async (): Promise<unknown[]> => (await ok('GET', '/dns/v2/zones/big.example/big.example/SOA')).resource_records[0].content;
    expect(await soa()).toEqual(['ns1.gcorelabs.net', 'support.gcore.com', 100, 3600, 3600, 1209600, 3600]);
    emu.clock.advance(1000);
    await ok('PUT', '/dns/v2/zones/big.example', { name: 'big.example', contact: 'dns@big.example', nx_ttl: 60 });
    const serial = (await ok('GET', '/dns/v2/zones/big.example')).serial as number;
    expect(serial).toBe(Math.floor(emu.clock.now() / 1000));
    expect(await soa()).toEqual(['ns1.gcorelabs.net', 'dns.big.example', serial, 3600, 3600, 1209600, 60]);
    await ok('PUT', '/dns/v2/zones/big.example', { name: 'BIG.example.', contact: 'dns@big.example' });
    await ok('PATCH', '/dns/v2/zones/big.example/enable');
    expect((await ok('GET', '/dns/v2/zones/big.example')).serial).toBe(serial);
    await ok('POST', '/dns/v2/zones/big.example/new/TXT', { resource_records: [{ content: ['x'] }] });
    expect((await ok('GET', '/dns/v2/zones/big.example')).serial).toBe(serial + 1);
  });

  it('disables and enables a zone (status follows), and gives a new DS after DNSSEC off and on', async () => {
    await ok('PATCH', '/dns/v2/zones/big.example/disable');
    expect(await ok('GET', '/dns/v2/zones/big.example')).toMatchObject({ enabled: false, status: 'disabled' });
    await ok('PATCH', '/dns/v2/zones/big.example/enable');
    expect(await ok('GET', '/dns/v2/zones/big.example')).toMatchObject({ enabled: true, status: 'active' });
    const first = (await ok('PATCH', '/dns/v2/zones/big.example/dnssec', { enabled: true })).ds;
    expect(await ok('PATCH', '/dns/v2/zones/big.example/dnssec', { enabled: true })).toMatchObject({ ds: first });
    await ok('PATCH', '/dns/v2/zones/big.example/dnssec', { enabled: false });
    await refused('GET', '/dns/v2/zones/big.example/dnssec', undefined, 400, 'DNSSEC is not enabled for zone big.example');
    const second = (await ok('PATCH', '/dns/v2/zones/big.example/dnssec', { enabled: true })).ds;
    expect(second).not.toBe(first);
    await emu.reset();
    expect((await ok('PATCH', '/dns/v2/zones/big.example/dnssec', { enabled: true })).ds).toBe(first);
  });
});

describe('DNS record sets', () => {
  it('pages a 252-set zone with the total on each page, every set once', async () => {
    const seen = new Set<string>();
    let requests = 0;
    for (let offset = 0; ; offset += 100) {
      const page = await ok('GET', `/dns/v2/zones/big.example/rrsets?limit=100&offset=${offset}`);
      requests++;
      expect(page.total_amount).toBe(252);
      for (const r of page.rrsets) seen.add(`${r.name} ${r.type}`);
      if (page.rrsets.length < 100) break;
    }
    expect(requests).toBe(3);
    expect(seen.size).toBe(252);
    const last = await ok('GET', '/dns/v2/zones/big.example/rrsets?order_by=name&order_direction=desc&limit=1');
    expect(last.rrsets[0].name).toBe('host-249.big.example');
  });

  it('reads one set by a relative, fully qualified, dotted or upper-case name alike', async () => {
    for (const name of ['host-001', 'host-001.big.example', 'HOST-001.BIG.EXAMPLE.', 'host-001.big.example.']) {
      expect((await ok('GET', `/dns/v2/zones/big.example/${name}/a`)).name).toBe('host-001.big.example');
    }
    expect((await ok('GET', '/dns/v2/zones/big.example/@/NS')).resource_records.map((r: any) => r.content)).toEqual([['ns1.gcorelabs.net'], ['ns2.gcdn.services']]);
  });

  it('refuses bodies as the platform does, naming the record', async () => {
    const path = '/dns/v2/zones/big.example/x/MX';
    await refused('POST', path, { resource_records: [] }, 400, 'resource_records must be a non-empty array');
    await refused('POST', path, { resource_records: [{ content: ['mail.example.com'] }] }, 400, 'resource_records[0]: content of a MX record must have 2 elements, got 1');
    await refused('POST', path, { resource_records: [{ content: [70000, 'mail.example.com'] }] }, 400, /preference 70000/);
    await refused('POST', path, { resource_records: [{ content: [10, 'a.example'] }, { content: [10, 'a.example'] }] }, 400, /resource_records\[1\]: duplicate content/);
    await refused('POST', path, { ttl: -1, resource_records: [{ content: [10, 'a.example'] }] }, 400, 'ttl must be an integer 0..2147483647');
    await refused('POST', path, { ttl: 1.5, resource_records: [{ content: [10, 'a.example'] }] }, 400, /ttl/);
    await refused('POST', '/dns/v2/zones/big.example/x/A', { resource_records: [{ content: ['192.0.2'] }] }, 400, '"192.0.2" is not an IPv4 address');
    await refused('POST', '/dns/v2/zones/big.example/x/AAAA', { resource_records: [{ content: ['2001:db8::g'] }] }, 400, /not an IPv6 address/);
    await refused('POST', '/dns/v2/zones/big.example/x/CAA', { resource_records: [{ content: [0, 'policy', 'x'] }] }, 400, /CAA tag/);
    await refused('POST', '/dns/v2/zones/big.example/x/SRV', { resource_records: [{ content: [1, 2, '443', 'x.example'] }] }, 400, /SRV priority/);
    await refused('POST', '/dns/v2/zones/big.example/bad_label-/A', { resource_records: [{ content: ['192.0.2.1'] }] }, 400, /invalid label/);
  });

  it('keeps a CNAME alone at its name, and never at the apex', async () => {
    await refused(
      'POST',
      '/dns/v2/zones/big.example/host-001/CNAME',
      { resource_records: [{ content: ['x.example.'] }] },
      400,
      /CNAME record set cannot share the name host-001.big.example/,
    );
    await refused('POST', '/dns/v2/zones/big.example/@/CNAME', { resource_records: [{ content: ['x.example.'] }] }, 400, /CNAME/);
    await ok('POST', '/dns/v2/zones/big.example/alias/CNAME', { resource_records: [{ content: ['x.example.'] }] });
    await refused('POST', '/dns/v2/zones/big.example/alias/TXT', { resource_records: [{ content: ['x'] }] }, 400, /CNAME/);
  });

  it('accepts CAA, HTTPS and wildcard names; keeps record ids for unchanged content; lets the apex NS be replaced', async () => {
    await ok('POST', '/dns/v2/zones/big.example/@/CAA', { resource_records: [{ content: [0, 'issue', 'letsencrypt.org'] }] });
    await ok('POST', '/dns/v2/zones/big.example/*/A', { resource_records: [{ content: ['192.0.2.7'] }] });
    await ok('POST', '/dns/v2/zones/big.example/svc/HTTPS', { resource_records: [{ content: [1, '.', ['alpn', 'h3', 'h2']] }] });
    const before = await ok('GET', '/dns/v2/zones/big.example/host-001/A');
    const after = await ok('PUT', '/dns/v2/zones/big.example/host-001/A', { resource_records: [{ content: ['192.0.2.1'] }, { content: ['192.0.2.200'] }] });
    expect(after.resource_records[0].id).toBe(before.resource_records[0].id);
    expect(after.resource_records[1].id).not.toBe(before.resource_records[0].id);
    await ok('PUT', '/dns/v2/zones/big.example/@/NS', { ttl: 86400, resource_records: [{ content: ['ns.other.example.'] }] });
    expect(await ok('GET', '/dns/v2/zones/big.example')).toMatchObject({ rrsets_amount: { total: 255 } });
  });

  it('logs every change once (not a PUT of equal values), dumps the state and forgets everything on reset', async () => {
    const body = { ttl: 60, resource_records: [{ content: ['192.0.2.50'] }] };
    await ok('POST', '/dns/v2/zones', { name: 'log.example' });
    await ok('POST', '/dns/v2/zones/log.example/www/A', body);
    await ok('PUT', '/dns/v2/zones/log.example/www/A', body);
    await ok('PUT', '/dns/v2/zones/log.example/www/A', { ...body, ttl: 120 });
    await ok('PATCH', '/dns/v2/zones/log.example/disable');
    await ok('DELETE', '/dns/v2/zones/log.example/www.log.example./A');
    await ok('DELETE', '/dns/v2/zones/log.example');
    expect(emu.mutations.map(({ kind, id, change, after }) => ({ kind, id, change, after }))).toEqual([
      { kind: 'dns_zone', id: 'log.example', change: 'create', after: {} },
      { kind: 'dns_rrset', id: 'www.log.example/A', change: 'create', after: { ttl: 60, contents: [['192.0.2.50']] } },
      { kind: 'dns_rrset', id: 'www.log.example/A', change: 'update', after: { ttl: 120, contents: [['192.0.2.50']] } },
      { kind: 'dns_zone', id: 'log.example', change: 'update', after: { enabled: false } },
      { kind: 'dns_rrset', id: 'www.log.example/A', change: 'delete', after: {} },
      { kind: 'dns_zone', id: 'log.example', change: 'delete', after: {} },
    ]);
    await ok('POST', '/dns/v2/zones/big.example/extra/TXT', { resource_records: [{ content: ['hello'] }] });
    const state = (await emu.call('GET', '/__emulator/state', { auth: null })).body;
    const big = state.dns_zones.find((z: any) => z.name === 'big.example');
    expect(big.rrsets.find((r: any) => r.name === 'extra.big.example')).toMatchObject({ type: 'TXT', ttl: 300, resource_records: [{ content: ['hello'], enabled: true }] });
    await emu.reset();
    expect(emu.mutations).toEqual([]);
    expect((await emu.call('GET', '/dns/v2/zones/big.example/extra/TXT')).status).toBe(404);
  });
});

describe('DNS fixtures', () => {
  it('refuses a record set outside its zone, a malformed content, a duplicate set and a duplicate zone, naming the path', () => {
    const zone = (rrsets: unknown[]): EmulatorFixtures => ({ dns_zones: [{ name: 'a.example', rrsets }] }) as EmulatorFixtures;
    expect(() => loadFixtures(zone([{ name: 'www.b.example.', type: 'A', resource_records: [{ content: ['192.0.2.1'] }] }]))).toThrow(
      /dns_zones\[0\]\.rrsets\[0\]\.name: rrset name "www\.b\.example\." is not inside zone a\.example/,
    );
    expect(() => loadFixtures(zone([{ name: 'www', type: 'A', resource_records: [{ content: ['x'] }] }]))).toThrow(
      /dns_zones\[0\]\.rrsets\[0\]\.resource_records\[0\]\.content: "x" is not an IPv4/,
    );
    const www = { name: 'www', type: 'A', resource_records: [{ content: ['192.0.2.1'] }] };
    expect(() => loadFixtures(zone([www, { ...www, name: 'WWW.a.example' }]))).toThrow(/rrsets\[1\]: duplicate record set www\.a\.example A/);
    expect(() => loadFixtures(zone([{ ...www, type: 'SOA' }]))).toThrow(EmulatorFixturesError);
    expect(() => loadFixtures({ dns_zones: [{ name: 'a.example' }, { name: 'A.example.' }] })).toThrow(/dns_zones\[1\]: duplicate id "a\.example"/);
  });
});

describe('the demo world', () => {
  it('has the zone example.org with its eight record sets (docs/demo-world.md)', async () => {
    const demo = await startTestEmulator();
    try {
      const res = await demo.call('GET', '/dns/v2/zones/example.org/rrsets');
      expect(res.status).toBe(200);
      expect(res.body.total_amount).toBe(8);
      expect(res.body.rrsets.map((r: any) => `${r.name} ${r.type} ${r.ttl}`)).toEqual([
        'api.example.org AAAA 300',
        'cdn.example.org A 60',
        'example.org A 300',
        'example.org MX 3600',
        'example.org NS 3600',
        'example.org SOA 3600',
        'example.org TXT 3600',
        'www.example.org CNAME 300',
      ]);
      const cdn = res.body.rrsets.find((r: any) => r.name === 'cdn.example.org');
      expect(cdn.pickers).toEqual([
        { type: 'geodns', strict: false },
        { type: 'first_n', limit: 1 },
      ]);
      expect((await demo.call('GET', '/dns/v2/zones/example.org')).body).toMatchObject({ contact: 'hostmaster@example.org', serial: Date.parse('2025-11-15T10:00:00Z') / 1000 });
    } finally {
      await demo.close();
    }
  });
});
