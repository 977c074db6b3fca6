import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ApiConfigError } from '../api/errors.js';
import { resolveBaseUrl } from '../api/base-url.js';
import { hasErrors } from '../config/diagnostics.js';
import { discoverStacks, type Discovery, type ListedStack, type StackCandidate } from '../config/discover-stacks.js';
import { loadStack, type LoadStackResult } from '../config/load-stack.js';
import { inShard, parseShard, type Shard } from '../config/shards.js';
import { isStackFileName } from '../config/stack-files.js';
import { stackFiles, stackPlaces } from '../config/stack-reads.js';
import { UsageError } from '../errors.js';
import { createStacksView, STACKS_FORMATS, type StacksFormat } from '../render/stacks-view.js';
import { defineCommand } from './command.js';
import { changedFilesSince, realFilePath, type ChangedFiles } from './git-changes.js';
import { ExitCode } from './io.js';
import { fleetOrder, type FleetMember } from './fleet-order.js';

interface StacksArgs {
  root: string;
  format: StacksFormat;
  changedSince?: string;
  shard?: string;
}

/**
 * `edgeform stacks ROOT`: the fleet under ROOT, offline (no API request). Every stack (a YAML
 * file stating `version: 1`, or a directory stack), each loaded as validate loads it, with its
 * name, digest, platform, the places its blocks read and the files it reads; `--shard I/N`
 * keeps the stacks whose key hashes to shard I, `--changed-since REF` those whose files changed
 * since the git ref (an invalid stack is always kept: what it reads is not known). Invalid
 * stacks are listed with their errors; exit 1 when any is, else 0.
 */
export const stacksCommand = defineCommand<StacksArgs>({
  builder: (y) =>
    y
      .positional('root', { type: 'string', describe: 'The directory to search for stacks (recursively)', demandOption: true })
      .option('format', {
        choices: STACKS_FORMATS,
        default: 'text' as const,
        describe: 'Output format: text, json (the listing document) or github-matrix (what a matrix fromJSON takes)',
      })
      .option('changed-since', {
        type: 'string',
        requiresArg: true,
        describe: 'Keep the stacks whose files (or files they read) changed since this git ref (its merge base with HEAD), uncommitted changes included',
      })
      .option('shard', {
        type: 'string',
        requiresArg: true,
        describe: 'Keep shard I of N (e.g. 2/8): a stable part by the stack path hashed, so N jobs cover every stack exactly once',
      }),
  async run(args, io) {
    const shard = args.shard === undefined ? undefined : parseShard(args.shard);
    if (args.shard !== undefined && shard === undefined) throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N ≤ 1000 (e.g. 2/8), not "${args.shard}"`);
    const info = await stat(args.root).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`edgeform stacks searches a directory: ${args.root} ${info ? 'is not one' : 'does not exist'}`);
    const view = createStacksView(args.format, io);
    const changed = args.changedSince === undefined ? undefined : await changedFilesSince(args.changedSince, args.root, io.env);
    const { discovery, selected } = await selectStacks(args.root, { shard, changed }, io.env);
    // References to other stacks are checked against the whole fleet (fleetOrder), selected or not.
    const whole = shard === undefined && changed === undefined ? selected : (await selectStacks(args.root, {}, io.env)).selected;
    const checked = new Map(fleetOrder(whole.map(toFleetMember)).map((s) => [s.path, s]));
    const stacks = selected.map(({ listed }) => {
      const fleet = checked.get(listed.path);
      return fleet === undefined ? listed : { ...listed, valid: fleet.valid, diagnostics: fleet.diagnostics, stackReads: [...fleet.reads].sort() };
    });
    view.list({
      root: args.root,
      changedSince: args.changedSince ?? null,
      shard: shard === undefined ? null : `${shard.index}/${shard.count}`,
      stacks,
      // Files that are no stack belong to no shard.
      skipped: shard === undefined ? discovery.skipped : [],
    });
    return stacks.every((s) => s.valid) ? ExitCode.ok : ExitCode.error;
  },
});

/** A stack of the selection as fleetOrder takes it. */
export function toFleetMember(s: SelectedStack): FleetMember {
  return {
    path: s.listed.path,
    name: s.listed.name,
    valid: s.listed.valid,
    stack: s.listed.valid ? s.loaded.stack : undefined,
    diagnostics: s.listed.diagnostics,
    files: s.loaded.files,
  };
}

/** A stack of the selection: as listed, and as loaded. */
export interface SelectedStack {
  listed: ListedStack;
  loaded: LoadStackResult;
}

/**
 * The stacks under `root` a fleet command works on, in key order: those of `shard` (all when
 * absent), and of them those whose files changed (`changed`, see changedFilesSince; all when
 * absent; an invalid stack is always kept, what it reads is not known), each loaded once.
 */
export async function selectStacks(
  root: string,
  options: { shard?: Shard | undefined; changed?: ChangedFiles | undefined },
  env: NodeJS.ProcessEnv,
): Promise<{ discovery: Discovery; selected: SelectedStack[] }> {
  const discovery = await discoverStacks(root);
  const shard = options.shard;
  const candidates = shard === undefined ? discovery.stacks : discovery.stacks.filter((c) => inShard(c.key, shard));
  const selected: SelectedStack[] = [];
  for (const candidate of candidates) {
    const loaded = await loadStack(candidate.path, env);
    const listed = await listStack(candidate, loaded, env);
    if (options.changed === undefined || !listed.valid || (await readsChanged(listed, options.changed))) selected.push({ listed, loaded });
  }
  return { discovery, selected };
}

/** A stack loaded as validate loads it (with the environment, for `${env:NAME}`), and what it reads. */
async function listStack(candidate: StackCandidate, loaded: LoadStackResult, env: NodeJS.ProcessEnv): Promise<ListedStack> {
  const { stack } = loaded;
  const diagnostics = [...loaded.diagnostics];
  if (stack !== undefined) {
    let baseUrl: string | undefined;
    try {
      baseUrl = resolveBaseUrl({ env, stackBaseUrl: stack.provider.base_url });
    } catch (error) {
      if (!(error instanceof ApiConfigError)) throw error;
      diagnostics.push({ severity: 'error', code: 'invalid-base-url', summary: error.message });
    }
    if (baseUrl !== undefined && !hasErrors(diagnostics)) {
      return {
        ...candidate,
        name: stack.name ?? null,
        valid: true,
        digest: stack.digest,
        baseUrl,
        places: stackPlaces(stack),
        files: stackFiles(stack),
        diagnostics,
        stackReads: [],
      };
    }
  }
  return { ...candidate, name: loaded.name ?? null, valid: false, digest: null, baseUrl: null, places: [], files: await ownFiles(candidate), diagnostics, stackReads: [] };
}

/** The stack's own files when it could not be loaded: the file, or the YAML files of the directory. */
async function ownFiles(candidate: StackCandidate): Promise<string[]> {
  if (candidate.kind === 'file') return [candidate.path];
  const names = await readdir(candidate.path).catch(() => [] as string[]);
  return names
    .filter(isStackFileName)
    .sort()
    .map((n) => join(candidate.path, n));
}

/**
 * Whether any file the stack reads is among the changed ones, or a file that was part of it was
 * removed: a stack file or fragment from a directory stack's directory, or a fragment from a file
 * stack's directory (the directory stack it was part of lost its fragments and became it).
 */
async function readsChanged(stack: ListedStack, changed: ChangedFiles): Promise<boolean> {
  for (const file of stack.files) if (changed.paths.has(await realFilePath(file))) return true;
  const removed = changed.removedStackFiles.get(await realFilePath(stack.kind === 'directory' ? stack.path : dirname(stack.path)));
  return removed !== undefined && (stack.kind === 'directory' || removed.has('fragment'));
}
