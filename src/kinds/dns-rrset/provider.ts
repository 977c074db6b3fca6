import { NotFoundError } from '../../api/errors.js';
import { z } from 'zod';
import { canonicalJson } from '../../model/fingerprint.js';
import type { FieldChange } from '../../plan/types.js';
import { createPlan, withCreateFacts } from '../create.js';
import { zoneList } from '../dns-zones.js';
import { knownIn, notAmong } from '../refusals.js';
import { canonicalName, ownerName } from '../dns-names.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { unprovenZone, zoneOwner, type ZoneOwnerRecord } from '../dns-owner.js';
import type { OwnerSeal } from '../owner-seal.js';
import type { OwnedResource, PlanProblem, ProviderContext, ProviderPlan, PruneListing, ResourceProvider, StackView } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import { rrsetImport } from './import.js';
import { rrsetItem, rrsetPath, zoneRrsetList, type RrsetItem } from './list.js';
import { canonicalRecords, contentText, RECORD_TYPES, type CanonicalRecord, type RecordType } from './schema.js';

type Rrset = ResourceAttributes['dns_rrset'];

/**
 * The changes between two sets of records in canonical form (canonicalRecords), each keyed by
 * its normalised content: a record only
 * desired is an add, one only live a remove, one in both whose `enabled` or `meta` differ an
 * update; `unchanged` counts the equal ones. Pure.
 */
export function diffRecords(live: readonly CanonicalRecord[], desired: readonly CanonicalRecord[]): { changes: FieldChange[]; unchanged: number } {
  // Both sides are canonical (canonicalRecords): a content is its own key, normalised already.
  const byKey = (records: readonly CanonicalRecord[]) => new Map(records.map((r) => [JSON.stringify(r.content), r]));
  const have = byKey(live);
  const want = byKey(desired);
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [key, record] of want) {
    const text = contentText(record.content);
    const before = have.get(key);
    if (before === undefined) changes.push({ path: ['resource_records', text], op: 'add', after: record });
    else if (canonicalJson(before) !== canonicalJson(record)) changes.push({ path: ['resource_records', text], op: 'update', before, after: record });
    else unchanged += 1;
  }
  for (const [key, record] of have) if (!want.has(key)) changes.push({ path: ['resource_records', contentText(record.content)], op: 'remove', before: record });
  return { changes, unchanged };
}

/** The canonical zone a block names. */
const zoneOf = (d: Rrset) => canonicalName(d.zone);
/** The fully qualified name a block names. */
const nameOf = (d: Rrset) => ownerName(d.name, d.zone);

/** The vendor's InputRRSet, as edgeform sends it (POST on create, PUT on update). */
const inputRrset = z.strictObject({
  ttl: z.int().min(0).optional(),
  resource_records: z.array(z.strictObject({ content: z.array(z.unknown()), enabled: z.boolean().optional(), meta: z.record(z.string(), z.unknown()).optional() })).min(1),
  pickers: z.array(z.record(z.string(), z.unknown())).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
const payloadSchema = z.strictObject({ body: inputRrset });

/** The observation of a record set answer. */
function stateOf(d: Rrset, item: RrsetItem): Record<string, unknown> {
  return {
    zone: zoneOf(d),
    name: canonicalName(item.name),
    record_type: item.type.toUpperCase(),
    ttl: item.ttl ?? null,
    resource_records: canonicalRecords(d.record_type, item.resource_records),
    pickers: item.pickers ?? [],
    meta: item.meta ?? {},
  };
}

/** The records a block declares, in canonical form and order. */
const declaredRecords = (d: Rrset) => canonicalRecords(d.record_type, d.resource_records);

/** A record set's reads: one GET alone, the zone's record set list (its pages) for several of one zone. */
const reads = defineListReads<'dns_rrset', RrsetItem>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(rrsetPath(zoneOf(d), nameOf(d), d.record_type), { schema: rrsetItem, signal: ctx.signal })).body),
  project: (_ctx, d, item) => ({ exists: true, state: stateOf(d, item) }),
  list: {
    group: (d) => zoneOf(d),
    memberId: (d) => `${nameOf(d)}/${d.record_type}`,
    itemId: (item) => `${canonicalName(item.name)}/${item.type.toUpperCase()}`,
    paging: zoneRrsetList.paging,
    describe: ([d]) => `GET ${zoneRrsetList.path({ zone: zoneOf(d) })}`,
    async fetchPage(ctx, [d], page) {
      try {
        return await fetchListPage(ctx, zoneRrsetList, { zone: zoneOf(d) }, page);
      } catch (error) {
        // The zone is not there (a zone the plan creates): nor is any record set of it. One list
        // answer says so for all of them, where a GET each would cost 175,000 for a zone file.
        if (error instanceof NotFoundError) return { items: [], total: 0 };
        throw error;
      }
    },
  },
});

/**
 * What a record set's create plan checks: the account's zones (one list a reading, shared by the
 * blocks), unless a dns_zone block of the stack declares its zone (created first: the record set
 * refers to it).
 */
async function createFacts(ctx: ProviderContext, d: Rrset): Promise<Record<string, unknown> | undefined> {
  if (d.ensure === 'absent') return undefined;
  const declared = (ctx.stack?.blocks('dns_zone') ?? []).some((z) => z.ensure !== 'absent' && canonicalName(z.name) === zoneOf(d));
  if (declared) return undefined;
  const zones = await listAll(ctx, zoneList, {}, (z) => canonicalName(z.name));
  const known = zones.map((z) => ({ key: canonicalName(z.name) }));
  if (!known.some((z) => z.key === zoneOf(d))) return { zones: known };
  // The record set types the zone has at the block's name (the zone's list its group read fetched: readOnce).
  const rrsets = await listAll(ctx, zoneRrsetList, { zone: zoneOf(d) }, (r) => `${canonicalName(r.name)}/${r.type.toUpperCase()}`);
  return { zones: known, types_at_name: rrsets.filter((r) => canonicalName(r.name) === nameOf(d)).map((r) => r.type.toUpperCase()) };
}

/** The plan error of a CNAME beside another type at one name, with the record sets the zone has there (RFC 1034 §3.6.2), or null. Pure. */
function cnameProblem(d: Rrset, facts: Readonly<Record<string, unknown>> | undefined): PlanProblem | null {
  const types = (facts?.types_at_name as string[] | undefined)?.filter((t) => t !== d.record_type);
  if (types === undefined || types.length === 0) return null;
  if (d.record_type !== 'CNAME' && !types.includes('CNAME')) return null;
  return {
    field: 'record_type',
    summary: `${nameOf(d)} has ${d.record_type === 'CNAME' ? `${types.join(', ')} record sets` : 'a CNAME record set'} in zone ${zoneOf(d)}, and a CNAME cannot stand beside other types`,
    detail:
      'Use another name, or delete the other record set first, in an apply of its own (a dns_rrset block with ensure: absent). The platform would refuse the create; nothing was sent.',
  };
}

/** The reads, each record set to create with the account's zones. */
const readsWithFacts = withCreateFacts(reads, createFacts);

/**
 * The answer of a POST or PUT of a record set: the vendor's OutputRRSet, the record set as the
 * platform stored it, which its reads serve from the same store (the DNS API starts no task and
 * has no read lag). It is the executor's confirming read, projected as a read's answer is.
 */
const storedAnswer = { schema: rrsetItem, observe: ({ desired: d }: { desired: Rrset }, item: RrsetItem) => ({ exists: true as const, state: stateOf(d, item) }) };

/**
 * Create (POST), update (PUT: the whole record set, harmless to repeat) and delete (404 is done);
 * no tasks. Each answer is taken as the record set's state after it (storedAnswer; a delete's 2xx
 * or 404: gone), so apply reads the zone's list to confirm none of them.
 */
const lifecycle = defineLifecycle<'dns_rrset', RrsetItem, z.infer<typeof payloadSchema>, z.infer<typeof payloadSchema>>('dns_rrset', {
  updateVerbs: ['Updating', 'Updated'],
  create: {
    payload: payloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: rrsetPath(zoneOf(d), nameOf(d), d.record_type), body: payload.body }),
    answer: storedAnswer,
  },
  update: {
    payload: payloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'PUT', path: rrsetPath(zoneOf(d), nameOf(d), d.record_type), body: payload.body }),
    answer: storedAnswer,
  },
  delete: { request: ({ desired: d }) => ({ method: 'DELETE', path: rrsetPath(zoneOf(d), nameOf(d), d.record_type) }), answersGone: true },
});

/** The InputRRSet of a block: its records (normalised), and ttl, pickers and meta as declared or, when not, as live (a PUT replaces them all). */
function bodyOf(d: Rrset, state?: Record<string, unknown>, records: CanonicalRecord[] = declaredRecords(d)): z.infer<typeof inputRrset> {
  const ttl = d.ttl ?? (typeof state?.ttl === 'number' ? state.ttl : undefined);
  const pickers = d.pickers ?? (state?.pickers as Record<string, unknown>[] | undefined);
  const meta = d.meta ?? (state?.meta as Record<string, unknown> | undefined);
  return {
    ...(ttl === undefined ? {} : { ttl }),
    resource_records: records,
    ...(pickers === undefined || (state !== undefined && d.pickers === undefined && pickers.length === 0) ? {} : { pickers }),
    ...(meta === undefined || (state !== undefined && d.meta === undefined && Object.keys(meta).length === 0) ? {} : { meta }),
  };
}

/** The platform path of a record set, as its prune address names it: ZONE/NAME/TYPE (the readable `id`). */
const rrsetId = (zone: string, name: string, type: string) => `${zone}/${name}/${type}`;

/**
 * The zones whose record sets the stack prunes: those its `dns_zone` blocks declare (not
 * `ensure: absent`) that exist and whose owner record (dns-owner.ts) names no other stack (none
 * yet: this plan writes this stack's), each with why prune must leave its record sets when the
 * record's owner mark does not prove it (EDGEFORM_OWNER_KEY set). A zone another stack prunes
 * is left out (its block's plan says so); a zone whose read failed too (its block's plan fails).
 */
function prunedZones(stack: StackView, seal: OwnerSeal | undefined): Map<string, string | undefined> {
  const zones = new Map<string, string | undefined>();
  for (const block of stack.read?.('dns_zone') ?? []) {
    if (block.attributes.ensure === 'absent' || block.observation?.exists !== true) continue;
    const state = block.observation.state;
    const owner = zoneOwner(state.owner as ZoneOwnerRecord | null, state.name as string, seal);
    if (owner !== null && owner.stack !== stack.name) continue;
    zones.set(state.name as string, owner === null ? undefined : unprovenZone(owner));
  }
  return zones;
}

/**
 * The record sets a stack owns without declaring them, for prune: those of each zone it prunes
 * (prunedZones: declared by a `dns_zone` block, not another stack's), one list per zone (a zone
 * not created yet has none), but the zone's own (its SOA, and NS at the apex) and those a block
 * declares. A zone only named by a record set's literal `zone` is not the stack's, and is not
 * listed. Each is addressed `dns_rrset.ZONE/NAME/TYPE`, which no block name can be. Run after
 * the reads, for the zones' owner records.
 */
const pruneListing: PruneListing<'dns_rrset'> = {
  afterReads: true,
  async list(ctx, declared, stack) {
    const stackName = stack?.name ?? null;
    if (stack === undefined || stackName === null) return [];
    const zones = prunedZones(stack, ctx.seal);
    const taken = new Set(declared.map((d) => rrsetId(zoneOf(d), nameOf(d), d.record_type)));
    const listed = await Promise.all(
      [...zones].map(async ([zone, unproven]) => {
        const items = (await readOrGone(() => listAll(ctx, zoneRrsetList, { zone }, (r) => `${canonicalName(r.name)}/${r.type.toUpperCase()}`))) ?? [];
        return items.flatMap((item): OwnedResource<'dns_rrset'>[] => {
          const name = canonicalName(item.name);
          const type = item.type.toUpperCase();
          if (!(RECORD_TYPES as readonly string[]).includes(type) || (type === 'NS' && name === zone) || taken.has(rrsetId(zone, name, type))) return [];
          const desired = { zone, name, record_type: type as RecordType, resource_records: canonicalRecords(type as RecordType, item.resource_records) } as Rrset;
          return [
            {
              stack: stackName,
              address: `dns_rrset.${rrsetId(zone, name, type)}`,
              place: zone,
              desired,
              observation: { exists: true, state: stateOf(desired, item) },
              pruneReason: `no block declares it, and it is in zone ${zone}, which a dns_zone block of this stack declares (prune: true)`,
              ...(unproven === undefined ? {} : { unproven }),
            },
          ];
        });
      }),
    );
    return listed.flat();
  },
};

/**
 * DNS record sets, identified by zone, name and type (the platform holds every identity; no state
 * is kept). The record sets of one zone are read together from the zone's list (`GET
 * /dns/v2/zones/{zone}/rrsets`, 1,000 a page), never with a GET each; one alone with `GET
 * /dns/v2/zones/{zone}/{name}/{type}`. Names are compared as the platform keeps them (fully
 * qualified, lower case, no trailing dot, IDN as punycode); records as a set of normalised
 * contents (records.ts), so a spelling the platform would store differently plans no change.
 * `ttl`, `pickers` and `meta` are managed only when declared. Create is `POST` (sent once: a lost
 * answer is settled by the executor's re-read), update `PUT` with the whole record set (live ttl,
 * pickers and meta kept when not declared), delete `DELETE`. With `prune: true`, the record sets
 * of a zone the stack declares that no block declares are destroyed (see pruneListing).
 */
export const dnsRrset: ResourceProvider<'dns_rrset'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'dns_rrset',

  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: rrsetImport,
  pruneListing,

  summarize: (state) => ({ zone: state.zone, name: state.name, record_type: state.record_type, ttl: state.ttl }),

  plan(desired, state): ProviderPlan {
    const declared = declaredRecords(desired);
    const records = diffRecords(state.resource_records as CanonicalRecord[], declared);
    const changes: FieldChange[] = [];
    const before: Record<string, unknown> = { zone: state.zone, name: state.name, record_type: state.record_type };
    const after: Record<string, unknown> = { ...before };
    if (desired.ttl !== undefined) {
      before.ttl = state.ttl;
      after.ttl = desired.ttl;
      if (state.ttl !== desired.ttl) changes.push({ path: ['ttl'], op: 'update', before: state.ttl, after: desired.ttl });
    }
    before.resource_records = state.resource_records;
    after.resource_records = declared;
    changes.push(...records.changes);
    for (const field of ['pickers', 'meta'] as const) {
      const want = desired[field];
      if (want === undefined) continue;
      before[field] = state[field];
      after[field] = want;
      if (canonicalJson(state[field]) !== canonicalJson(want)) changes.push({ path: [field], op: 'update', before: state[field], after: want });
    }
    return {
      action: changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes,
      unchanged_elements: { resource_records: records.unchanged },
      ...(changes.length > 0 ? { payload: { body: bodyOf(desired, state, declared) } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired, _ref, facts) {
      const zones = knownIn(facts, 'zones');
      const zone =
        zones &&
        notAmong(zoneOf(desired), zones, {
          field: 'zone',
          noun: 'DNS zone',
          where: 'in the account',
          instead: 'To have edgeform create the zone first, declare a dns_zone block for it and write zone: ${dns_zone.NAME.name}.',
        });
      const declared: Record<string, unknown> = { zone: zoneOf(desired), name: nameOf(desired), record_type: desired.record_type };
      if (desired.ttl !== undefined) declared.ttl = desired.ttl;
      // One list of the normalised records, which `after`, its change and the request body share.
      const records = declaredRecords(desired);
      declared.resource_records = records;
      if (desired.pickers !== undefined) declared.pickers = desired.pickers;
      if (desired.meta !== undefined) declared.meta = desired.meta;
      const cname = cnameProblem(desired, facts);
      const planned = createPlan(declared, 'rrset_id', { body: bodyOf(desired, undefined, records) }, { errors: [...(zone ? [zone] : []), ...(cname ? [cname] : [])] });
      const { rrset_id: _unknown, ...after } = planned.after;
      return { ...planned, after: { ...after, name: nameOf(desired) } };
    },
    // Joined, not a template: one flat string that each create's change keeps, not a chain of concatenations.
    identity: (desired) => [nameOf(desired), desired.record_type, 'in zone', zoneOf(desired)].join(' '),
  },
};
