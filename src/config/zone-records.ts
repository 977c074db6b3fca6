import { dirname, join } from 'node:path';
import { canonicalName, ownerName } from '../kinds/dns-names.js';
import { RESOURCE_KINDS } from '../kinds/registry.js';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import type { ResourceBlock } from './types.js';
import type { TypedBlock } from './validate-block.js';
import { parseZoneFile, type ZoneRecordSet } from './zone-file.js';

/** The identity of a record set: ZONE/NAME/TYPE, canonical. */
const identity = (zone: string, name: string, type: string) => `${zone}/${name}/${type}`;

/**
 * The record sets of the zone files `dns_zone` blocks name (`records_file:`, read into
 * `records_text` by resolveFileFields), each added to `typed` as a `dns_rrset` block (address
 * `dns_rrset.ZONEBLOCK/NAME/TYPE`, which no block name can be; it depends on its zone's block)
 * so it is planned, digested and pruned against as if declared. The file is parsed with the
 * zone's name as origin; a record set is checked by the dns_rrset kind's schema (contents per
 * type, TTL, CNAME rules) and every problem is an error at its line and column in the zone file.
 * The zone's own SOA and apex NS are skipped; a type a dns_rrset cannot hold, or a record set a
 * dns_rrset block declares too, is an error. The zone file's text goes into `files` (for the
 * code frame) when it has errors.
 */
export function expandZoneRecordFiles(typed: Map<string, TypedBlock>, diagnostics: Diagnostic[], files: Map<string, string>): void {
  const declared = new Map<string, ResourceBlock<'dns_rrset'>>();
  for (const t of typed.values()) {
    const b = t.block;
    if (b?.kind !== 'resource' || b.type !== 'dns_rrset') continue;
    const zone = canonicalName(b.attributes.zone);
    declared.set(identity(zone, ownerName(b.attributes.name, b.attributes.zone), b.attributes.record_type), b);
  }
  for (const t of [...typed.values()]) {
    const b = t.block;
    if (b?.kind !== 'resource' || b.type !== 'dns_zone') continue;
    const attributes = b.attributes as typeof b.attributes & { records_text?: string };
    const at = b.fieldSources.records_file?.range;
    if (attributes.records_file === undefined || attributes.records_text === undefined || at === undefined) continue;
    const shown = join(dirname(at.filename), attributes.records_file);
    const origin = canonicalName(attributes.name);
    const parsed = parseZoneFile(attributes.records_text, { file: shown, origin });
    const errors: Diagnostic[] = parsed.diagnostics.map((d) => ({ ...d, address: b.address }));
    const blocks: TypedBlock[] = [];
    for (const set of parsed.recordSets) {
      if (set.type === 'SOA' || (set.type === 'NS' && set.name === origin)) continue;
      const fail = (summary: string, range: SourceRange, detail?: string) =>
        errors.push({ severity: 'error', code: 'invalid-file', summary, address: b.address, range, ...(detail === undefined ? {} : { detail }) });
      const { types } = RESOURCE_KINDS.dns_rrset.zoneRecords!;
      if (!types.includes(set.type)) {
        fail(`${set.name} ${set.type}: a dns_rrset holds ${types.join(', ')}, not ${set.type}`, set.at);
        continue;
      }
      const other = declared.get(identity(origin, set.name, set.type));
      if (other !== undefined) {
        fail(
          `${set.name} ${set.type} is in ${shown} and declared by ${other.address} (${other.range.filename}:${other.range.start.line}:${other.range.start.column})`,
          set.at,
          'A record set comes from one place: remove it from the zone file or remove the block.',
        );
        continue;
      }
      const block = rrsetBlock(b.name, b.address, origin, set, fail);
      if (block !== undefined) blocks.push(block);
    }
    if (errors.length > 0) {
      files.set(shown, attributes.records_text);
      diagnostics.push(...errors);
      continue;
    }
    for (const block of blocks) typed.set(block.address, block);
  }
}

/** One record set of a zone file as a dns_rrset block, or undefined (each problem through `fail`) when the kind refuses it. */
function rrsetBlock(zoneBlock: string, zoneAddress: string, origin: string, set: ZoneRecordSet, fail: (summary: string, range: SourceRange) => void): TypedBlock | undefined {
  const type = set.type;
  const { content } = RESOURCE_KINDS.dns_rrset.zoneRecords!;
  const raw = {
    zone: origin,
    name: set.name,
    record_type: type,
    ttl: set.ttl,
    resource_records: set.records.map((r) => ({ content: content(type, r.rdata, r.origin) })),
  };
  const result = RESOURCE_KINDS.dns_rrset.schema.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const [field, index] = issue.path;
      const record = field === 'resource_records' && typeof index === 'number' ? set.records[index] : undefined;
      fail(`${set.name} ${set.type}: ${issue.message}`, record?.at ?? set.at);
    }
    return undefined;
  }
  const name = `${zoneBlock}/${set.name}/${type}`;
  const address = `dns_rrset.${name}`;
  const block = {
    kind: 'resource',
    type: 'dns_rrset',
    name,
    address,
    attributes: result.data,
    dependsOn: [zoneAddress],
    range: set.at,
    fieldSources: {},
  } as unknown as ResourceBlock<'dns_rrset'>;
  return { address, keyRange: set.at, dependsOn: [], block };
}
