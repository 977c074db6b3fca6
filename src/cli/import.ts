import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { DEFAULT_BASE_URL, resolveBaseUrl } from '../api/base-url.js';
import { redact, secretsFromEnv } from '../api/redact.js';
import { didYouMean } from '../config/did-you-mean.js';
import { writeStack, type DraftBlock, type StackDraft } from '../config/write-stack.js';
import { formatZoneFile, type ZoneRecordSetInput } from '../config/zone-file.js';
import { EdgeformError, RunFatalError, UsageError, must } from '../errors.js';
import { countsNone, listProjects, listRegions, readQuotaUsage, type QuotaUsage } from '../kinds/cloud-scopes.js';
import { type ImportedResource, type ImportReferTarget, type ImportScope, type KindDiscovery, type KindImporter, type ScopeKind } from '../kinds/kind-list.js';
import type { ProviderContext } from '../kinds/provider.js';
import { providers } from '../kinds/providers.js';
import { listVideos } from '../kinds/streaming-videos.js';
import { CHECK_TYPES, RESOURCE_TYPES, zoneRecordsKind, type ResourceType } from '../kinds/registry.js';
import { createImportView, describePlace, type ImportView } from '../render/import-view.js';
import { defineCommand } from './command.js';
import { withInterrupts } from './interrupt.js';
import { ExitCode, type CliIO } from './io.js';
import { checkParallelism, connect } from './plan-stack.js';
import { findSchemaPath } from './schema-path.js';

interface ImportArgs {
  kind?: string;
  all: boolean;
  /** Ids as written (yargs would turn `abc` into NaN and lose what was written); resolveImportRequest parses them. */
  projectId: string[];
  regionId: string[];
  resellerId: string[];
  videoId: string[];
  /** `--name`: only the KIND's resources of these names (and what they bring, see KindImportSpec.alsoImports). */
  name?: string[];
  /** `--cname`: `--name` as CDN resources spell it (KindImportSpec.nameFlag). */
  cname?: string[];
  /** `--records-file`: each imported zone's record sets in a zone file beside the output. */
  recordsFile?: boolean;
  out?: string;
  force: boolean;
  parallelism: number;
}

/** The flags that name where a scope of kinds is listed, by the scope they belong to. */
const SCOPE_FLAGS: Record<Exclude<ScopeKind, 'account'>, ReadonlyArray<IdFlag>> = {
  cloud: ['projectId', 'regionId'],
  project: ['projectId'],
  reseller: ['resellerId'],
  video: ['videoId'],
};

type IdFlag = 'projectId' | 'regionId' | 'resellerId' | 'videoId';

const FLAG_NAMES: Record<IdFlag, string> = { projectId: '--project-id', regionId: '--region-id', resellerId: '--reseller-id', videoId: '--video-id' };

/** What one import run reads: the kinds, and the places named on the command line (empty: discover them). */
export interface ImportRequest {
  kinds: ReadonlyArray<KindImporter>;
  projects: readonly number[];
  regions: readonly number[];
  resellers: readonly number[];
  videos: readonly number[];
  /** Kinds `--all` leaves out, with why. */
  skipped: ReadonlyArray<readonly [ResourceType, string]>;
  /** `--name` (or `--cname`): the names of the KIND's resources to keep (none: all). */
  names?: readonly string[];
  /** The KIND named (none with `--all`): what it brings is kept only where related to it (see keepNamed). */
  named?: ResourceType;
  /** How the names were given, for messages: `--name` or `--cname`. */
  nameFlag?: string;
}

/**
 * The kinds and places an invocation names, or a UsageError: exactly one of KIND and `--all`;
 * KIND a resource kind (a check, or a typo, is told so); ids positive integers; a flag that does
 * not apply to the one KIND named is refused; a kind listed per reseller needs `--reseller-id`
 * (the platform does not list resellers), which `--all` without it leaves out with a note; a
 * kind listed per video takes its videos from `--video-id`, else from the platform's video list. Pure.
 */
export function resolveImportRequest(
  args: Pick<ImportArgs, 'kind' | 'all' | 'projectId' | 'regionId' | 'resellerId' | 'videoId' | 'name' | 'cname'>,
  importers: Readonly<Partial<Record<ResourceType, KindImporter>>>,
): ImportRequest {
  const ids = (flag: IdFlag): number[] =>
    unique(
      args[flag].map((text) => {
        const id = /^\d+$/.test(String(text).trim()) ? Number(String(text).trim()) : NaN;
        if (!Number.isSafeInteger(id) || id < 1) throw new UsageError(`${FLAG_NAMES[flag]} must be a positive integer, got "${String(text)}"`);
        return id;
      }),
    );
  const request = { projects: ids('projectId'), regions: ids('regionId'), resellers: ids('resellerId'), videos: ids('videoId') };
  const cnames = (args.cname ?? []).map(String);
  const names = [...new Set([...(args.name ?? []).map(String), ...cnames])];
  const nameFlag = cnames.length > 0 ? '--cname' : '--name';
  if (args.all) {
    if (args.kind !== undefined) throw new UsageError(`give a KIND or --all, not both (got ${args.kind} and --all)`);
    if (names.length > 0) throw new UsageError(`${nameFlag} applies to one KIND, not to --all`);
    const kinds = RESOURCE_TYPES.map((t) => importers[t]).filter((k): k is KindImporter => k !== undefined);
    const skipped: Array<readonly [ResourceType, string]> = RESOURCE_TYPES.filter((t) => importers[t] === undefined).map((t) => [t, 'the kind has no importer'] as const);
    const chosen = kinds.filter((k) => {
      if (k.scope !== 'reseller' || request.resellers.length > 0) return true;
      skipped.push([k.type, 'it is listed per reseller, and the platform does not list resellers: add --reseller-id N']);
      return false;
    });
    return { kinds: chosen, skipped, ...request };
  }
  if (args.kind === undefined) throw new UsageError(`name a KIND to import (one of ${RESOURCE_TYPES.join(', ')}) or give --all`);
  if ((CHECK_TYPES as readonly string[]).includes(args.kind)) {
    throw new UsageError(`${args.kind} is a check, and checks are not imported (they assert, they adopt nothing); import takes a resource kind: ${RESOURCE_TYPES.join(', ')}`);
  }
  const importer = importers[args.kind as ResourceType];
  if (!importer && (RESOURCE_TYPES as readonly string[]).includes(args.kind)) {
    throw new UsageError(`${args.kind} cannot be imported yet: the kind has no importer`);
  }
  if (!importer) throw new UsageError(`unknown resource kind "${args.kind}"${didYouMean(args.kind, RESOURCE_TYPES)}; the kinds are ${RESOURCE_TYPES.join(', ')}`);
  const own: ReadonlyArray<IdFlag> = importer.scope === 'account' ? [] : SCOPE_FLAGS[importer.scope];
  for (const flags of Object.values(SCOPE_FLAGS)) {
    for (const flag of flags) {
      if (!own.includes(flag) && args[flag].length > 0)
        throw new UsageError(`${FLAG_NAMES[flag]} does not apply to ${importer.type}, which is listed ${scopeWords(importer.scope)}`);
    }
  }
  if (importer.scope === 'reseller' && request.resellers.length === 0) {
    throw new UsageError(`${importer.type} is listed per reseller, and the platform does not list resellers: name one with --reseller-id N (repeatable)`);
  }
  if (cnames.length > 0 && importer.nameFlag !== 'cname') {
    const byCname = Object.values(importers)
      .filter((k) => k.nameFlag === 'cname')
      .map((k) => k.type);
    throw new UsageError(`--cname applies to ${byCname.join(', ')} (named by cname); ${importer.type} is named with --name NAME`);
  }
  // The kinds it brings (a zone's record sets, a CDN resource's rules and origin group), when they have importers.
  const brought = importer.alsoImports.flatMap((t) => (importers[t] ? [importers[t]] : []));
  return { kinds: [importer, ...brought], skipped: [], ...request, named: importer.type, ...(names.length > 0 ? { names, nameFlag } : {}) };
}

/**
 * `--records-file`: each imported zone's record sets that a zone file can hold (a TTL, every
 * record enabled and without meta, no pickers or meta) go into the zone's file
 * (`zones/NAME.zone`, formatZoneFile with the rrset kind's data of each record), named by the
 * zone block's `records_file:`; the others stay blocks. Pure.
 */
export function intoZoneFiles(found: readonly ImportedResource[]): { found: ImportedResource[]; files: Array<{ path: string; text: string }> } {
  const spec = zoneRecordsKind('dns_rrset').records;
  const zones = new Map(found.filter((r) => r.type === 'dns_zone').map((r) => [r.id, { zone: r, sets: [] as ZoneRecordSetInput[] }]));
  const moved = new Set<ImportedResource>();
  for (const r of found) {
    if (r.type !== 'dns_rrset') continue;
    const a = r.attributes as {
      zone: string;
      name: string;
      record_type: string;
      ttl?: number;
      resource_records: Array<{ content: unknown[]; enabled?: boolean; meta?: unknown }>;
      pickers?: unknown;
      meta?: unknown;
    };
    const entry = zones.get(a.zone);
    if (
      entry === undefined ||
      a.ttl === undefined ||
      a.pickers !== undefined ||
      a.meta !== undefined ||
      a.resource_records.some((x) => x.enabled === false || x.meta !== undefined)
    )
      continue;
    entry.sets.push({ name: a.name, type: a.record_type, ttl: a.ttl, records: a.resource_records.map((x) => ({ rdata: spec.rdata(a.record_type, x.content) })) });
    moved.add(r);
  }
  const files: Array<{ path: string; text: string }> = [];
  const kept = found
    .filter((r) => !moved.has(r))
    .map((r) => {
      const entry = r.type === 'dns_zone' ? zones.get(r.id) : undefined;
      if (entry === undefined || entry.sets.length === 0) return r;
      const path = `zones/${r.id}.zone`;
      files.push({ path, text: formatZoneFile(r.id, entry.sets) });
      return { ...r, attributes: { ...r.attributes, records_file: path } };
    });
  return { found: kept, files };
}

/**
 * What an import of one KIND keeps of what was found (`--all` keeps everything): the KIND's
 * resources (with `--name`, those it names: `matchesName`); of the kinds they bring, those whose
 * `refersTo` fields of KIND name a resource kept (a zone's record sets, a resource's rules), and
 * those whose `refersTo` fields name only kept resources of the kinds brought (a balancer's
 * listeners' L7 policies), then those a kept resource's `refersTo` field names (a resource's or rule's origin group), each once.
 * Pure.
 */
export function keepNamed(found: readonly ImportedResource[], request: ImportRequest): ImportedResource[] {
  const named = request.kinds[0];
  if (request.named === undefined || named === undefined) return [...found];
  const isNamed = (r: ImportedResource) => request.names === undefined || request.names.some((n) => named.matchesName(r.attributes, n));
  const kept = new Set(found.filter((r) => r.type === named.type && isNamed(r)));
  const keptIds = new Set([...kept].map((r) => r.id));
  for (const r of found) {
    if (r.type === named.type) continue;
    const links = Object.entries(r.refersTo ?? {}).filter(([, to]) => targetType(to) === named.type);
    if (links.length > 0 && links.every(([field]) => keptIds.has(String(r.attributes[field])))) kept.add(r);
  }
  for (const r of kept) keptIds.add(r.id);
  // Then, until nothing more is kept, what names only kept resources of the kinds brought (a listener's L7 policies, the pool they redirect to).
  const brought = new Set(request.kinds.slice(1).map((k) => k.type));
  for (let more = true; more;) {
    more = false;
    for (const r of found) {
      if (kept.has(r) || r.type === named.type) continue;
      const links = Object.entries(r.refersTo ?? {}).filter(([field, to]) => brought.has(targetType(to)) && r.attributes[field] !== undefined && r.attributes[field] !== null);
      if (links.length === 0 || !links.every(([field]) => keptIds.has(String(r.attributes[field])))) continue;
      kept.add(r);
      keptIds.add(r.id);
      more = true;
    }
  }
  // What the kept resources name (by kind and id), brought once however many name it.
  const namedByKept = new Set(
    [...kept].flatMap((r) =>
      Object.entries(r.refersTo ?? {}).flatMap(([field, to]) => {
        const value = r.attributes[field];
        return (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined).map((v) => `${targetType(to)}/${String(v)}`);
      }),
    ),
  );
  return found.filter((r) => kept.has(r) || (r.type !== named.type && namedByKept.has(`${r.type}/${r.id}`)));
}

/**
 * What an import leaves to the stacks that own it: besides the items a kind left out as another
 * stack's (SkippedItem.owned: a zone another stack prunes, a CDN resource carrying its mark),
 * each found item whose `refersTo` field names one of them (the zone's record sets, the
 * resource's rules) is left out too, naming that stack: it belongs with what it is in. Pure.
 */
export function leaveToOwners(discovery: KindDiscovery): KindDiscovery {
  const owners = new Map(discovery.skipped.flatMap((s) => (s.owned ? [[`${s.type}/${s.owned.id}`, s.owned.stack] as const] : [])));
  if (owners.size === 0) return discovery;
  const found: ImportedResource[] = [];
  const skipped = [...discovery.skipped];
  for (const r of discovery.found) {
    const link = Object.entries(r.refersTo ?? {}).find(([field, to]) => owners.has(`${targetType(to)}/${String(r.attributes[field])}`));
    if (link === undefined) {
      found.push(r);
      continue;
    }
    const [field, to] = link;
    const stack = must(owners.get(`${targetType(to)}/${String(r.attributes[field])}`), 'owners.get(`${targetType(to)}/${String(r.attributes[field])}`)');
    skipped.push({
      type: r.type,
      source: r.source,
      reason: `its ${field} ${JSON.stringify(r.attributes[field])} is a ${targetType(to)} edgeform stack "${stack}" owns; import leaves it to that stack`,
    });
  }
  return { found, skipped };
}

function targetType(to: ImportReferTarget): ResourceType {
  return typeof to === 'string' ? to : to.type;
}

/**
 * The names given with `--name`/`--cname` that no resource of KIND found has: each must name one,
 * so a typo is an error rather than a stack of nothing. Pure.
 */
export function unmatchedNames(found: readonly ImportedResource[], request: ImportRequest): string[] {
  const named = request.kinds[0];
  if (request.names === undefined || named === undefined) return [];
  const ofKind = found.filter((r) => r.type === named.type);
  return request.names.filter((n) => !ofKind.some((r) => named.matchesName(r.attributes, n)));
}

function scopeWords(scope: ScopeKind): string {
  return { cloud: 'per project and region', project: 'per project', reseller: 'per reseller', video: 'per video', account: 'for the whole account' }[scope];
}

function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

/** Whether progress goes to stderr: only on a terminal, and not in CI (`CI` set to anything but empty, 0 or false). */
export function showsProgress(io: Pick<CliIO, 'stderr' | 'env'>): boolean {
  const ci = io.env.CI;
  const inCi = ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
  return io.stderr.isTTY === true && !inCi;
}

/** `edgeform import KIND | --all`: discover live resources through the platform's lists and write a stack that adopts them. */
export const importCommand = defineCommand<ImportArgs>({
  builder: (y) =>
    y
      .positional('kind', { type: 'string', describe: `Resource kind to import: ${RESOURCE_TYPES.join(', ')}` })
      .option('all', {
        type: 'boolean',
        default: false,
        describe: 'Import every resource kind (notification settings need --reseller-id; subtitles of every video unless --video-id)',
      })
      .option('project-id', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'Cloud project to import from (repeatable); default: every project the platform lists',
      })
      .option('region-id', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'Cloud region to import from (repeatable); default: every active region the platform lists',
      })
      .option('reseller-id', { type: 'string', array: true, default: [] as string[], describe: 'Reseller whose notification settings to import (repeatable)' })
      .option('video-id', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'Streaming video whose subtitles to import (repeatable); default: every video the platform lists',
      })
      .option('name', {
        type: 'string',
        array: true,
        describe:
          "Only the KIND's resources of this name, and what they bring (repeatable; import dns_zone --name example.com: the zone and its record sets); a name that matches nothing is an error (exit 1, nothing written)",
      })
      .option('cname', {
        type: 'string',
        array: true,
        describe: 'With import cdn_resource: only the CDN resource of this cname, with its rules and origin group (repeatable; the same as --name for that kind)',
      })
      .option('records-file', {
        type: 'boolean',
        default: false,
        describe: "With import dns_zone --out FILE: write each zone's record sets to a BIND zone file beside FILE (zones/NAME.zone), named by records_file:",
      })
      .option('out', { type: 'string', describe: 'Write the stack to this file instead of stdout' })
      .option('force', { type: 'boolean', default: false, describe: 'With --out: replace an existing file' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Requests to the platform at the same time' }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    const importers: Partial<Record<ResourceType, KindImporter>> = {};
    for (const type of RESOURCE_TYPES) {
      const importer = providers.resources[type].import;
      if (importer) importers[type] = importer;
    }
    const request = resolveImportRequest(args, importers);
    if (args.force && args.out === undefined) throw new UsageError('--force applies only with --out FILE');
    if (args.recordsFile && (args.out === undefined || request.kinds[0]?.type !== 'dns_zone'))
      throw new UsageError('--records-file applies only to import dns_zone --out FILE (the zone files are written beside FILE)');
    if (args.out !== undefined && !args.force && (await exists(args.out))) {
      throw new UsageError(`--out ${args.out}: the file exists; refusing to overwrite it (choose another path, or add --force to replace it)`);
    }
    const baseUrl = resolveBaseUrl({ env: io.env });
    const view = createImportView(io, { progress: showsProgress(io) });
    for (const [type, reason] of request.skipped) view.skipped(type, reason);
    return withInterrupts(io, async (signal) => {
      const { api, ctx } = connect(baseUrl, { env: io.env, signal, parallelism: args.parallelism });
      try {
        const discovered = leaveToOwners(await discover(ctx, request, view, args.parallelism));
        const unmatched = unmatchedNames(discovered.found, request);
        if (unmatched.length > 0) {
          const kind = must(request.kinds[0], 'request.kinds[0]').type;
          const list = unmatched.map((n) => JSON.stringify(n)).join(', ');
          // What another stack owns is left out before names are matched: say so, it may be the one named.
          const owned = discovered.skipped.filter((s) => s.type === kind && s.owned !== undefined);
          const left = owned.length === 0 ? '' : `; left out as other stacks': ${owned.map((s) => `${s.source} (${s.reason})`).join('; ')}`;
          throw new EdgeformError(
            'EDGEFORM_IMPORT_NO_MATCH',
            `import ${kind} ${request.nameFlag ?? '--name'}: no ${kind} of the account is named ${list}; nothing written (the account has ${discovered.found.filter((r) => r.type === kind).length} ${kind}${left})`,
          );
        }
        const zoned = args.recordsFile ? intoZoneFiles(keepNamed(discovered.found, request)) : { found: keepNamed(discovered.found, request), files: [] };
        let found = zoned.found;
        const skipped = [...discovered.skipped];
        // The schema line points at the edgeform installed where the stack goes (stdout: the working directory).
        const schemaPath = await findSchemaPath(args.out ?? 'stack.yaml');
        const draft = (): StackDraft => ({
          schemaPath,
          blocks: found.map((r): DraftBlock => ({
            type: r.type,
            name: r.name,
            attributes: r.attributes,
            comment: `imported from ${r.source}`,
            id: r.id,
            ...(r.refersTo ? { refersTo: r.refersTo } : {}),
            ...(r.envPlaceholders ? { envPlaceholders: r.envPlaceholders } : {}),
          })),
          ...(baseUrl !== DEFAULT_BASE_URL ? { baseUrl } : {}),
          header: [
            `Written by edgeform import ${args.all ? '--all' : must(args.kind, 'args.kind')}: each block adopts a live resource by its platform id.`,
            ...request.skipped.map(([type, reason]) => `Not imported: ${type} (${reason}).`),
            ...skipped.map((item) => `Not imported: ${item.type} ${item.source} (${item.reason}).`),
          ],
        });
        let written = writeStack(draft(), io.env);
        if (written.leftOut.length > 0) {
          // Blocks that would not read back as their live values: named, and the rest written again.
          const left = new Set(written.leftOut.map((l) => l.index));
          for (const { index, reason } of written.leftOut) {
            const left = found[index];
            if (left !== undefined) skipped.push({ type: left.type, source: left.source, reason });
          }
          found = found.filter((_, i) => !left.has(i));
          written = writeStack(draft(), io.env);
        }
        for (const item of skipped) view.itemSkipped(item.type, item.source, item.reason);
        for (const p of written.placeholders) view.placeholder(p.address, p.field, p.variable);
        const text = written.text;
        if (args.out === undefined) {
          view.stack(text);
        } else {
          // A file does not pass through io, so the key is redacted here (a platform may echo it).
          await writeFile(args.out, redact(text, secretsFromEnv(io.env)), { flag: args.force ? 'w' : 'wx' }).catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'EEXIST') throw new UsageError(`--out ${args.out}: the file exists; refusing to overwrite it (add --force to replace it)`);
            throw new EdgeformError('EDGEFORM_IMPORT_WRITE', `cannot write ${args.out}: ${error.message}`, { cause: error });
          });
          for (const zoneFile of zoned.files) {
            const path = join(dirname(args.out), zoneFile.path);
            await mkdir(dirname(path), { recursive: true });
            await writeFile(path, redact(zoneFile.text, secretsFromEnv(io.env)), { flag: args.force ? 'w' : 'wx' }).catch((error: NodeJS.ErrnoException) => {
              throw new EdgeformError('EDGEFORM_IMPORT_WRITE', `cannot write ${path}: ${error.message}${error.code === 'EEXIST' ? ' (add --force to replace it)' : ''}`, {
                cause: error,
              });
            });
          }
          view.written(args.out, { byKind: request.kinds.map((k) => [k.type, found.filter((r) => r.type === k.type).length] as const) });
        }
        return ExitCode.ok;
      } finally {
        await api.close();
      }
    });
  },
});

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw new EdgeformError('EDGEFORM_IMPORT_WRITE', `cannot use --out ${file}: ${error.message}`, { cause: error });
    },
  );
}

/**
 * Lists every kind of the request in every place it applies to, at most `parallelism` lists at
 * once, and returns the resources in a stable order: kinds in registry order, places in the
 * order named (or listed by the platform), items in the platform's order. The projects and
 * regions are listed once, and only when a cloud kind needs them and none were named; the videos
 * likewise for subtitles (at the same time as the projects and regions), and the account's
 * quota usage, by which a kind is not listed in a region (or, listed per project, in any
 * project) that edgeform found itself and where the platform counts none of it
 * (KindImportSpec.quotaUsage). With `--name`, a kind
 * brought whose items belong to the named KIND's resources (KindImporter.within) is listed after
 * them, for the named ones only. The first failure stops the rest and is reported with the kind
 * and place it concerns.
 */
async function discover(ctx: ProviderContext, request: ImportRequest, view: ImportView, parallelism: number): Promise<KindDiscovery> {
  const [cloud, videos, usage] = await Promise.all([
    request.kinds.some((k) => k.scope === 'cloud' || k.scope === 'project') ? cloudPlaces(ctx, request, view) : { projects: [], regions: [] },
    request.kinds.some((k) => k.scope === 'video') ? videoPlaces(ctx, request, view) : [],
    request.kinds.some((k) => k.quotaUsage.length > 0 && placesFound(k, request)) ? quotaUsage(ctx) : undefined,
  ]);
  // A kind the quota usage counts none of (in a region, or in the account) is not listed there:
  // only in places edgeform found itself, never in those the command line names.
  const unused = (importer: KindImporter, region?: { id: number; named: boolean }) =>
    usage !== undefined &&
    placesFound(importer, request) &&
    region?.named !== true &&
    countsNone(importer.quotaUsage, region === undefined ? usage.global : usage.regional.get(region.id));
  const jobsOf = (importers: readonly KindImporter[]) => {
    const jobs: Array<{ importer: KindImporter; scope: ImportScope }> = [];
    for (const importer of importers) {
      if (importer.scope === 'account') jobs.push({ importer, scope: { kind: 'account' } });
      if (importer.scope === 'reseller') for (const reseller_id of request.resellers) jobs.push({ importer, scope: { kind: 'reseller', reseller_id } });
      if (importer.scope === 'video') for (const video_id of videos) jobs.push({ importer, scope: { kind: 'video', video_id } });
      if (importer.scope === 'project' && !unused(importer)) for (const project_id of cloud.projects) jobs.push({ importer, scope: { kind: 'project', project_id } });
      if (importer.scope === 'cloud') {
        const regions = cloud.regions.filter((region) => (region.named || importer.servedIn(region)) && !unused(importer, region));
        for (const project_id of cloud.projects) for (const region of regions) jobs.push({ importer, scope: { kind: 'cloud', project_id, region_id: region.id } });
      }
    }
    return jobs;
  };
  // With --name, the kinds whose items belong to the named KIND's resources (a resource's rules,
  // a zone's record sets) list those of the named resources only, once these are found.
  const { names } = request;
  const named = names === undefined ? undefined : request.kinds[0];
  const narrowed = named === undefined ? [] : request.kinds.filter((k) => k.within === named.type);
  const first = await discoverJobs(ctx, jobsOf(request.kinds.filter((k) => !narrowed.includes(k))), view, parallelism);
  if (names === undefined || named === undefined || narrowed.length === 0) return first;
  const ids = first.found.filter((r) => r.type === named.type && names.some((n) => named.matchesName(r.attributes, n))).map((r) => r.id);
  const second = ids.length === 0 ? NOTHING : await discoverJobs(ctx, jobsOf(narrowed), view, parallelism, ids);
  const order = (r: { type: ResourceType }) => request.kinds.findIndex((k) => k.type === r.type);
  const byKind = <R extends { type: ResourceType }>(a: R, b: R) => order(a) - order(b);
  return { found: [...first.found, ...second.found].sort(byKind), skipped: [...first.skipped, ...second.skipped].sort(byKind) };
}

/**
 * Runs the discoveries of these jobs, at most `parallelism` at once (`within`: the ids of the
 * named resources whose items alone are listed). The first failure stops the rest and is
 * reported with the kind and place it concerns.
 */
async function discoverJobs(
  ctx: ProviderContext,
  jobs: ReadonlyArray<{ importer: KindImporter; scope: ImportScope }>,
  view: ImportView,
  parallelism: number,
  within?: readonly string[],
): Promise<KindDiscovery> {
  const halt = new AbortController();
  const jobCtx: ProviderContext = { ...ctx, signal: AbortSignal.any([ctx.signal, halt.signal]) };
  const limit = pLimit(parallelism);
  let first: unknown = null;
  const results = await Promise.all(
    jobs.map(({ importer, scope }) =>
      limit(async () => {
        if (first !== null) return NOTHING;
        try {
          const discovery = await importer.discover(jobCtx, scope, {
            onPage: (n) => view.discovering(importer.type, scope, n, false),
            ...(within === undefined ? {} : { within }),
          });
          view.discovering(importer.type, scope, discovery.found.length, true);
          return discovery;
        } catch (error) {
          if (first === null) {
            first = explain(error, `importing ${importer.type}${describePlace(scope)} failed`);
            halt.abort(first);
          }
          return NOTHING;
        }
      }),
    ),
  );
  if (first !== null) throw first;
  return { found: results.flatMap((r) => r.found), skipped: results.flatMap((r) => r.skipped) };
}

const NOTHING: KindDiscovery = { found: [], skipped: [] };

/** The projects and regions the cloud kinds are imported from: those named, else those the platform lists. */
async function cloudPlaces(
  ctx: ProviderContext,
  request: ImportRequest,
  view: ImportView,
): Promise<{ projects: number[]; regions: Array<{ id: number; named: boolean; has_k8s?: boolean | undefined }> }> {
  try {
    const [projects, regions] = await Promise.all([
      request.projects.length > 0 ? request.projects : listProjects(ctx).then((list) => list.map((p) => p.id)),
      request.regions.length > 0
        ? request.regions.map((id) => ({ id, named: true }))
        : listRegions(ctx).then((list) => list.map((r) => ({ id: r.id, named: false, has_k8s: r.has_k8s }))),
    ]);
    view.cloudScopes(projects.length, regions.length);
    return { projects: [...projects], regions };
  } catch (error) {
    throw explain(error, 'listing the cloud projects and regions failed (name them with --project-id and --region-id to skip this)');
  }
}

/** Whether edgeform finds the places of a kind itself (the platform's projects or regions), rather than the command line naming them. */
function placesFound(importer: KindImporter, request: ImportRequest): boolean {
  return (importer.scope === 'cloud' && request.regions.length === 0) || (importer.scope === 'project' && request.projects.length === 0);
}

/**
 * The account's quota usage (readQuotaUsage), which tells the kinds a region (or the account)
 * holds none of; undefined when the platform does not answer it (another account's permissions,
 * an older platform): every kind is then listed everywhere, as without it. A run-fatal error (the
 * key refused, the platform down) or an interrupt stops the import as any request's would.
 */
async function quotaUsage(ctx: ProviderContext): Promise<QuotaUsage | undefined> {
  try {
    return await readQuotaUsage(ctx);
  } catch (error) {
    if (error instanceof RunFatalError || ctx.signal.aborted || !(error instanceof EdgeformError)) throw error;
    return undefined;
  }
}

/** The videos whose subtitles are imported: those named, else every video the platform lists. */
async function videoPlaces(ctx: ProviderContext, request: ImportRequest, view: ImportView): Promise<number[]> {
  if (request.videos.length > 0) return [...request.videos];
  try {
    const videos = (await listVideos(ctx)).map((v) => v.id);
    view.videoScopes(videos.length);
    return videos;
  } catch (error) {
    throw explain(error, 'listing the streaming videos failed (name them with --video-id to skip this)');
  }
}

/** An error with what was being done in front of its message; a run-fatal error (the key refused, the platform down) or an interrupt as it is. */
function explain(error: unknown, doing: string): unknown {
  if (error instanceof RunFatalError || !(error instanceof EdgeformError)) return error;
  return new EdgeformError(error.code, `${doing}: ${error.message}`, { cause: error });
}
