import { dirname, join } from 'node:path';
import { canonicalName, ownerName } from '../kinds/dns-names.js';
import { ALL_KINDS, zoneRecordsKind, type KindSpec } from '../kinds/registry.js';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import type { Block, ResourceBlock } from './types.js';
import type { TypedBlock } from './validate-block.js';
import { parseZoneFile, readTtl, type ZoneRecordSet } from './zone-file.js';

/** The identity of a record set: ZONE/NAME/TYPE, canonical. Joined, not a template: one flat string rather than a chain of four concatenations, for each of a zone file's (up to 174,145) record sets. */
const identity = (zone: string, name: string, type: string) => [zone, name, type].join('/');

/** The field sources of every block a zone file makes: none (its problems are at its line of the file); one frozen object for them all. */
const NO_FIELD_SOURCES: Readonly<Record<string, { readonly range: SourceRange }>> = Object.freeze({});

/** A block's zone files: each file attribute its kind declares a zone file (FileField.zoneFile), with the kind its record sets become blocks of. */
function zoneFilesOf(kind: KindSpec): Array<{ field: string; into: string; origin: string } & ReturnType<typeof zoneRecordsKind>> {
  return Object.entries(kind.files ?? {}).flatMap(([field, file]) =>
    file.zoneFile === undefined ? [] : [{ field, into: file.into, origin: file.zoneFile.origin, ...zoneRecordsKind(file.zoneFile.records) }],
  );
}

/**
 * The record sets of the zone files blocks name in a file attribute their kind declares a zone
 * file (a `dns_zone`'s `records_file:`, read into `records_text` by resolveFileFields), each
 * added to `typed` as a block of the kind the declaration names (`dns_rrset`; address
 * `TYPE.ZONE/NAME/TYPE`, the set's id on the platform, as prune addresses the record sets it
 * finds; no block name can be one; it depends on its zone's block)
 * so it is planned, digested and pruned against as if declared. The file is parsed with the
 * zone's name as origin; a record set is checked by that kind's schema (contents per
 * type, TTL, CNAME rules) and every problem is an error at its line and column in the zone file.
 * The zone's own SOA and apex NS are skipped; a type the kind cannot hold, or a record set a
 * block declares too, is an error; the valid record sets are added all the same, so the
 * rules across blocks run in the same round. The zone file's text goes into `files` (for the code
 * frame of any error at its lines).
 */
export function expandZoneRecordFiles(typed: Map<string, TypedBlock>, diagnostics: Diagnostic[], files: Map<string, string>): void {
  const declared = new Map<string, Block>();
  for (const t of typed.values()) {
    const b = t.block;
    const records = b?.kind === 'resource' ? ALL_KINDS[b.type].zoneRecords : undefined;
    if (b === undefined || records === undefined) continue;
    const set = records.declares(b.attributes);
    declared.set(`${b.type}.${identity(set.zone, set.name, set.type)}`, b);
  }
  for (const t of [...typed.values()]) {
    const b = t.block;
    if (b?.kind !== 'resource') continue;
    for (const zoneFile of zoneFilesOf(ALL_KINDS[b.type])) {
      const attributes: Readonly<Record<string, unknown>> = b.attributes;
      const path = attributes[zoneFile.field];
      const text = attributes[zoneFile.into];
      const zoneName = attributes[zoneFile.origin];
      const at = b.fieldSources[zoneFile.field]?.range;
      if (typeof path !== 'string' || typeof text !== 'string' || typeof zoneName !== 'string' || at === undefined) continue;
      const shown = join(dirname(at.filename), path);
      const origin = canonicalName(zoneName);
      const parsed = parseZoneFile(text, { file: shown, origin });
      const errors: Diagnostic[] = parsed.diagnostics.map((d) => ({ ...d, address: b.address }));
      const blocks: TypedBlock[] = [];
      const { kind, records } = zoneFile;
      // Every record set of the file depends on its zone's block alone: one list for them all, and
      // one (empty) list of the loader's own (nothing adds to a block's dependencies once the zone files are read).
      const shared = { dependsOn: [b.address], loaderDependsOn: [] };
      const sets = parsed.recordSets;
      for (const [i, set] of sets.entries()) {
        // A parsed record set is let go once its block is made, so the file's parse and the blocks made of it are not all alive at once.
        delete sets[i];
        if (set.type === 'SOA' && set.name === origin) {
          const unapplied = soaNotApplied(set, origin, attributes, b.type);
          if (unapplied !== undefined) diagnostics.push({ ...unapplied, address: b.address });
        }
        if (set.type === 'SOA' || (set.type === 'NS' && set.name === origin)) continue;
        const fail = (summary: string, range: SourceRange, detail?: string) =>
          errors.push({ severity: 'error', code: 'invalid-file', summary, address: b.address, range, ...(detail === undefined ? {} : { detail }) });
        if (!records.types.includes(set.type)) {
          fail(`${set.name} ${set.type}: a ${kind.type} holds ${records.types.join(', ')}, not ${set.type}`, set.at);
          continue;
        }
        const other = declared.get(`${kind.type}.${identity(origin, set.name, set.type)}`);
        if (other !== undefined) {
          fail(
            `${set.name} ${set.type} is in ${shown} and declared by ${other.address} (${other.range.filename}:${other.range.start.line}:${other.range.start.column})`,
            set.at,
            'A record set comes from one place: remove it from the zone file or remove the block.',
          );
          continue;
        }
        const block = recordSetBlock(zoneFile, shared, origin, set, fail);
        if (block !== undefined) blocks.push(block);
      }
      // Its text frames any error at its lines, these and those of the rules across blocks.
      files.set(shown, text);
      diagnostics.push(...errors);
      // The record sets that are valid join the stack even when others are not, so the rules across
      // blocks (a CNAME beside another type) report in the same round as the file's own errors.
      for (const block of blocks) typed.set(block.address, block);
    }
  }
}

/** One record set of a zone file as a block of the kind that holds record sets, or undefined (each problem through `fail`) when the kind refuses it. */
function recordSetBlock(
  { kind, records }: ReturnType<typeof zoneRecordsKind>,
  shared: { dependsOn: string[]; loaderDependsOn: TypedBlock['dependsOn'] },
  origin: string,
  set: ZoneRecordSet,
  fail: (summary: string, range: SourceRange) => void,
): TypedBlock | undefined {
  const result = kind.schema.safeParse(records.attributes(origin, set));
  if (!result.success) {
    for (const issue of result.error.issues) {
      const [field, index] = issue.path;
      const record = field === records.recordsField && typeof index === 'number' ? set.records[index] : undefined;
      fail(`${set.name} ${set.type}: ${issue.message}`, record?.at ?? set.at);
    }
    return undefined;
  }
  // The address as one flat string, and the name a slice of it (a view, not a copy).
  const address = [kind.type, identity(origin, set.name, set.type)].join('.');
  const name = address.slice(kind.type.length + 1);
  // A block the loader makes from a zone file, typed as the blocks it reads from the stack (its
  // attributes are what the kind's schema produced).
  const block = {
    kind: 'resource',
    type: kind.type,
    name,
    address,
    attributes: result.data,
    dependsOn: shared.dependsOn,
    range: set.at,
    fieldSources: NO_FIELD_SOURCES,
  } as unknown as ResourceBlock;
  return { address, keyRange: set.at, dependsOn: shared.loaderDependsOn, block };
}

/** The dns_zone fields an SOA record's data sets, in its order (MNAME, RNAME, SERIAL, REFRESH, RETRY, EXPIRE, MINIMUM; the serial is the platform's). */
const SOA_FIELDS = ['primary_server', 'contact', undefined, 'refresh', 'retry', 'expiry', 'nx_ttl'] as const;

/**
 * A warning for the values of a zone file's SOA that nothing applies: edgeform skips the SOA (the
 * platform keeps the zone's), so a value there takes effect only when the dns_zone block declares
 * it too. Undefined when the block declares every one of them alike (or the record is malformed:
 * its own checks are the platform's).
 */
function soaNotApplied(set: ZoneRecordSet, origin: string, zone: Readonly<Record<string, unknown>>, zoneType: string): Omit<Diagnostic, 'address'> | undefined {
  const record = set.records[0];
  if (record === undefined || record.rdata.length !== SOA_FIELDS.length) return undefined;
  const absolute = (name: string) => canonicalName(name.endsWith('.') ? name : `${name}.${record.origin}`);
  const unapplied: string[] = [];
  SOA_FIELDS.forEach((field, i) => {
    if (field === undefined) return;
    const text = record.rdata[i]!;
    const value = field === 'primary_server' ? absolute(text) : field === 'contact' ? soaContact(absolute(text)) : readTtl(text);
    const declared = zone[field];
    const same = typeof declared === 'string' && typeof value === 'string' ? canonicalName(declared) === value : declared === value;
    if (value !== undefined && !same) unapplied.push(`${field} ${String(value)}`);
  });
  if (unapplied.length === 0) return undefined;
  return {
    severity: 'warning',
    code: 'soa-not-applied',
    summary: `${origin} SOA: ${unapplied.join(', ')} ${unapplied.length === 1 ? 'is' : 'are'} not applied`,
    detail: `edgeform does not send a zone file's SOA (the platform keeps the zone's): declare ${unapplied.map((u) => u.split(' ')[0]).join(', ')} on the ${zoneType} block to manage ${unapplied.length === 1 ? 'it' : 'them'}, or leave ${unapplied.length === 1 ? 'it' : 'them'} out.`,
    range: record.at,
  };
}

/** An SOA RNAME as the e-mail address it stands for: its first dot is the "@" (`hostmaster.example.com`). */
function soaContact(rname: string): string {
  const at = rname.indexOf('.');
  return at === -1 ? rname : `${rname.slice(0, at)}@${rname.slice(at + 1)}`;
}
