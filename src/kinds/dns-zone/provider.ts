import { z } from 'zod';
import { fetchListPage } from '../kind-list.js';
import { NotFoundError } from '../../api/errors.js';
import { apiPath } from '../../api/path.js';
import { isUnknownOutcome } from '../../api/retry.js';
import { PlanPayloadError, must } from '../../errors.js';
import { createPlan } from '../create.js';
import { declaredFields, diffDeclared } from '../declared-fields.js';
import { canonicalName } from '../dns-names.js';
import { defineListReads } from '../list-read.js';
import { ownerRecordFor, splitZoneMeta, withOwnerRecord, zoneOwner, type ZoneOwnerRecord } from '../dns-owner.js';
import type { ApplyResult, Observation, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone, requirePayload } from '../shared.js';
import { zoneImport } from './import.js';
import { ZONES, zoneItem, zoneList, zonePath, type ZoneItem } from './list.js';

type Zone = ResourceAttributes['dns_zone'];

/** The SOA fields and meta set by PUT; each compared only when declared. */
const SOA_FIELDS = ['contact', 'primary_server', 'expiry', 'refresh', 'retry', 'nx_ttl', 'meta'] as const;
/** Every field compared when declared. */
const FIELDS = [...SOA_FIELDS, 'enabled', 'dnssec'] as const;

/** The vendor's InputZone, as edgeform sends it. */
const inputZone = z.strictObject({
  name: z.string().min(1),
  contact: z.string().optional(),
  primary_server: z.string().optional(),
  expiry: z.int().min(0).optional(),
  refresh: z.int().min(0).optional(),
  retry: z.int().min(0).optional(),
  nx_ttl: z.int().min(0).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  enabled: z.boolean().optional(),
});

/**
 * What a create or an update carries: the InputZone body (POST on create, PUT on update, absent
 * when no SOA field or meta differs), then the PATCH enable/disable (`enabled`) and the PATCH
 * dnssec (`dnssec`) when those differ.
 */
const payloadSchema = z.strictObject({
  body: inputZone.optional(),
  enabled: z.boolean().optional(),
  dnssec: z.boolean().optional(),
});
type ZonePayload = z.infer<typeof payloadSchema>;

/** The DS record of a zone with DNSSEC on (GetDNSSECDSResponse); the other fields are not used. */
const dsAnswer = z.looseObject({ ds: z.string().optional() });

/** What a zone observation holds: the zone's fields, `dnssec`, and the DS record when DNSSEC is on. */
async function observe(ctx: ProviderContext, zone: ZoneItem): Promise<Observation> {
  const name = canonicalName(zone.name);
  const { meta, owner } = splitZoneMeta(zone.meta);
  const dnssec = zone.dnssec_enabled ?? false;
  const ds = dnssec
    ? ((await readOrGone(async () => (await ctx.api.get(apiPath`/dns/v2/zones/${name}/dnssec`, { schema: dsAnswer, signal: ctx.signal })).body))?.ds ?? null)
    : null;
  return {
    exists: true,
    state: {
      name,
      contact: zone.contact ?? null,
      primary_server: zone.primary_server ?? null,
      expiry: zone.expiry ?? null,
      refresh: zone.refresh ?? null,
      retry: zone.retry ?? null,
      nx_ttl: zone.nx_ttl ?? null,
      meta,
      owner,
      enabled: zone.enabled ?? true,
      dnssec,
      serial: zone.serial ?? null,
      status: zone.status ?? null,
      ds,
    },
  };
}

/** A zone's reads: one GET for a zone alone, the zone list filtered by the names for several. */
const reads = defineListReads<'dns_zone', ZoneItem>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(zonePath(canonicalName(d.name)), { schema: zoneItem, signal: ctx.signal })).body),
  project: (ctx, _d, zone) => observe(ctx, zone),
  list: {
    group: () => 'zones',
    memberId: (d) => canonicalName(d.name),
    itemId: (zone) => canonicalName(zone.name),
    paging: zoneList.paging,
    maxMembersPerList: 100,
    describe: () => `GET ${ZONES}`,
    fetchPage: (ctx, members, page) => fetchListPage(ctx, zoneList, { names: members.map((m) => canonicalName(m.name)) }, page),
  },
});

/** The InputZone of a create: the name and every declared SOA field, meta and `enabled`, and the owner record when the stack prunes. */
function createBody(desired: Zone, owner: ZoneOwnerRecord | null): z.infer<typeof inputZone> {
  const body: z.infer<typeof inputZone> = { name: canonicalName(desired.name), ...declaredFields(desired, [...SOA_FIELDS, 'enabled']) };
  return owner === null ? body : { ...body, meta: withOwnerRecord(body.meta ?? {}, owner) };
}

/**
 * The InputZone of an update: a PUT replaces the zone's settings, so every field the zone has is
 * sent as it is, with the declared ones over them (a field the block leaves out keeps its value),
 * and the owner record in meta as it is (`owner` given: that one instead).
 */
function updateBody(desired: Zone, state: Record<string, unknown>, owner = state.owner as ZoneOwnerRecord | null): z.infer<typeof inputZone> {
  const live = Object.fromEntries(SOA_FIELDS.filter((f) => state[f] !== null && state[f] !== undefined).map((f) => [f, state[f]]));
  const body = inputZone.parse({ ...live, name: state.name, enabled: state.enabled, ...declaredFields(desired, SOA_FIELDS) });
  return { ...body, meta: withOwnerRecord(body.meta ?? {}, owner) };
}

/** What the zone's owner record says, for notes: `stack "web" (dns_zone.main)`. */
const describeOwner = (record: ZoneOwnerRecord) => `stack "${record.stack}" (${record.address ?? 'no address'})`;

/**
 * The zone's plan that also writes `ref`'s owner record (Ownership.claim): when the zone has
 * none, another stack's or address's (a move), or, with a keyed seal, one whose owner mark was
 * made with the previous key or is missing. Pure.
 */
function claimZone(desired: Zone, state: Record<string, unknown>, ref: ResourceRef): ProviderPlan {
  const planned = dnsZone.plan(desired, state);
  if (planned.errors.length > 0 || ref.stack === null) return planned;
  const name = state.name as string;
  const current = state.owner as ZoneOwnerRecord | null;
  const judged = zoneOwner(current, name, ref.seal);
  if (judged !== null && judged.stack === ref.stack && judged.address === ref.address && (judged.mark === undefined || judged.mark === 'valid')) return planned;
  const record = ownerRecordFor({ ...ref, stack: ref.stack }, name);
  const note =
    current === null
      ? `the zone's meta records ${describeOwner(record)} as the one stack that prunes its record sets (meta.edgeform, not shown as drift)`
      : must(judged, 'judged').stack === ref.stack && must(judged, 'judged').address === ref.address
        ? `the owner mark of the zone's owner record is re-made with EDGEFORM_OWNER_KEY (${must(judged, 'judged').mark === 'previous' ? 'it was made with EDGEFORM_OWNER_KEY_PREVIOUS' : 'it had none'})`
        : `the zone's pruning owner moves from ${describeOwner(current)} to ${describeOwner(record)} (meta.edgeform)`;
  const payload = (planned.payload ?? {}) as ZonePayload;
  return { ...planned, action: 'update', payload: { ...payload, body: updateBody(desired, state, record) }, notes: [...planned.notes, note] };
}

/** Sends a request that sets values (PUT, PATCH, DELETE): repeating it is harmless. */
async function sendIdempotent(ctx: ProviderContext, method: 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<void> {
  await ctx.api.request({ method, path, ...(body === undefined ? {} : { body }), retry: 'idempotent', signal: ctx.signal });
}

/** The PATCH enable/disable and PATCH dnssec a payload asks for. */
async function sendToggles(ctx: ProviderContext, name: string, payload: ZonePayload): Promise<void> {
  if (payload.enabled !== undefined) await sendIdempotent(ctx, 'PATCH', payload.enabled ? apiPath`/dns/v2/zones/${name}/enable` : apiPath`/dns/v2/zones/${name}/disable`);
  if (payload.dnssec !== undefined) await sendIdempotent(ctx, 'PATCH', apiPath`/dns/v2/zones/${name}/dnssec`, { enabled: payload.dnssec });
}

/**
 * DNS zones, identified by their name (the platform holds the identity, no state is kept). One
 * zone is read with `GET /dns/v2/zones/{name}`, several with the zone list filtered by their
 * names (`name`, `exact_match`); a zone with DNSSEC on is also read for its DS record (`GET
 * .../dnssec`, the readable `ds`). A zone that does not exist is created (`POST /dns/v2/zones`,
 * sent once: a lost answer is settled by the executor's re-read by name, then `PATCH .../dnssec`
 * when the block wants DNSSEC); the SOA fields and meta change with `PUT /dns/v2/zones/{name}`
 * (every live value sent, the declared ones over them), `enabled` with `PATCH .../enable` or
 * `.../disable`, `dnssec` with `PATCH .../dnssec`; each field is managed only when declared.
 * `ensure: absent` deletes the zone with every record set in it (`DELETE`, 404 is done).
 */
export const dnsZone: ResourceProvider<'dns_zone'> = {
  kind: 'resource',
  type: 'dns_zone',
  verbs: { update: ['Updating', 'Updated'], delete: ['Destroying', 'Destroyed'] },
  payloadSchema,

  read: reads.read,
  groupRead: reads.groupRead,
  import: zoneImport,

  // The zone's pruning owner (its meta's owner record, see dns-owner.ts): one stack with prune: true.
  ownership: {
    scope: 'prune',
    noun: 'owner record (meta.edgeform)',
    owner: (state, _desired, seal) => zoneOwner(state.owner as ZoneOwnerRecord | null, state.name as string, seal),
    place: () => 'zones',
    claim: (desired, state, ref) => claimZone(desired, state, ref),
    // Zones are read by name; none is ever pruned (a stack prunes a zone's record sets, not the zone).
    list: async () => [],
  },

  summarize: (state) => ({ name: state.name, enabled: state.enabled, dnssec: state.dnssec }),

  plan(desired, state) {
    const diff = diffDeclared(desired, state, FIELDS);
    const before: Record<string, unknown> = { name: state.name };
    for (const field of FIELDS) if (desired[field] !== undefined) before[field] = state[field] ?? null;
    const after: Record<string, unknown> = { ...before, ...declaredFields(desired, FIELDS) };
    const soaChanged = diff.changed.some((f) => (SOA_FIELDS as readonly string[]).includes(f));
    const payload: ZonePayload = {
      ...(soaChanged ? { body: updateBody(desired, state) } : {}),
      ...(diff.changed.includes('enabled') ? { enabled: must(desired.enabled, 'desired.enabled') } : {}),
      ...(diff.changed.includes('dnssec') ? { dnssec: must(desired.dnssec, 'desired.dnssec') } : {}),
    };
    return {
      action: diff.changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes: diff.changes,
      ...(diff.changes.length > 0 ? { payload } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired, ref) {
      const declared = { name: canonicalName(desired.name), ...declaredFields(desired, FIELDS) };
      // A stack with prune: true records itself as the zone's pruning owner in the create itself.
      const owner = ref.prune === true && ref.stack !== null ? ownerRecordFor({ ...ref, stack: ref.stack }, declared.name) : null;
      const payload: ZonePayload = { body: createBody(desired, owner), ...(desired.dnssec === true ? { dnssec: true } : {}) };
      // The zone's id is its name, known before apply: the plan's `after` shows it as declared.
      const notes = owner === null ? [] : [`the zone's meta records ${describeOwner(owner)} as the one stack that prunes its record sets (meta.edgeform, not shown as drift)`];
      const planned = createPlan(declared, 'zone_id', payload, { notes });
      const { zone_id: _unknown, ...after } = planned.after;
      return { ...planned, after: { ...after, name: declared.name } };
    },
    identity: (desired) => `name ${JSON.stringify(canonicalName(desired.name))}`,
  },

  // The DNS API answers each write itself: no platform task.
  startsTasks: () => false,

  async apply(ctx, change): Promise<ApplyResult> {
    const name = canonicalName(change.desired.name);
    switch (change.action) {
      case 'create': {
        const payload = requirePayload(change, payloadSchema);
        try {
          await ctx.api.request({ method: 'POST', path: ZONES, body: payload.body ?? { name }, signal: ctx.signal });
        } catch (error) {
          // A POST is never sent twice: the executor's re-read by name tells whether the zone exists.
          if (isUnknownOutcome(error) && !ctx.signal.aborted) return 'unacknowledged';
          throw error;
        }
        await sendToggles(ctx, name, { ...(payload.dnssec === undefined ? {} : { dnssec: payload.dnssec }) });
        return;
      }
      case 'update': {
        const payload = requirePayload(change, payloadSchema);
        if (payload.body !== undefined) await sendIdempotent(ctx, 'PUT', zonePath(name), payload.body);
        await sendToggles(ctx, name, payload);
        return;
      }
      case 'delete':
        try {
          await sendIdempotent(ctx, 'DELETE', zonePath(name));
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
        }
        return;
      default:
        throw new PlanPayloadError(change, `a dns_zone can be created, updated or deleted, the change says ${change.action}`);
    }
  },
};
