import { must } from '../errors.js';
import { z } from 'zod';
import { ZONE_OWNER_META_KEY } from './fields.js';
import { OWNER_KEY_ENV } from '../env.js';
import type { OwnerSeal } from './owner-seal.js';
import type { Owner, ResourceRef } from './provider.js';

/**
 * A DNS zone's pruning owner, recorded on the zone itself: the one stack with `prune: true`
 * whose plans prune the zone's record sets, so two stacks declaring one zone never destroy each
 * other's. DNS zones have no tags; of the fields the vendor's zone keeps (InputZone: name, the
 * SOA timers and contact, `enabled`, `meta`), only `meta`, "arbitrary data of zone in json
 * format" (its values objects), is free-form and kept as sent, so the record is the meta key
 * `edgeform`: `{"stack": NAME, "address": "dns_zone.BLOCK", "mark": MARK}` (mark only with
 * EDGEFORM_OWNER_KEY: a keyed hash of the stack, the address and the zone's name, see
 * owner-seal.ts). Plans, drift and import never show it; an update keeps it. Shared by the zone
 * kind (which writes it) and the record set kind (whose prune listing obeys it).
 */

/** The owner record as the platform answers it (untrusted: a record that does not parse is no owner). */
const ownerRecord = z.looseObject({ stack: z.string().min(1).max(63), address: z.string().max(255).optional(), mark: z.string().max(64).optional() });

/** A zone's owner record. */
export type ZoneOwnerRecord = z.infer<typeof ownerRecord>;

/** A zone's meta split into the user's (what plans compare) and the owner record (null: none, or one that does not parse). */
export function splitZoneMeta(meta: Record<string, unknown> | null | undefined): { meta: Record<string, unknown>; owner: ZoneOwnerRecord | null } {
  if (meta === null || meta === undefined || !(ZONE_OWNER_META_KEY in meta)) return { meta: meta ?? {}, owner: null };
  const { [ZONE_OWNER_META_KEY]: raw, ...rest } = meta;
  const parsed = ownerRecord.safeParse(raw);
  return { meta: rest, owner: parsed.success ? parsed.data : null };
}

/** What a zone's owner mark binds: the stack, the address and the zone's name (a mark copied to another zone does not verify). */
const markSubject = (stack: string, address: string, zone: string) => ({ type: 'dns_zone', stack, address, identity: zone });

/** The owner a zone's record names, its mark judged with the seal (no verdict unkeyed); null without a record. */
export function zoneOwner(record: ZoneOwnerRecord | null, zone: string, seal: OwnerSeal | undefined): Owner | null {
  if (record === null) return null;
  const owner = { stack: record.stack, address: record.address ?? '' };
  return seal?.keyed === true
    ? { ...owner, mark: must(seal.judge(markSubject(owner.stack, owner.address, zone), record.mark), 'seal.judge(markSubject(owner.stack, owner.address, zone), record.mark)') }
    : owner;
}

/** Why prune must leave the record sets of a zone whose owner record names the stack with this owner (see OwnedResource.unproven), if it must. */
export function unprovenZone(owner: Owner): string | undefined {
  if (owner.mark === 'missing')
    return `the owner record of its zone (meta.edgeform) carries no owner mark although ${OWNER_KEY_ENV} is set: it was made before the key was set, or written by hand`;
  if (owner.mark === 'invalid')
    return `the owner mark of its zone's owner record (meta.edgeform) does not verify with ${OWNER_KEY_ENV}: it was forged, copied from another zone, or made with another key`;
  return undefined;
}

/** The owner record a stack writes on a zone: its name, the block's address and, with a keyed seal, the owner mark. */
export function ownerRecordFor(ref: ResourceRef & { stack: string }, zone: string): ZoneOwnerRecord {
  const mark = ref.seal?.mark(markSubject(ref.stack, ref.address, zone));
  return { stack: ref.stack, address: ref.address, ...(mark === undefined ? {} : { mark }) };
}

/** A meta with the owner record set (or kept as it was). */
export const withOwnerRecord = (meta: Record<string, unknown>, record: ZoneOwnerRecord | null): Record<string, unknown> =>
  record === null ? meta : { ...meta, [ZONE_OWNER_META_KEY]: record };
