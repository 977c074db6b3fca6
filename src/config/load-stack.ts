import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { z } from 'zod';
import { buildGraph, findCycles } from '../model/graph.js';
import { canonicalJson } from '../model/fingerprint.js';
import { must } from '../errors.js';
import { validateDefaults } from './defaults.js';
import { addDiagnostics, hasErrors, type Diagnostic, type SourceRange } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { resolveFileFields } from './file-fields.js';
import { expandZoneRecordFiles } from './zone-records.js';
import { issuesToDiagnostics } from './issue-diagnostics.js';
import { checkReferenceTargets, inlineKnownReferences, refuseReferences } from './references.js';
import { readStackFiles, type Env } from './stack-files.js';
import { maskSpans, type SourceFile, type SourceNode } from './source-tree.js';
import { FileNode } from './source-node.js';
import { checkSensitiveElsewhere } from './sensitive-fields.js';
import { RESOURCE_KINDS } from '../kinds/registry.js';
import { takesMoves } from '../kinds/kind-spec.js';
import { referenceAddress, templateTargets, type TemplatePart } from '../model/references.js';
import { TOP_LEVEL_KEYS, type CheckBlock, type ResourceBlock, type Stack } from './types.js';
import { validateBlock, type RawBlock, type TypedBlock } from './validate-block.js';

/** The only stack file version this edgeform reads. */
export const STACK_VERSION = 1;

/** `provider:`: where the platform is. The API key is never here (EDGEFORM_API_KEY). */
export const PROVIDER_SCHEMA = z.strictObject({
  base_url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL such as https://api.gcore.com' })
    .optional()
    .describe('Platform API base URL (default https://api.gcore.com); EDGEFORM_BASE_URL overrides it.'),
});

/**
 * `name:`: the stack's name, which the ownership tags of what it creates carry
 * (`edgeform-stack`). Renaming a stack disowns what it created, so it is short and plain.
 */
export const STACK_NAME_SCHEMA = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'the stack name must be 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit')
  .describe("The stack's name: the ownership tags of the resources it creates carry it (edgeform-stack). Required to create by ownership or to prune.");

/**
 * `renamed_from:`: the stack's former name. What carries it in its ownership tags is re-tagged
 * with the stack's `name:` (each block from its own address), not created anew.
 */
export const RENAMED_FROM_SCHEMA = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'the former stack name must be 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit')
  .describe(
    "The stack's former name: resources whose ownership tags name it are re-tagged with name: (plan shows ~ update (moved from OLD/TYPE.NAME)), never created anew. Harmless once applied.",
  );

/** `prune:`: destroy what carries this stack's ownership mark but is no longer declared. */
export const PRUNE_SCHEMA = z.boolean().describe("Destroy resources that carry this stack's ownership tags but that no block declares any more (default false).");

/** What loadStack found: the stack when it is valid, every diagnostic, and the text of every file read. */
export interface LoadStackResult {
  /** Present only when there are no errors (warnings allowed). */
  stack?: Stack;
  /** Every problem found, in file order then source position. */
  diagnostics: Diagnostic[];
  /** filename → text, for code frames when rendering diagnostics. */
  files: ReadonlyMap<string, string>;
  /** Its `name:` when that setting is valid, also when other parts are not (a fleet names an invalid stack by it). */
  name?: string;
}

/** Settings of loadStack. */
export interface LoadStackOptions {
  /**
   * Called once every input is read (the stack files and the files they name, such as a zone
   * file), before the blocks a zone file makes are built, with their size in bytes: the CLI
   * bounds its heap's growth for a large input (src/cli/heap-growth.ts).
   */
  onInputRead?: (bytes: number) => void;
}

interface Setting {
  node: SourceNode;
  filename: string;
}

/** The settings of a stack (top-level keys holding one value each), from the file that states each. */
type Settings = Partial<Record<(typeof SETTINGS)[number], Setting>>;

/** The stack's settings once validated: what the blocks and the Stack take from them. */
interface ValidSettings {
  provider: Stack['provider'];
  name: string | undefined;
  prune: boolean;
  /** Undefined also when it names the stack's own name (an error). */
  renamedFrom: string | undefined;
  defaults: Map<string, SourceNode>;
}

/**
 * Reads, validates and resolves a stack: a YAML file or a directory of `*.yaml`/`*.yml`
 * files (sorted, merged). Never throws for a problem in the input and never touches the
 * network: every problem is a Diagnostic with an exact range, and all of them are reported.
 * A directory stack takes `provider:` and `defaults:` from at most one file; `version: 1`
 * must appear in at least one file, and every file that states it must say 1.
 *
 * The steps, in order: read the files; split their top level into settings and blocks;
 * validate the settings, then each block against its kind; check what spans blocks
 * (dependencies, ownership, moves); read the files blocks name; warn; assemble the Stack.
 */
export async function loadStack(path: string, env: Env = process.env, options: LoadStackOptions = {}): Promise<LoadStackResult> {
  const { files, diagnostics } = await readStackFiles(path, env);
  const fileTexts = new Map<string, string>(files.map((f) => [f.filename, f.text]));
  const [firstFile] = files;
  if (firstFile === undefined) return { diagnostics, files: fileTexts };

  const { settings, rawBlocks } = splitTopLevel(files, diagnostics);
  // A file with broken YAML may hold what the others miss (a version, the blocks others depend on): do not guess.
  const anySyntaxErrors = files.some((f) => f.syntaxErrors);
  if (!settings.version && !anySyntaxErrors) diagnostics.push(missingVersion(firstFile.filename));
  const valid = validateSettings(settings, diagnostics);
  const usedDefaults = new Set<string>();
  const typed = await validateBlocks(rawBlocks, valid.defaults, usedDefaults, diagnostics);
  maskSensitive(typed.values(), fileTexts);
  // A sensitive variable read again by a plain field would be sent in clear.
  const sensitiveNodes = new Set([...typed.values()].flatMap((b) => b.sensitive ?? []));
  if (sensitiveNodes.size > 0) {
    const roots = [...Object.values(settings).map((s) => s.node), ...rawBlocks.map((b) => b.node)];
    addDiagnostics(diagnostics, checkSensitiveElsewhere(roots, sensitiveNodes, env));
  }

  // A file with broken YAML may hold the blocks others depend on: do not guess.
  if (!anySyntaxErrors) {
    addDiagnostics(diagnostics, linkReferences(typed));
    addDiagnostics(diagnostics, checkDependencies(typed));
  }
  if (settings.name === undefined) addDiagnostics(diagnostics, checkOwnedBlocksHaveStackName(typed));
  addDiagnostics(diagnostics, resolveMoves(typed, valid, settings.renamed_from?.node.range));
  // Files blocks name (a subtitle's vtt_file) are read into their attributes, so the digest covers them.
  const { sensitive: sensitiveFiles, bytes: fileBytes } = await resolveFileFields(typed.values(), dirname(firstFile.filename), diagnostics, fileTexts);
  options.onInputRead?.(files.reduce((sum, f) => sum + Buffer.byteLength(f.text), fileBytes));
  // The record sets of the zone files dns_zone blocks name become dns_rrset blocks.
  expandZoneRecordFiles(typed, diagnostics, fileTexts);
  addDiagnostics(diagnostics, checkAcrossBlocks(typed));
  addDiagnostics(diagnostics, warnUnusedDefaults(valid.defaults, usedDefaults, typed.size));
  if (rawBlocks.length === 0 && !hasErrors(diagnostics)) {
    diagnostics.push({ severity: 'warning', code: 'empty-stack', summary: 'the stack declares no resources and no checks', range: startOf(firstFile.filename) });
  }

  const sorted = sortDiagnostics(
    diagnostics,
    files.map((f) => f.filename),
  );
  if (hasErrors(sorted)) return { diagnostics: sorted, files: fileTexts, ...(valid.name === undefined ? {} : { name: valid.name }) };
  return { stack: assembleStack(files, typed, valid, sensitiveFiles), diagnostics: sorted, files: fileTexts };
}

/**
 * The top level of every file: each setting from the first file that states it (a second is
 * `conflicting-setting`, but `version`, which every file may state), every block of `resources:`
 * and `checks:` in file order, an unknown key an error.
 */
function splitTopLevel(files: readonly SourceFile[], diagnostics: Diagnostic[]): { settings: Settings; rawBlocks: RawBlock[] } {
  const settings: Settings = {};
  const rawBlocks: RawBlock[] = [];
  for (const file of files) {
    if (!file.root) continue;
    const entries = file.root.entries;
    if (!entries) {
      diagnostics.push(error('invalid-type', 'a stack file must be a mapping with version, resources and checks', file.root.range));
      continue;
    }
    for (const [key, child] of entries) {
      const keyRange = child.keyRange ?? child.range;
      if (isSetting(key)) {
        const first = settings[key];
        if (key === 'version') checkVersion(child, diagnostics);
        if (first && key !== 'version') {
          diagnostics.push(
            error('conflicting-setting', `${key} is already set in ${at(first.node.keyRange ?? first.node.range)}`, keyRange, {
              detail: `A directory stack takes ${key}: from one file only; keep it in ${first.filename}.`,
            }),
          );
        } else if (!first) {
          settings[key] = { node: child, filename: file.filename };
        }
      } else if (key === 'resources' || key === 'checks') {
        if (child.value === null) continue;
        if (!child.entries) {
          diagnostics.push(error('invalid-type', `${key} must be a mapping of NAME → block`, child.range));
          continue;
        }
        for (const [name, node] of child.entries) rawBlocks.push({ section: key, name, node });
      } else {
        diagnostics.push(
          error('unknown-field', `unknown top-level field "${key}"${didYouMean(key, TOP_LEVEL_KEYS)}`, keyRange, {
            detail: `A stack file has: ${TOP_LEVEL_KEYS.join(', ')}.`,
          }),
        );
      }
    }
  }
  return { settings, rawBlocks };
}

function missingVersion(filename: string): Diagnostic {
  return error('missing-version', 'the stack does not state its version', startOf(filename), {
    detail: `Add "version: ${STACK_VERSION}" at the top of the file (in a directory stack, of one of its files).`,
  });
}

/** Each setting checked against its schema, and against the others (`prune` and `renamed_from` need `name`). */
function validateSettings(settings: Settings, diagnostics: Diagnostic[]): ValidSettings {
  for (const key of ['provider', 'defaults', 'name', 'renamed_from', 'prune'] as const) {
    const setting = settings[key];
    if (setting) refuseReferences(setting.node, `${key}:`, diagnostics);
  }
  const provider = settings.provider ? validateProvider(settings.provider.node, diagnostics) : {};
  const name = settings.name ? validateSetting(settings.name.node, STACK_NAME_SCHEMA, 'name', diagnostics) : undefined;
  const prune = (settings.prune ? validateSetting(settings.prune.node, PRUNE_SCHEMA, 'prune', diagnostics) : undefined) ?? false;
  if (prune && settings.prune && settings.name === undefined) {
    diagnostics.push(
      error('missing-stack-name', "prune: true needs the stack's name", settings.prune.node.keyRange ?? settings.prune.node.range, {
        detail: 'Prune destroys what carries this stack\'s ownership tags, which name the stack: add "name: <stack name>" at the top of the stack.',
      }),
    );
  }
  const renamedFrom = settings.renamed_from ? validateSetting(settings.renamed_from.node, RENAMED_FROM_SCHEMA, 'renamed_from', diagnostics) : undefined;
  if (settings.renamed_from && (settings.name === undefined || renamedFrom === name)) {
    const node = settings.renamed_from.node;
    diagnostics.push(
      settings.name === undefined
        ? error('missing-stack-name', "renamed_from needs the stack's new name", node.keyRange ?? node.range, {
            detail: 'renamed_from re-tags what carries the former name with the new one: add "name: <stack name>" at the top of the stack.',
          })
        : error('invalid-value', `renamed_from names the stack's own name "${name}"`, node.range, { detail: 'Write the name the stack had before, or remove renamed_from.' }),
    );
  }
  const defaults = settings.defaults ? validateDefaults(settings.defaults.node, diagnostics) : new Map<string, SourceNode>();
  return { provider, name, prune, renamedFrom: renamedFrom === name ? undefined : renamedFrom, defaults };
}

/** Each block validated against its kind, with the defaults it takes (recorded in `usedDefaults`); a repeated address is an error. By address. */
async function validateBlocks(
  rawBlocks: readonly RawBlock[],
  defaults: ReadonlyMap<string, SourceNode>,
  usedDefaults: Set<string>,
  diagnostics: Diagnostic[],
): Promise<Map<string, TypedBlock>> {
  const typed = new Map<string, TypedBlock>();
  // Credential keys a sensitive field claims are not refused (see claimSensitive).
  const claimed = new Set<Diagnostic>();
  // References known from the stack alone (a record set's zone naming a zone block's literal name) are written out first.
  const inlined = inlineKnownReferences(rawBlocks, diagnostics);
  for (const [index, raw] of rawBlocks.entries()) {
    // Validating many blocks takes a while: let a signal (Ctrl-C) be handled in between.
    if (index % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
    const result = validateBlock(raw, defaults, usedDefaults, diagnostics, claimed);
    if (!result) continue;
    for (const dependency of inlined.get(result.address) ?? []) {
      if (!result.dependsOn.some((d) => d.address === dependency.address)) result.dependsOn.push(dependency);
      if (result.block && !result.block.dependsOn.includes(dependency.address)) result.block.dependsOn.push(dependency.address);
    }
    const previous = typed.get(result.address);
    if (previous) {
      diagnostics.push(
        error('duplicate-address', `duplicate address ${result.address}`, result.keyRange, {
          address: result.address,
          detail: `${result.address} is already declared at ${at(previous.keyRange)}; addresses are unique across the whole stack.`,
        }),
      );
      continue;
    }
    typed.set(result.address, result);
  }
  if (claimed.size > 0) diagnostics.splice(0, diagnostics.length, ...diagnostics.filter((d) => !claimed.has(d)));
  return typed;
}

/** Masks the text of every sensitive value (its `${env:NAME}` reference or what was written instead) in the files' code frames. */
function maskSensitive(blocks: Iterable<TypedBlock>, fileTexts: Map<string, string>): void {
  const spans = new Map<string, Array<readonly [number, number]>>();
  for (const block of blocks) {
    for (const node of block.sensitive ?? []) {
      if (!(node instanceof FileNode)) continue;
      const list = spans.get(node.lines.filename) ?? [];
      list.push([node.start, node.end]);
      spans.set(node.lines.filename, list);
    }
  }
  for (const [filename, list] of spans) {
    const text = fileTexts.get(filename);
    if (text !== undefined) fileTexts.set(filename, maskSpans(text, list));
  }
}

/** A warning for each default no block takes (none when the stack has no valid block). */
function warnUnusedDefaults(defaults: ReadonlyMap<string, SourceNode>, usedDefaults: ReadonlySet<string>, blockCount: number): Diagnostic[] {
  if (blockCount === 0) return [];
  return [...defaults]
    .filter(([field]) => !usedDefaults.has(field))
    .map(([field, node]) => ({
      severity: 'warning' as const,
      code: 'unused-default',
      summary: `defaults.${field} is not used: no block of this stack takes ${field}`,
      range: node.keyRange ?? node.range,
    }));
}

/** The Stack of valid blocks and settings; its digest is computed when first asked for. */
function assembleStack(files: readonly SourceFile[], typed: ReadonlyMap<string, TypedBlock>, valid: ValidSettings, sensitiveFiles: Record<string, string>): Stack {
  const { provider, name, prune, renamedFrom } = valid;
  const blocks = [...typed.values()].map((t) => must(t.block, `the valid block ${t.address}`));
  const resources = blocks.filter((b): b is ResourceBlock => b.kind === 'resource');
  const checks = blocks.filter((b): b is CheckBlock => b.kind === 'check');
  // The digest is computed when first asked for (plan and apply ask; validate never does): it
  // writes and hashes the canonical JSON of the whole stack.
  let digest: string | undefined;
  return {
    version: STACK_VERSION,
    sources: files.map((f) => f.filename),
    ...(name === undefined ? {} : { name }),
    ...(renamedFrom === undefined ? {} : { renamedFrom }),
    prune,
    provider,
    resources,
    checks,
    ...(Object.keys(sensitiveFiles).length === 0 ? {} : { sensitiveFiles }),
    get digest() {
      return (digest ??= digestStack(provider, resources, checks, { name, prune, renamedFrom }));
    },
  };
}

/**
 * sha256 (hex) of the canonical JSON of what the stack asks for: version, provider, and
 * each block's address, type, attributes and dependencies, blocks sorted by address. File
 * names, comments, formatting and declaration order do not change it; a changed value or
 * environment variable does.
 */
export function digestStack(
  provider: Stack['provider'],
  resources: readonly ResourceBlock[],
  checks: readonly CheckBlock[],
  settings: { name?: string | undefined; prune?: boolean; renamedFrom?: string | undefined } = {},
): string {
  const view = (b: ResourceBlock | CheckBlock) => ({
    address: b.address,
    type: b.type,
    attributes: b.attributes,
    depends_on: [...b.dependsOn].sort(),
    ...(b.movedFrom === undefined ? {} : { moved_from: `${b.movedFrom.stack}/${b.movedFrom.address}` }),
    // A reference's place: its attribute holds the template as written, which a literal could equal.
    ...(b.references === undefined ? {} : { references: b.references.map((r) => r.path) }),
  });
  // name, prune, renamed_from and moves enter the digest only when set, so a stack without them keeps its digest.
  // The canonical JSON of the whole stack is hashed a block at a time (its keys in canonical
  // order), never built whole: a zone file of 175,000 record sets would make it hundreds of megabytes.
  const digest = createHash('sha256');
  const array = (blocks: readonly (ResourceBlock | CheckBlock)[]) => {
    const sorted = [...blocks].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    digest.update('[');
    sorted.forEach((b, i) => digest.update(i === 0 ? canonicalJson(view(b)) : `,${canonicalJson(view(b))}`));
    digest.update(']');
  };
  digest.update('{"checks":');
  array(checks);
  if (settings.name !== undefined) digest.update(`,"name":${JSON.stringify(settings.name)}`);
  digest.update(`,"provider":${canonicalJson(provider)}`);
  if (settings.prune) digest.update(',"prune":true');
  if (settings.renamedFrom !== undefined) digest.update(`,"renamed_from":${JSON.stringify(settings.renamedFrom)}`);
  digest.update(',"resources":');
  array(resources);
  digest.update(`,"version":${JSON.stringify(STACK_VERSION)}}`);
  return digest.digest('hex');
}

function checkVersion(node: SourceNode, diagnostics: Diagnostic[]): void {
  if (node.value === STACK_VERSION) return;
  if (typeof node.value === 'number' && Number.isInteger(node.value)) {
    diagnostics.push(error('unsupported-version', `stack version ${node.value} is not supported; this edgeform reads version ${STACK_VERSION}`, node.range));
  } else {
    diagnostics.push(error('invalid-type', `version must be the integer ${STACK_VERSION}`, node.range, { detail: `Write "version: ${STACK_VERSION}" (no quotes).` }));
  }
}

/** The top-level keys that hold one setting (from one file of a directory stack). */
const SETTINGS = ['version', 'name', 'renamed_from', 'provider', 'prune', 'defaults'] as const;

function isSetting(key: string): key is (typeof SETTINGS)[number] {
  return (SETTINGS as readonly string[]).includes(key);
}

/** A scalar setting checked against its schema; undefined (with a diagnostic) when it is not valid. */
function validateSetting<S extends z.ZodType>(node: SourceNode, schema: S, subject: string, diagnostics: Diagnostic[]): z.output<S> | undefined {
  const result = schema.safeParse(node.value, { reportInput: true });
  if (result.success) return result.data;
  addDiagnostics(diagnostics, issuesToDiagnostics(result.error.issues, { root: node, schema, subject }));
  return undefined;
}

/**
 * A block that omits its platform id of a kind found by ownership tags (KindSpec.create.key
 * 'owner') is found through tags that name the stack: without `name:` it could never be found
 * again after its create, so such a stack is refused before anything is read.
 */
/** Each kind's rules across its blocks (KindSpec.checkAcross), each problem at the block's field (or its key). */
function checkAcrossBlocks(blocks: ReadonlyMap<string, TypedBlock>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const type of Object.keys(RESOURCE_KINDS) as Array<keyof typeof RESOURCE_KINDS>) {
    const check = RESOURCE_KINDS[type].checkAcross;
    if (!check) continue;
    const ofKind = [...blocks.values()].flatMap((t) => (t.block?.kind === 'resource' && t.block.type === type ? [{ typed: t, block: t.block }] : []));
    for (const problem of check(ofKind.map((t) => t.block.attributes as Record<string, unknown>))) {
      const { typed, block } = must(ofKind[problem.index], `the ${type} block a rule across blocks names`);
      const source = block.fieldSources[problem.field];
      // A block a zone file made has no field sources: its problem is at its line of the file.
      const where = source === undefined ? typed.address : `${typed.address}: ${problem.field}`;
      out.push(error('invalid-value', `${where}: ${problem.message}`, source?.range ?? typed.keyRange, { address: typed.address }));
    }
  }
  return out;
}

function checkOwnedBlocksHaveStackName(blocks: ReadonlyMap<string, TypedBlock>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const typed of blocks.values()) {
    const block = typed.block;
    if (block?.kind !== 'resource') continue;
    const { create, idField } = RESOURCE_KINDS[block.type];
    if (create?.key !== 'owner' || (block.attributes as Record<string, unknown>)[idField] !== undefined) continue;
    out.push(
      error('missing-stack-name', `${block.address} has no ${idField}, so edgeform finds it by ownership tags, which need the stack's name`, typed.keyRange, {
        address: block.address,
        detail: `Add "name: <stack name>" at the top of the stack (the tags edgeform-stack and edgeform-address mark what it creates), or set ${idField} to adopt an existing ${block.type}.`,
      }),
    );
  }
  return out;
}

/**
 * Resolves each block's move (its `moved_from:`, or the stack's `renamed_from:` for every block
 * of a kind whose creates carry ownership tags) into the old stack and address, onto the block.
 * `moved_from: TYPE.NAME` without a stack means the stack's former name when it has
 * `renamed_from`, else its name. Refused: a move without the stack's name, a block moving from
 * itself or from an address a block of this stack still declares, two blocks moving from the
 * same old address (each resource can become only one block).
 */
function resolveMoves(
  blocks: ReadonlyMap<string, TypedBlock>,
  settings: Pick<ValidSettings, 'name' | 'renamedFrom' | 'prune'>,
  renamedRange: SourceRange | undefined,
): Diagnostic[] {
  const { name, renamedFrom, prune } = settings;
  const out: Diagnostic[] = [];
  const claimed = new Map<string, string>();
  for (const typed of blocks.values()) {
    const block = typed.block;
    if (block?.kind !== 'resource') continue;
    const explicit = typed.movedFrom;
    const kind = RESOURCE_KINDS[block.type];
    // An owner record (a DNS zone's pruning owner) is only ever a pruning stack's.
    if (kind.ownerRecord && !prune) {
      if (explicit) {
        out.push(
          error('invalid-field', `moved_from on a ${block.type} takes over its owner record, which only a stack with prune: true writes`, explicit.range, {
            address: block.address,
            detail: 'Add "prune: true" at the top of the stack to take over pruning it, or remove moved_from (a stack without prune only reads it).',
          }),
        );
      }
      continue;
    }
    if (explicit === undefined && (renamedFrom === undefined || !takesMoves(kind))) continue;
    if (name === undefined) {
      if (explicit) {
        out.push(
          error('missing-stack-name', "moved_from needs the stack's name: the ownership tags it rewrites name the stack", explicit.range, {
            address: block.address,
            detail: 'Add "name: <stack name>" at the top of the stack.',
          }),
        );
      }
      continue;
    }
    const stack = explicit?.stack ?? renamedFrom ?? name;
    const address = explicit?.address ?? block.address;
    const range = explicit?.range ?? must(renamedRange, 'the place of renamed_from:');
    const old = `${stack}/${address}`;
    if (stack === name && address === block.address) {
      out.push(
        error('invalid-value', `moved_from names the block's own address ${old}`, range, {
          address: block.address,
          detail: 'Write the address it had before the rename, or remove moved_from.',
        }),
      );
      continue;
    }
    if (stack === name && blocks.has(address)) {
      out.push(
        error('invalid-value', `moved_from names ${address}, which a block of this stack still declares`, range, {
          address: block.address,
          detail: `A resource is moved from an address no block declares any more: remove the block ${address}, or this moved_from.`,
        }),
      );
      continue;
    }
    const first = claimed.get(old);
    if (first !== undefined) {
      out.push(
        error('duplicate-move', `${block.address} and ${first} both move from ${old}`, range, {
          address: block.address,
          detail: 'One resource can become only one block: keep moved_from on one of them.',
        }),
      );
      continue;
    }
    claimed.set(old, block.address);
    block.movedFrom = { stack, address, range };
  }
  return out;
}

function validateProvider(node: SourceNode, diagnostics: Diagnostic[]): Stack['provider'] {
  if (!node.entries) {
    if (node.value !== null) diagnostics.push(error('invalid-type', 'provider must be a mapping', node.range));
    return {};
  }
  const result = PROVIDER_SCHEMA.safeParse(node.value, { reportInput: true });
  if (result.success) return result.data;
  addDiagnostics(diagnostics, issuesToDiagnostics(result.error.issues, { root: node, schema: PROVIDER_SCHEMA, subject: 'provider' }));
  return {};
}

/**
 * How many unknown dependencies get a "did you mean": each suggestion compares the address with
 * every address of the stack, so suggesting for all of them would make a stack full of such
 * mistakes cost the square of its size. The first ones (in file order) are those printed.
 */
export const MAX_DEPENDENCY_SUGGESTIONS = 100;

/**
 * Checks where each block's references point (see checkReferenceTargets) and makes each block
 * it reads a dependency of the block (no depends_on needed; a cycle through references is
 * reported as any other).
 */
function linkReferences(blocks: ReadonlyMap<string, TypedBlock>): Diagnostic[] {
  const referring = [...blocks.values()].filter((b): b is TypedBlock & { references: NonNullable<TypedBlock['references']> } => b.references !== undefined);
  if (referring.length === 0) return [];
  const absent = new Set([...blocks.values()].filter((b) => (b.block?.attributes as { ensure?: unknown } | undefined)?.ensure === 'absent').map((b) => b.address));
  const out = checkReferenceTargets(referring, new Set(blocks.keys()), absent, { count: MAX_DEPENDENCY_SUGGESTIONS });
  for (const typed of referring) {
    for (const reference of typed.references) {
      for (const address of referenceAddresses(reference.parts)) {
        // A block being deleted that refers to another being deleted is deleted first (a subnet before its network).
        if (!blocks.has(address) || address === typed.address || (absent.has(address) && !absent.has(typed.address))) continue;
        typed.dependsOn.push({ address, range: reference.range });
        if (typed.block && !typed.block.dependsOn.includes(address)) typed.block.dependsOn.push(address);
      }
    }
  }
  return out;
}

function checkDependencies(blocks: ReadonlyMap<string, TypedBlock>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const addresses = [...blocks.keys()];
  let suggestions = 0;
  let dependsOnAny = false;
  for (const block of blocks.values()) {
    if (block.dependsOn.length > 0) dependsOnAny = true;
    for (const dep of block.dependsOn) {
      if (blocks.has(dep.address)) continue;
      const hint = suggestions++ < MAX_DEPENDENCY_SUGGESTIONS ? didYouMean(dep.address, addresses) : '';
      out.push(error('unknown-dependency', `depends_on names ${dep.address}, which is not in the stack${hint}`, dep.range, { address: block.address }));
    }
  }
  // Without a single depends_on entry there is no cycle to look for.
  if (!dependsOnAny) return out;
  const graph = buildGraph([...blocks.values()].map((b) => ({ address: b.address, dependsOn: b.dependsOn.map((d) => d.address) })));
  for (const cycle of findCycles(graph)) {
    const [from, to] = cycle;
    const edge = must(
      blocks.get(must(from, "a cycle's first block"))?.dependsOn.find((d) => d.address === to),
      `the edge ${from} -> ${to} of a cycle`,
    );
    out.push(
      error('dependency-cycle', `dependency cycle: ${cycle.join(' -> ')}`, edge.range, {
        address: from,
        detail:
          'A block runs only after everything it depends on (its depends_on and the blocks its references read), so a cycle can never start; remove one of these dependencies.',
      }),
    );
  }
  return out;
}

function error(code: string, summary: string, range: SourceRange, extra: { detail?: string; address?: string } = {}): Diagnostic {
  return { severity: 'error', code, summary, ...extra, range };
}

function startOf(filename: string): SourceRange {
  return { filename, start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };
}

function at(range: SourceRange): string {
  return `${range.filename}:${range.start.line}:${range.start.column}`;
}

function sortDiagnostics(diagnostics: readonly Diagnostic[], filenames: readonly string[]): Diagnostic[] {
  const order = new Map(filenames.map((f, i) => [f, i]));
  const key = (d: Diagnostic): [number, number, number] => (d.range ? [order.get(d.range.filename) ?? -1, d.range.start.line, d.range.start.column] : [-2, 0, 0]);
  return [...diagnostics].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

function referenceAddresses(parts: readonly TemplatePart[]): string[] {
  return templateTargets(parts).map(referenceAddress);
}
