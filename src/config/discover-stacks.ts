import { must } from '../errors.js';
import type { Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import type { Place } from './stack-reads.js';
import { TOP_LEVEL_KEYS } from './types.js';
import { isStackFileName } from './stack-files.js';

/** A stack found under the root: a stack file, or a directory read as one stack. */
export interface StackCandidate {
  /** Where it is, the root as given joined with its place under the root (what `plan PATH` takes). */
  path: string;
  /** Its place under the root, `/`-separated (`prod/web.yaml`, `multi`): the key shards hash. */
  key: string;
  /** A file stack, or a directory stack (every `*.yaml`/`*.yml` file directly in it). */
  kind: 'file' | 'directory';
}

/** A YAML file under the root that is not part of any stack, and why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** Everything discoverStacks found: the stacks (sorted by key) and the YAML files it passed over. */
export interface Discovery {
  stacks: StackCandidate[];
  skipped: SkippedFile[];
}

/** Directories never searched: dependencies (and hidden folders, whose names start with a dot). */
const SKIPPED_DIRECTORIES = new Set(['node_modules']);

/** The most bytes of a YAML file read to tell what it is: the top-level keys of any stack fit. */
const SNIFF_BYTES = 1024 * 1024;

/**
 * How a YAML file's top level reads, from its lines: a stack file states `version: 1` at the
 * start of a line (as every stack does; block YAML puts only top-level keys at column 0); a
 * fragment of a directory stack has no `version:` but a top-level `resources:` or `checks:`
 * and only the keys a stack has; anything else (a compose file, a CI file, fixtures) is no stack.
 */
export function classifyYaml(text: string): { kind: 'stack' | 'fragment' } | { kind: 'other'; reason: string } {
  const keys: string[] = [];
  let version: string | undefined;
  for (const match of text.matchAll(/^([A-Za-z_][\w-]*)[ \t]*:(.*)$/gm)) {
    const key = must(match[1], 'match[1]');
    keys.push(key);
    if (key === 'version' && version === undefined)
      version = must(match[2], 'match[2]')
        .replace(/\s+#.*$/, '')
        .trim();
  }
  if (version !== undefined) {
    if (/^(?:1|"1"|'1')$/.test(version)) return { kind: 'stack' };
    return { kind: 'other', reason: `its top level has version: ${version.slice(0, 40)}, not an edgeform stack's version: 1` };
  }
  const stackKeys = new Set<string>(TOP_LEVEL_KEYS);
  if ((keys.includes('resources') || keys.includes('checks')) && keys.every((k) => stackKeys.has(k))) return { kind: 'fragment' };
  return { kind: 'other', reason: 'its top level has no version: 1 (and it is not part of a directory stack)' };
}

/**
 * Every stack under `root` (a directory), searched recursively: a `*.yaml`/`*.yml` file whose
 * top level states `version: 1` is a stack of its own, unless its directory holds a fragment
 * (a YAML file with `resources:` or `checks:` and no `version:`, which cannot be a stack alone):
 * then the directory is one stack, read as plan reads a directory. Hidden files and folders
 * (`.git`, `.github`), `node_modules` and symbolic links to directories are not searched; YAML
 * files that are neither are returned as skipped, with the reason. Sorted by key.
 */
export async function discoverStacks(root: string): Promise<Discovery> {
  const stacks: StackCandidate[] = [];
  const skipped: SkippedFile[] = [];
  await searchDirectory(root, '', stacks, skipped);
  stacks.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { stacks, skipped };
}

async function searchDirectory(root: string, relative: string, stacks: StackCandidate[], skipped: SkippedFile[]): Promise<void> {
  const dir = relative === '' ? root : join(root, ...relative.split('/'));
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // A folder this user may not read is reported, not searched (the root itself: the caller's error).
    if (relative === '') throw error;
    skipped.push({ path: dir, reason: `the folder cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
    return;
  }
  const files: Array<{ name: string; kind: ReturnType<typeof classifyYaml> }> = [];
  const subdirectories: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(entry.name);
      continue;
    }
    if (!isStackFileName(entry.name)) continue;
    // A symbolic link is read where it leads when that is a file (never followed to a directory).
    const target = entry.isSymbolicLink() ? await stat(path).catch(() => undefined) : entry;
    if (target?.isDirectory()) continue;
    if (!target?.isFile()) {
      // A FIFO would never end, a dangling link leads nowhere: listed, never read.
      skipped.push({ path, reason: target ? 'it is not a regular file' : 'it is a symbolic link to nothing' });
      continue;
    }
    const text = await readStart(path).catch((error: NodeJS.ErrnoException) => error);
    if (text instanceof Error) {
      // Unreadable: it may be a stack, so it is listed (as skipped, with why), never dropped in silence.
      skipped.push({ path, reason: `it cannot be read: ${text.code ?? text.message}` });
      continue;
    }
    files.push({ name: entry.name, kind: classifyYaml(text) });
  }
  const key = (name: string) => (relative === '' ? name : posix.join(relative, name));
  if (files.some((f) => f.kind.kind === 'fragment')) {
    stacks.push({ path: relative === '' ? root : join(root, ...relative.split('/')), key: relative === '' ? '.' : relative, kind: 'directory' });
  } else {
    for (const file of files) {
      if (file.kind.kind === 'stack') stacks.push({ path: join(dir, file.name), key: key(file.name), kind: 'file' });
      else if (file.kind.kind === 'other') skipped.push({ path: join(dir, file.name), reason: file.kind.reason });
    }
  }
  for (const name of subdirectories) await searchDirectory(root, key(name), stacks, skipped);
}

/** The first SNIFF_BYTES of a file as text (enough for any stack's top-level keys). */
async function readStart(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A path as the listing shows it: with `/` between its parts whatever the platform. */
export function toPosixPath(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** A stack of the fleet as `edgeform stacks` lists it: where it is, what it is and what it reads. */
export interface ListedStack extends StackCandidate {
  /** Its `name:`, or null (none, or not a valid name); an invalid stack keeps a valid name. */
  name: string | null;
  /** Valid: no error diagnostics. */
  valid: boolean;
  /** The stack's digest (what a saved plan records), or null when it is invalid. */
  digest: string | null;
  /** The platform it talks to (EDGEFORM_BASE_URL, else its provider.base_url, else the default); null when invalid. */
  baseUrl: string | null;
  /** The places its blocks read (see stackPlaces). */
  places: Place[];
  /** Its own files and the files its blocks read, as paths like `path`; for an invalid stack, its own files. */
  files: string[];
  /** Its errors and warnings. */
  diagnostics: Diagnostic[];
  /** The names of the stacks its `${stack:NAME/...}` references read (it is planned and applied after them), sorted. */
  stackReads: string[];
}
