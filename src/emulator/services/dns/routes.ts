import { createHash } from 'node:crypto';
import { defineCollection, type Created } from '../../collection.js';
import { formatTaskDate, isPlainObject, parseIntStrict } from '../../format.js';
import { offsetLimit } from '../../paging.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { DnsPicker, DnsResourceRecord, DnsRRSetRecord, DnsSlice, DnsZoneRecord } from './index.js';
import { DNS_PRODUCT, dnsError } from './product.js';
import { MAX_TTL, canonicalName, contentProblem, nameProblem, ownerName, pickerProblem, recordType, shortAnswer, type RRSetType } from './records.js';

type Ctx = RouteContext<DnsSlice>;

/** The platform's name servers: every new zone's primary server and apex NS records. */
export const DNS_NAME_SERVERS = ['ns1.gcorelabs.net', 'ns2.gcdn.services'] as const;
/** What a zone gets when its create leaves a setting out. */
export const ZONE_DEFAULTS = { contact: 'support@gcore.com', expiry: 1209600, refresh: 3600, retry: 3600, nx_ttl: 3600, primary_server: DNS_NAME_SERVERS[0] } as const;
/** The TTL of a record set created without one, and of the apex SOA and NS sets. */
export const DEFAULT_TTL = 300;
const APEX_TTL = 3600;

function badRequest(message: string): never {
  return fail(dnsError(400, message));
}

/** The key of a record set in its zone's map. */
export function rrsetKey(name: string, type: string): string {
  return `${name}/${type}`;
}

type ZoneSettings = Partial<Pick<DnsZoneRecord, 'contact' | 'expiry' | 'refresh' | 'retry' | 'nx_ttl' | 'primary_server' | 'meta' | 'enabled'>>;

/** The apex SOA record's content from the zone's settings: [mname, rname, serial, refresh, retry, expire, minimum]. */
function soaContent(zone: DnsZoneRecord): unknown[] {
  return [zone.primary_server, zone.contact.replace('@', '.'), zone.serial, zone.refresh, zone.retry, zone.expiry, zone.nx_ttl];
}

/** A zone as the platform creates it: the given settings over the defaults, the serial the creation time in seconds, SOA and NS record sets at the apex. */
export function newZone(slice: DnsSlice, z: { id: number; name: string; now: number; given: ZoneSettings; serial?: number | undefined }): DnsZoneRecord {
  const defined = Object.fromEntries(Object.entries(z.given).filter(([, v]) => v !== undefined)) as ZoneSettings;
  const zone: DnsZoneRecord = {
    id: z.id,
    name: z.name,
    ...ZONE_DEFAULTS,
    meta: {},
    enabled: true,
    ...defined,
    serial: z.serial ?? Math.floor(z.now / 1000),
    dnssec_enabled: false,
    dnssec_generation: 0,
    updated_at: z.now,
    rrsets: new Map(),
  };
  const apex = (type: RRSetType, contents: unknown[][]): DnsRRSetRecord => ({
    name: zone.name,
    type,
    ttl: APEX_TTL,
    resource_records: contents.map((content) => ({ id: slice.dnsIds.record++, content, enabled: true, meta: {} })),
    pickers: [],
    meta: {},
    updated_at: z.now,
  });
  zone.rrsets.set(rrsetKey(zone.name, 'SOA'), apex('SOA', [soaContent(zone)]));
  zone.rrsets.set(
    rrsetKey(zone.name, 'NS'),
    apex(
      'NS',
      DNS_NAME_SERVERS.map((ns) => [ns]),
    ),
  );
  return zone;
}

/** After a change of the zone or one of its record sets: a higher serial (at least the time in seconds), the SOA record in step. */
function touch(zone: DnsZoneRecord, now: number): void {
  zone.serial = Math.max(zone.serial + 1, Math.floor(now / 1000));
  zone.updated_at = now;
  const soa = zone.rrsets.get(rrsetKey(zone.name, 'SOA'));
  if (soa?.resource_records[0]) soa.resource_records[0].content = soaContent(zone);
}

// ---- zones ----

function rrsetsAmount(zone: DnsZoneRecord): Record<string, unknown> {
  const sets = [...zone.rrsets.values()];
  const dynamic = sets.filter((s) => s.pickers.length > 0);
  const healthcheck = sets.filter((s) => 'failover' in s.meta || 'healthcheck' in s.meta).length;
  return { dynamic: { healthcheck, total: dynamic.length }, static: sets.length - dynamic.length, total: sets.length };
}

/**
 * A zone in the OutputZone shape (list items), with its `id`: the vendor declares it ("usually
 * omitted in response"), and the platform's zone answers carry it, so a reader must take it.
 */
function renderZone(zone: DnsZoneRecord, ctx: Ctx): Record<string, unknown> {
  return {
    client_id: ctx.state.defaults.client_id,
    contact: zone.contact,
    dnssec_enabled: zone.dnssec_enabled,
    enabled: zone.enabled,
    expiry: zone.expiry,
    id: zone.id,
    meta: structuredClone(zone.meta),
    name: zone.name,
    nx_ttl: zone.nx_ttl,
    primary_server: zone.primary_server,
    refresh: zone.refresh,
    retry: zone.retry,
    rrsets_amount: rrsetsAmount(zone),
    serial: zone.serial,
    status: zone.enabled ? 'active' : 'disabled',
  };
}

/** A zone in the ItemZoneResponse shape: its settings and the short form of every record set. */
function renderItemZone(zone: DnsZoneRecord, ctx: Ctx): Record<string, unknown> {
  const { client_id: _client, ...rest } = renderZone(zone, ctx);
  const records = [...zone.rrsets.values()].map((s) => ({ name: s.name, type: s.type, ttl: s.ttl, short_answers: s.resource_records.map((r) => shortAnswer(r.content)) }));
  return { ...rest, records };
}

function objectBody(ctx: Ctx): Record<string, unknown> {
  if (!isPlainObject(ctx.body)) badRequest('request body must be a JSON object');
  return ctx.body;
}

const UINT_FIELDS = ['expiry', 'refresh', 'retry', 'nx_ttl'] as const;

/** The settings of an InputZone body (each only when given), checked as the platform checks them. */
function zoneSettings(body: Record<string, unknown>): ZoneSettings {
  const out: ZoneSettings = {};
  for (const key of ['contact', 'primary_server'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'string') badRequest(`${key} must be a string`);
    out[key] = v;
  }
  for (const key of UINT_FIELDS) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_TTL) badRequest(`${key} must be an integer 0..${MAX_TTL}`);
    out[key] = v;
  }
  if (body.meta !== undefined) {
    if (!isPlainObject(body.meta)) badRequest('meta must be an object');
    out.meta = structuredClone(body.meta);
  }
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') badRequest('enabled must be a boolean');
    out.enabled = body.enabled;
  }
  return out;
}

function zoneName(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '') badRequest('name is required');
  const name = canonicalName(text.trim());
  const problem = nameProblem(name);
  if (problem) badRequest(`invalid zone name: ${problem}`);
  if (!name.includes('.')) badRequest(`invalid zone name: "${name}" must have at least two labels`);
  return name;
}

/** POST /dns/v2/zones: a zone with SOA and NS at its apex; 409 when one of that name exists. */
function buildZone(ctx: Ctx): Created<DnsZoneRecord> {
  const body = objectBody(ctx);
  const name = zoneName(body.name);
  const given = zoneSettings(body);
  if (ctx.state.dnsZones.has(name)) fail(dnsError(409, `zone ${name} already exists`));
  const id = Math.max(0, ...[...ctx.state.dnsZones.values()].map((z) => z.id)) + 1;
  const record = newZone(ctx.state, { id, name, now: ctx.now, given });
  return { record, logged: { ...given } };
}

function boolQuery(ctx: Ctx, name: string): boolean | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  if (text !== 'true' && text !== 'false') badRequest(`invalid query parameter ${name}: "${text}" is not a boolean`);
  return text === 'true';
}

/** A query parameter given repeated (`name=a&name=b`) or comma-separated (`name=a,b`): its values. */
function listQuery(ctx: Ctx, name: string): string[] {
  return ctx.query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function orderQuery(ctx: Ctx, fields: readonly string[], fallback: string): { field: string; sign: number } {
  const field = ctx.query.get('order_by') ?? fallback;
  if (!fields.includes(field)) badRequest(`invalid query parameter order_by: "${field}" (one of ${fields.join(', ')})`);
  const direction = ctx.query.get('order_direction') ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') badRequest(`invalid query parameter order_direction: "${direction}" (asc or desc)`);
  return { field, sign: direction === 'desc' ? -1 : 1 };
}

interface ZoneQuery {
  names: string[];
  ids: number[];
  clientIds: number[];
  caseSensitive: boolean;
  exact: boolean;
  enabled: boolean | undefined;
  status: string | null;
  dynamic: boolean | undefined;
  healthcheck: boolean | undefined;
  order: { field: string; sign: number };
}

function readZoneQuery(ctx: Ctx): ZoneQuery {
  const ints = (name: string): number[] => listQuery(ctx, name).map((text) => parseIntStrict(text) ?? badRequest(`invalid query parameter ${name}: "${text}" is not an integer`));
  return {
    names: listQuery(ctx, 'name'),
    ids: ints('id'),
    clientIds: ints('client_id'),
    caseSensitive: boolQuery(ctx, 'case_sensitive') ?? false,
    exact: boolQuery(ctx, 'exact_match') ?? false,
    enabled: boolQuery(ctx, 'enabled'),
    status: ctx.query.get('status'),
    dynamic: boolQuery(ctx, 'dynamic'),
    healthcheck: boolQuery(ctx, 'healthcheck'),
    order: orderQuery(ctx, ['name', 'id', 'serial', 'updated_at'], 'name'),
  };
}

function zoneMatches(zone: DnsZoneRecord, q: ZoneQuery, ctx: Ctx): boolean {
  if (q.names.length > 0) {
    const fold = (s: string): string => (q.caseSensitive ? s : s.toLowerCase());
    const name = fold(zone.name);
    if (!q.names.some((n) => (q.exact ? name === fold(n) : name.includes(fold(n))))) return false;
  }
  if (q.ids.length > 0 && !q.ids.includes(zone.id)) return false;
  if (q.clientIds.length > 0 && !q.clientIds.includes(ctx.state.defaults.client_id)) return false;
  if (q.enabled !== undefined && zone.enabled !== q.enabled) return false;
  if (q.status !== null && (zone.enabled ? 'active' : 'disabled') !== q.status) return false;
  const amount = rrsetsAmount(zone) as { dynamic: { total: number; healthcheck: number } };
  if (q.dynamic !== undefined && amount.dynamic.total > 0 !== q.dynamic) return false;
  if (q.healthcheck !== undefined && amount.dynamic.healthcheck > 0 !== q.healthcheck) return false;
  return true;
}

function compareBy<T>(a: T, b: T, field: string): number {
  const x = (a as Record<string, unknown>)[field] as string | number;
  const y = (b as Record<string, unknown>)[field] as string | number;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The DS record of a zone's current DNSSEC key, derived from its name and key generation (stable across runs). */
function dnssecDs(zone: DnsZoneRecord): Record<string, unknown> {
  const seed = `${zone.name}/${zone.dnssec_generation}`;
  const keyTag = createHash('sha256').update(`key-tag/${seed}`).digest().readUInt16BE(0);
  const digest = createHash('sha256').update(`digest/${seed}`).digest('hex').toUpperCase();
  const publicKey = Buffer.concat([createHash('sha256').update(`public-key-1/${seed}`).digest(), createHash('sha256').update(`public-key-2/${seed}`).digest()]).toString('base64');
  return {
    algorithm: '13',
    digest,
    digest_algorithm: 'SHA256',
    digest_type: '2',
    ds: `${zone.name}. 3600 IN DS ${keyTag} 13 2 ${digest}`,
    flags: 257,
    key_tag: keyTag,
    key_type: 'ECDSAP256SHA256',
    public_key: publicKey,
    uuid: createHash('sha1')
      .update(`dnssec/${seed}`)
      .digest('hex')
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5'),
  };
}

const empty = (): Reply => jsonReply(200, {});

/** Enable and disable: the zone's `enabled`, logged as `enable`/`disable` when it changes. */
function toggleZone(enabled: boolean) {
  return {
    method: 'PATCH' as const,
    path: `/dns/v2/zones/{name}/${enabled ? 'enable' : 'disable'}`,
    change(ctx: Ctx, zone: DnsZoneRecord): Record<string, unknown> {
      if (zone.enabled === enabled) return {};
      zone.enabled = enabled;
      touch(zone, ctx.now);
      return { enabled };
    },
    answer: empty,
  };
}

export const dnsZones = defineCollection<DnsSlice, DnsZoneRecord, undefined, ZoneQuery>({
  product: DNS_PRODUCT,
  path: '/dns/v2/zones',
  idParam: 'name',
  noun: 'zone',
  readId: (ctx) => canonicalName(ctx.params.name ?? ''),
  store: (ctx) => ctx.state.dnsZones,
  idOf: (zone) => zone.name,
  mutationKind: 'dns_zone',
  list: {
    paging: offsetLimit({ answer: ({ items, total }) => ({ zones: items, total_amount: total }) }),
    query: readZoneQuery,
    where: zoneMatches,
    order: (a, b, q) => q.order.sign * compareBy(a, b, q.order.field) || compareBy(a, b, 'name'),
    render: renderZone,
  },
  get: renderItemZone,
  create: { build: buildZone, answer: (zone) => jsonReply(200, { id: zone.id, warnings: [] }) },
  updates: [
    {
      method: 'PUT',
      change(ctx, zone) {
        const body = objectBody(ctx);
        // InputZone requires the name, on PUT too; it must be the zone's own.
        if (zoneName(body.name) !== zone.name) badRequest(`zone name cannot be changed (${zone.name})`);
        const given = zoneSettings(body);
        // Read-only: the zone's fields by the names zoneSettings gives, compared as JSON.
        const changed = Object.fromEntries(Object.entries(given).filter(([k, v]) => JSON.stringify((zone as unknown as Record<string, unknown>)[k]) !== JSON.stringify(v)));
        if (Object.keys(changed).length === 0) return {};
        Object.assign(zone, changed);
        touch(zone, ctx.now);
        return changed;
      },
      answer: empty,
    },
    toggleZone(true),
    toggleZone(false),
    {
      method: 'PATCH',
      path: '/dns/v2/zones/{name}/dnssec',
      change(ctx, zone) {
        const body = ctx.body === undefined ? {} : objectBody(ctx);
        if (typeof body.enabled !== 'boolean') badRequest('enabled must be a boolean');
        if (zone.dnssec_enabled === body.enabled) return {};
        zone.dnssec_enabled = body.enabled;
        if (body.enabled) zone.dnssec_generation++;
        touch(zone, ctx.now);
        return { dnssec_enabled: body.enabled };
      },
      answer: (zone) => jsonReply(200, zone.dnssec_enabled ? { ...dnssecDs(zone), message: 'DNSSEC enabled' } : { message: 'DNSSEC disabled' }),
    },
  ],
  delete: { answer: empty },
});

/** GET /dns/v2/zones/{name}/dnssec: the DS record while DNSSEC is on; 400 while it is off. */
function getDnssec(ctx: Ctx): Reply {
  const zone = dnsZones.find(ctx);
  if (!zone.dnssec_enabled) badRequest(`DNSSEC is not enabled for zone ${zone.name}`);
  return jsonReply(200, dnssecDs(zone));
}

// ---- record sets ----

/** A record set in the OutputRRSet shape: its name fully qualified without the trailing dot, as the vendor's example (`sub.example.com`). */
export function renderRRSet(rrset: DnsRRSetRecord): Record<string, unknown> {
  return {
    name: rrset.name,
    type: rrset.type,
    ttl: rrset.ttl,
    resource_records: rrset.resource_records.map((r) => ({ id: r.id, content: structuredClone(r.content), enabled: r.enabled, meta: structuredClone(r.meta) })),
    pickers: rrset.pickers.map((p) => ({ ...p })),
    meta: structuredClone(rrset.meta),
    updated_at: formatTaskDate(rrset.updated_at),
    warnings: [],
  };
}

interface RRSetScope {
  zone: DnsZoneRecord;
}

interface RRSetId {
  name: string;
  type: RRSetType;
}

function rrsetScope(ctx: Ctx): RRSetScope {
  const name = canonicalName(ctx.params.zoneName ?? '');
  const zone = ctx.state.dnsZones.get(name);
  if (!zone) fail(dnsError(404, `zone ${name} not found`));
  return { zone };
}

function readRRSetId(ctx: Ctx, { zone }: RRSetScope): string {
  const typeText = ctx.params.rrsetType ?? '';
  const type = recordType(typeText);
  if (!type) badRequest(`unknown record type "${typeText}"`);
  const owner = ownerName(ctx.params.rrsetName ?? '', zone.name);
  if ('error' in owner) badRequest(owner.error);
  return rrsetKey(owner.name, type);
}

function splitKey(key: string): RRSetId {
  const at = key.lastIndexOf('/');
  return { name: key.slice(0, at), type: key.slice(at + 1) as RRSetType };
}

/** The parts of an InputRRSet body, checked in the platform's order: resource records (content per type, no duplicates), ttl, pickers, meta. */
function rrsetBody(ctx: Ctx, type: RRSetType): { ttl: number; records: Array<Omit<DnsResourceRecord, 'id'>>; pickers: DnsPicker[]; meta: Record<string, unknown> } {
  const body = objectBody(ctx);
  if (type === 'SOA') badRequest('the SOA record set is managed by the zone: change it with PUT /dns/v2/zones/{name}');
  if (!Array.isArray(body.resource_records) || body.resource_records.length === 0) badRequest('resource_records must be a non-empty array');
  const seen = new Set<string>();
  const records = body.resource_records.map((rr: unknown, i: number) => {
    if (!isPlainObject(rr)) badRequest(`resource_records[${i}] must be an object`);
    const problem = contentProblem(type, rr.content);
    if (problem) badRequest(`resource_records[${i}]: ${problem}`);
    const key = JSON.stringify(rr.content);
    if (seen.has(key)) badRequest(`resource_records[${i}]: duplicate content ${key}`);
    seen.add(key);
    if (rr.enabled !== undefined && typeof rr.enabled !== 'boolean') badRequest(`resource_records[${i}].enabled must be a boolean`);
    if (rr.meta !== undefined && !isPlainObject(rr.meta)) badRequest(`resource_records[${i}].meta must be an object`);
    return {
      content: structuredClone(rr.content as unknown[]),
      enabled: (rr.enabled as boolean | undefined) ?? true,
      meta: structuredClone((rr.meta as Record<string, unknown> | undefined) ?? {}),
    };
  });
  const ttl = body.ttl ?? DEFAULT_TTL;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL) badRequest(`ttl must be an integer 0..${MAX_TTL}`);
  const pickers = body.pickers ?? [];
  if (!Array.isArray(pickers)) badRequest('pickers must be an array');
  for (const [i, picker] of pickers.entries()) {
    const problem = pickerProblem(picker);
    if (problem) badRequest(`pickers[${i}]: ${problem}`);
  }
  const meta = body.meta ?? {};
  if (!isPlainObject(meta)) badRequest('meta must be an object');
  return { ttl, records, pickers: structuredClone(pickers) as DnsPicker[], meta: structuredClone(meta) };
}

/** A CNAME shares its name with no other record set (RFC 1034), so neither may join the other. */
function checkCname(zone: DnsZoneRecord, { name, type }: RRSetId): void {
  for (const other of zone.rrsets.values()) {
    if (other.name !== name || other.type === type) continue;
    if (type === 'CNAME' || other.type === 'CNAME') badRequest(`a CNAME record set cannot share the name ${name} with other record sets (${other.type})`);
  }
}

/** Resource records of a write, keeping the id of a record whose content was already in the set. */
function withIds(ctx: Ctx, previous: DnsResourceRecord[], records: Array<Omit<DnsResourceRecord, 'id'>>): DnsResourceRecord[] {
  const ids = new Map(previous.map((r) => [JSON.stringify(r.content), r.id]));
  return records.map((r) => ({ id: ids.get(JSON.stringify(r.content)) ?? ctx.state.dnsIds.record++, ...r }));
}

function createRRSet(ctx: Ctx, zone: DnsZoneRecord, id: RRSetId): DnsRRSetRecord {
  const body = rrsetBody(ctx, id.type);
  checkCname(zone, id);
  const record: DnsRRSetRecord = { ...id, ttl: body.ttl, resource_records: withIds(ctx, [], body.records), pickers: body.pickers, meta: body.meta, updated_at: ctx.now };
  touch(zone, ctx.now);
  return record;
}

const logged = (r: DnsRRSetRecord): Record<string, unknown> => ({ ttl: r.ttl, contents: r.resource_records.map((x) => x.content) });

export const dnsRRSets = defineCollection<DnsSlice, DnsRRSetRecord, RRSetScope, { field: string; sign: number }>({
  product: DNS_PRODUCT,
  path: '/dns/v2/zones/{zoneName}/rrsets',
  itemPath: '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
  createPath: '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
  noun: 'rrset',
  notFoundName: (key) => {
    const { name, type } = splitKey(key);
    return `rrset ${name} ${type}`;
  },
  scope: rrsetScope,
  readId: readRRSetId,
  store: (_ctx, { zone }) => zone.rrsets,
  idOf: (r) => rrsetKey(r.name, r.type),
  mutationKind: 'dns_rrset',
  list: {
    paging: offsetLimit({ answer: ({ items, total }) => ({ rrsets: items, total_amount: total }) }),
    query: (ctx) => orderQuery(ctx, ['name', 'type', 'ttl'], 'name'),
    order: (a, b, q) => q.sign * compareBy(a, b, q.field) || compareBy(a, b, 'name') || compareBy(a, b, 'type'),
    render: renderRRSet,
  },
  get: renderRRSet,
  create: {
    build(ctx, scope) {
      const id = splitKey(readRRSetId(ctx, scope));
      if (scope.zone.rrsets.has(rrsetKey(id.name, id.type))) {
        if (id.type === 'SOA') badRequest('the SOA record set is managed by the zone: change it with PUT /dns/v2/zones/{name}');
        fail(dnsError(409, `rrset ${id.name} ${id.type} already exists`));
      }
      const record = createRRSet(ctx, scope.zone, id);
      return { record, logged: logged(record) };
    },
    answer: (record) => jsonReply(200, renderRRSet(record)),
  },
  delete: {
    remove(ctx, record, { zone }) {
      if (record.type === 'SOA' || (record.type === 'NS' && record.name === zone.name))
        badRequest(`the ${record.type} record set at the apex of ${zone.name} cannot be deleted; it goes with the zone`);
      zone.rrsets.delete(rrsetKey(record.name, record.type));
      touch(zone, ctx.now);
    },
    answer: empty,
  },
});

/** PUT on a record set: "Create/update RRset": replaces its TTL, records, pickers and meta, or creates it. */
function putRRSet(ctx: Ctx): Reply {
  const scope = rrsetScope(ctx);
  const key = readRRSetId(ctx, scope);
  const { zone } = scope;
  const existing = zone.rrsets.get(key);
  if (!existing) {
    const record = createRRSet(ctx, zone, splitKey(key));
    zone.rrsets.set(key, record);
    ctx.state.recordMutation(ctx.now, 'dns_rrset', key, 'create', logged(record));
    return jsonReply(200, renderRRSet(record));
  }
  const body = rrsetBody(ctx, existing.type);
  const next = { ttl: body.ttl, resource_records: withIds(ctx, existing.resource_records, body.records), pickers: body.pickers, meta: body.meta };
  const before = JSON.stringify({ ttl: existing.ttl, resource_records: existing.resource_records, pickers: existing.pickers, meta: existing.meta });
  if (JSON.stringify(next) !== before) {
    Object.assign(existing, next, { updated_at: ctx.now });
    touch(zone, ctx.now);
    ctx.state.recordMutation(ctx.now, 'dns_rrset', key, 'update', logged(existing));
  }
  return jsonReply(200, renderRRSet(existing));
}

/** Every DNS route: the zone collection, DNSSEC's DS, the record set collection and its PUT (which creates too). */
export const dnsRoutes: ServiceRoute<DnsSlice>[] = [
  ...dnsZones.routes,
  { method: 'GET', pattern: '/dns/v2/zones/{name}/dnssec', handler: getDnssec },
  ...dnsRRSets.routes,
  { method: 'PUT', pattern: '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}', handler: putRRSet },
];
