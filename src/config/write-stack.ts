import { must } from '../errors.js';
import { boolCoreTag, boolYaml11Tag, floatCoreTag, floatYaml11Tag, intCoreTag, intYaml11Tag, mergeTag, NOT_RESOLVED, nullCoreTag, nullYaml11Tag, timestampTag } from 'js-yaml';
import { Document, visit, type Pair, type Scalar, type YAMLMap } from 'yaml';
import { API_KEY_ENV } from '../env.js';
import { RESOURCE_KINDS, type ResourceType } from '../kinds/registry.js';
import type { Diagnostic } from './diagnostics.js';
import { releaseSecretIds } from './sensitive-fields.js';
import { canonicalJson } from '../model/fingerprint.js';
import { writeReference } from '../model/references.js';
import { blockFieldRank } from './format-stack.js';
import { STACK_VERSION } from './load-stack.js';
import { isSecretFieldName, withoutSecretWords } from './secrets.js';
import { readSourceFile } from './source-tree.js';
import { NAME_PATTERN } from './validate-block.js';

/** One block of a stack to write: its type, the name to derive its block name from, its attributes, and its comment. */
export interface DraftBlock {
  type: ResourceType;
  /** The block name to derive from (a live name or id); made a valid, unique name by writeStack. */
  name: string;
  /** Its fields and values, written in the order of the kind's schema. */
  attributes: Readonly<Record<string, unknown>>;
  /** The comment above the block (one line; where it came from). */
  comment: string;
  /** Its platform id: a value of another block's `refersTo` field equal to it is written as a reference to this block. */
  id?: string;
  /**
   * Which of its attributes hold the platform id of which kind (`{ network_id: 'cloud_network' }`):
   * such a value equal to the `id` of a block of that kind in the same stack is written as
   * `${TYPE.NAME.id}` (the whole value, so it keeps its type), not as the literal id; with a
   * `field` (`{ zone: { type: 'dns_zone', field: 'name' } }`), as `${TYPE.NAME.FIELD}`, a readable
   * field whose value is that id.
   */
  refersTo?: Readonly<Record<string, ReferTarget>>;
  /**
   * Sensitive fields the platform never answers (a secret's `private_key`), by field: the prefix
   * of the environment variable the block reads it from (`TLS_KEY`). Each is written as
   * `${env:PREFIX_BLOCKNAME}`, a name the writer makes from the written block name (letters and
   * digits upper-cased, anything else `_`, made unique in the stack), so no live text reaches it
   * but as those characters; WrittenStack.placeholders names each, for the warning to set it.
   */
  envPlaceholders?: Readonly<Record<string, string>>;
}

/** What a `refersTo` field names: a kind (the reference reads `id`), or a kind and the readable field it reads. */
export type ReferTarget = ResourceType | { readonly type: ResourceType; readonly field: string };

/** A stack to write: its blocks, the base URL to state (only when not the public one), and a comment at the top. */
export interface StackDraft {
  blocks: readonly DraftBlock[];
  /** Written as `provider.base_url`; leave it out for the default endpoint. */
  baseUrl?: string;
  /** Lines of the comment at the top of the file. */
  header?: readonly string[];
  /** Where the schema line points, relative to the stack file (default `./edgeform.schema.json`; see findSchemaPath). */
  schemaPath?: string;
}

/** The fields `defaults:` takes over when every block that has one holds the same value. */
const DEFAULTABLE = ['project_id', 'region_id'] as const;

/** The longest block name written (the live names it is made from can be long). */
export const MAX_BLOCK_NAME = 64;

/**
 * Characters a stack file never holds raw: C0 controls (but line feed), DEL, C1 controls,
 * line/paragraph separators, bidi controls, the byte order mark, the noncharacters U+FFFE and
 * U+FFFF, and lone surrogates (which no UTF-8 file can hold).
 */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\p{Bidi_Control}\ud800-\udfff]/gu;
/** Printable ASCII over several lines (a WebVTT text): written as a literal block (`|`), line for line. */
const PLAIN_ASCII_LINES = /^[\x20-\x7e\n]*\n[\x20-\x7e\n]*$/;
/** A line starting or ending with a space, which a literal block does not keep reliably: such text is double-quoted instead. */
const EDGE_SPACE = /(?:^|\n) | (?:\n|$)/;

const escapeChar = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A block name made from a live name or id: the words of a credential's name (`secret`,
 * `token`: the stack reader refuses a key holding one) are left out, every run of characters a
 * name may not hold becomes `_`, a name that would not start with a letter or `_` is prefixed
 * with the kind's type (without those words: `cloud_secret` gives `cloud`), and it is cut to
 * MAX_BLOCK_NAME characters; a name left empty is that type. The result always matches
 * NAME_PATTERN and never looks like a credential's.
 */
export function sanitizeBlockName(hint: string, kind: string): string {
  const type = withoutSecretWords(kind).replace(/^_+|_+$/g, '') || 'block';
  let name = withoutSecretWords(hint)
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_BLOCK_NAME);
  if (name === '') return type;
  if (!/^[a-zA-Z_]/.test(name)) name = `${type}_${name}`.slice(0, MAX_BLOCK_NAME);
  // A key naming a credential is refused by the stack reader (see isSecretFieldName).
  return NAME_PATTERN.test(name) && !isSecretFieldName(name) ? name : type;
}

/**
 * Valid, unique block names for blocks in order: each sanitized (sanitizeBlockName); a name
 * already taken gets `_2`, `_3`, ... (the first block keeps the plain name).
 */
export function uniqueBlockNames(blocks: ReadonlyArray<Pick<DraftBlock, 'name' | 'type'>>): string[] {
  const taken = new Set<string>();
  // The next number to try for each name: a thousand blocks of one name are not a million tries.
  const next = new Map<string, number>();
  return blocks.map((block) => {
    const base = sanitizeBlockName(block.name, block.type);
    let name = base;
    let n = next.get(base) ?? 2;
    for (; taken.has(name); n++) name = `${base.slice(0, MAX_BLOCK_NAME - String(n).length - 1)}_${n}`;
    next.set(base, n);
    taken.add(name);
    return name;
  });
}

/** A comment's text on one line with no raw control or bidi character. */
function commentText(text: string): string {
  return ` ${text.replace(/\n/g, '\\n').replace(UNSAFE, escapeChar)}`;
}

/** A block writeStack left out: its index in the draft, and why (it would not read back as its live values). */
export interface LeftOutBlock {
  index: number;
  reason: string;
}

/** What writeStack wrote: the text, and the draft's blocks it left out. */
export interface WrittenStack {
  text: string;
  leftOut: LeftOutBlock[];
  /** Each `${env:NAME}` written for a DraftBlock.envPlaceholders field: the block's address, the field and the variable to set. */
  placeholders: EnvPlaceholder[];
}

/** A `${env:NAME}` a written stack reads (see DraftBlock.envPlaceholders). */
export interface EnvPlaceholder {
  address: string;
  field: string;
  variable: string;
}

/**
 * Writes a stack file (version 1) whose every value is data, for `edgeform import`: the
 * `# yaml-language-server: $schema=PATH` line (`draft.schemaPath`) and the header on top,
 * `provider.base_url` when one is given, `defaults:` for project_id and region_id when every
 * block that has the field holds the same value (the blocks then leave it out), and one block
 * per draft block, its comment above it, under a unique valid name, in fmt's canonical order
 * (the top-level sections in TOP_LEVEL_ORDER, each block's fields by blockFieldRank), so
 * `fmt --check` passes on it as written: it is not formatted again, which read the whole text
 * through the yaml library a second time (issue 33). Pure.
 *
 * Every value is written as data: each `${` of a string is written `$${`, so nothing of it is
 * read as an interpolation; a key or string value is written plain only when every YAML reader
 * reads it back as the same string (isPlainSafe), else double-quoted (a multi-line printable
 * ASCII text, a WebVTT subtitle, as a literal block). The text holds no raw control or bidi
 * character (they are `\uXXXX` escapes in double quotes). The text is then read back with the
 * stack reader (`env` gives it the API key to refuse): a block whose values do not come back
 * exactly, or that the reader refuses, is left out (named in `leftOut` with why) and the rest is
 * written again, so what is returned reads back to exactly the values of the blocks it holds.
 *
 * The one exception to "every value is data": a `refersTo` field whose value is the `id` of a
 * block of the named kind among the blocks written is written as a reference to it,
 * `${TYPE.NAME.id}` (see DraftBlock.refersTo); a block left out is never referred to, and a
 * reference that would close a cycle (a block naming itself, two naming each other) stays the literal id.
 */
export function writeStack(draft: StackDraft, env: Readonly<Record<string, string | undefined>> = {}): WrittenStack {
  const leftOut: LeftOutBlock[] = [];
  let kept = draft.blocks.map((block, index) => ({ block, index }));
  // Leaving a block out may change the defaults and names of the others: write and check again.
  for (let pass = 0; pass < 3; pass++) {
    const layout = layOut(kept.map((k) => k.block));
    const text = render(draft, layout);
    const problems = readBack(text, layout, env);
    if (problems.size === 0) return { text, leftOut: leftOut.sort((x, y) => x.index - y.index), placeholders: layout.placeholders };
    kept.forEach((k, i) => {
      const reason = problems.get(i);
      if (reason !== undefined) leftOut.push({ index: k.index, reason });
    });
    kept = kept.filter((_, i) => !problems.has(i));
  }
  throw new Error('writeStack: the stack does not read back after leaving out every block that did not (this is a bug)');
}

/** Where the schema line points when nothing better is known: a schema beside the stack (`edgeform schema > edgeform.schema.json`). */
export const DEFAULT_SCHEMA_PATH = './edgeform.schema.json';

/** The schema line editors read (yaml-language-server), pointing at `path` (relative to the stack file). */
export function schemaLine(path: string = DEFAULT_SCHEMA_PATH): string {
  return `yaml-language-server: $schema=${path}`;
}

/** The stack's content as it will be written: defaults, block names, each block's fields in canonical order. */
interface Layout {
  defaults: Record<string, unknown>;
  names: string[];
  /** Each block as written: `type`, then its fields (without those in defaults) in canonical order. */
  blocks: Array<Record<string, unknown>>;
  /** By block, the fields that hold a reference (`${TYPE.NAME.id}`, written as it is, not as data). */
  references: Array<ReadonlySet<string>>;
  comments: string[];
  placeholders: EnvPlaceholder[];
}

/** The variable name of an env placeholder: PREFIX_ and the block name in letters, digits and `_` (the prefix is the kind's own, [A-Z][A-Z0-9_]*). */
function placeholderVariable(prefix: string, blockName: string, taken: Set<string>): string {
  if (!/^[A-Z][A-Z0-9_]*$/.test(prefix)) throw new Error(`writeStack: env placeholder prefix ${JSON.stringify(prefix)} is not a variable name (this is a bug)`);
  const base = [
    prefix,
    blockName
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, ''),
  ]
    .filter((part) => part !== '')
    .join('_');
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

function layOut(blocks: readonly DraftBlock[]): Layout {
  const defaults: Record<string, unknown> = {};
  for (const field of DEFAULTABLE) {
    const values = new Set(blocks.filter((b) => field in b.attributes).map((b) => JSON.stringify(b.attributes[field])));
    // The one value every block that has the field gives it.
    if (values.size === 1) for (const value of values) defaults[field] = JSON.parse(value) as unknown;
  }
  const names = uniqueBlockNames(blocks);
  const referable = referableBlocks(blocks);
  const references = blocks.map(() => new Set<string>());
  // The blocks each block refers to so far: a reference that would close a cycle stays a literal id.
  const refersTo = blocks.map(() => new Set<number>());
  const placeholders: EnvPlaceholder[] = [];
  const variables = new Set<string>();
  return {
    defaults,
    names,
    placeholders,
    blocks: blocks.map((block, i) => {
      const ownTargets = must(refersTo[i], "a block's targets");
      const ownReferences = must(references[i], "a block's reference fields");
      const rank = blockFieldRank(block.type);
      const name = must(names[i], "a block's name");
      const placeholderFields = Object.entries(block.envPlaceholders ?? {}).map(([field, prefix]) => {
        const variable = placeholderVariable(prefix, name, variables);
        placeholders.push({ address: `${block.type}.${name}`, field, variable });
        ownReferences.add(field);
        return [field, `\${env:${variable}}`] as const;
      });
      const placeheld = new Map<string, unknown>(placeholderFields);
      const fields = [...Object.keys(block.attributes).filter((f) => !placeheld.has(f)), ...placeheld.keys()].filter((f) => !(f in defaults)).sort((a, b) => rank(a) - rank(b));
      return {
        type: block.type,
        ...Object.fromEntries(
          fields.map((f) => {
            if (placeheld.has(f)) return [f, placeheld.get(f)];
            const value = block.attributes[f];
            const named = block.refersTo?.[f];
            const to = named === undefined ? undefined : typeof named === 'string' ? { type: named, field: 'id' } : named;
            /** The reference a value is written as, or undefined when it stays data. */
            const refer = (item: unknown): string | undefined => {
              if (to === undefined || (typeof item !== 'string' && typeof item !== 'number')) return undefined;
              const target = referable.get(referableKey(to.type, String(item)));
              if (target === undefined || reaches(target, i, refersTo)) return undefined;
              ownTargets.add(target);
              return writeReference({ type: to.type, name: must(names[target], "a referable block's name"), field: to.field });
            };
            // A list of ids (an instance's volume_ids): each item that names a block is written as a reference, the others as data.
            if (Array.isArray(value) && to !== undefined) {
              const items = value.map((item) => ({ item, reference: refer(item) }));
              if (items.every((x) => x.reference === undefined)) return [f, value];
              ownReferences.add(f);
              return [f, items.map((x) => x.reference ?? asData(x.item))];
            }
            const reference = refer(value);
            if (reference === undefined) return [f, value];
            ownReferences.add(f);
            return [f, reference];
          }),
        ),
      };
    }),
    references,
    comments: blocks.map((b) => b.comment),
  };
}

/** Whether block `from` is `to` or refers to it through `edges` (by block, the blocks it refers to). */
function reaches(from: number, to: number, edges: ReadonlyArray<ReadonlySet<number>>): boolean {
  const seen = new Set<number>();
  const stack = [from];
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    if (at === to) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...must(edges[at], "a block's edges"));
  }
  return false;
}

/** By kind and platform id, the block a reference may name: only an id held by one block of its kind. */
function referableBlocks(blocks: readonly DraftBlock[]): Map<string, number> {
  const byId = new Map<string, number>();
  const shared = new Set<string>();
  blocks.forEach((block, i) => {
    if (block.id === undefined) return;
    const key = referableKey(block.type, block.id);
    if (byId.has(key)) shared.add(key);
    byId.set(key, i);
  });
  for (const key of shared) byId.delete(key);
  return byId;
}

const referableKey = (type: string, id: string) => `${type}\u0000${id}`;

function render(draft: StackDraft, layout: Layout): string {
  const resources = Object.fromEntries(
    layout.names.map((name, i) => [
      name,
      Object.fromEntries(
        Object.entries(must(layout.blocks[i], 'a laid out block')).map(([field, value]) => [
          field,
          must(layout.references[i], "a block's reference fields").has(field) ? value : asData(value),
        ]),
      ),
    ]),
  );
  const doc = new Document({
    version: STACK_VERSION,
    ...(draft.baseUrl !== undefined ? { provider: { base_url: asData(draft.baseUrl) } } : {}),
    ...(Object.keys(layout.defaults).length > 0 ? { defaults: layout.defaults } : {}),
    resources,
  });
  doc.commentBefore = [schemaLine(draft.schemaPath), ...(draft.header ?? [])].map(commentText).join('\n');
  const map = doc.get('resources', true) as YAMLMap<Scalar, unknown>;
  (map.items as Array<Pair<Scalar, unknown>>).forEach((pair, i) => {
    pair.key.commentBefore = commentText(must(layout.comments[i], "a block's comment"));
    if (i > 0) pair.key.spaceBefore = true;
  });
  visit(doc, {
    Scalar(key, node) {
      if (typeof node.value !== 'string') return;
      const value = node.value;
      if (key === 'value' && PLAIN_ASCII_LINES.test(value) && !EDGE_SPACE.test(value)) node.type = 'BLOCK_LITERAL';
      else node.type = isPlainSafe(value) ? 'PLAIN' : 'QUOTE_DOUBLE';
    },
  });
  // Only double-quoted scalars can hold such characters now, and there `\uXXXX` is the character.
  return doc.toString({ lineWidth: 0 }).replace(UNSAFE, (char) => (char === '\t' ? '\\t' : escapeChar(char)));
}

/** A value with every `${` of its strings written `$${` (what the stack reader takes for a literal `${`); keys are never interpolated, so they stay. */
function asData(value: unknown): unknown {
  if (typeof value === 'string') return escapeInterpolation(value);
  if (Array.isArray(value)) return value.map(asData);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asData(v)]));
  return value;
}

/** `text` as a stack string that means exactly `text`: each `${` written `$${` (see interpolate). */
export function escapeInterpolation(text: string): string {
  // A function, not a replacement string: there "$$" would mean one "$".
  return text.replaceAll('${', () => '$${');
}

/** The longest string written plain; longer ones are double-quoted (no reader then weighs them as implicit keys). */
const MAX_PLAIN = 120;
/** Letters, digits and a few punctuation marks, single spaces between words: nothing YAML gives a meaning to but `:` (checked below). */
const PLAIN_CHARS = /^[A-Za-z0-9_./(+](?:[A-Za-z0-9_./()+=,;@:-]| (?! |$))*$/;
/** Words YAML 1.1 reads as a boolean or null (`yes`, `off`, `~`, ...); 1.2 reads fewer of them. */
const YAML_WORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

/**
 * Whether a string may be written as a plain scalar (a key or a value in block style): true
 * only when every YAML reader (the yaml library and js-yaml, under YAML 1.2 and 1.1 schemas)
 * reads it back as the same string. Anything else (an indicator first, `: ` or ` #`, a
 * trailing `:`, edge or double spaces, a line break, anything not printable ASCII, a word or
 * number YAML gives a type, longer than MAX_PLAIN) is quoted.
 */
export function isPlainSafe(text: string): boolean {
  if (text.length === 0 || text.length > MAX_PLAIN || !PLAIN_CHARS.test(text) || text.endsWith(':') || text.includes(': ')) return false;
  if (/^[A-Za-z_/(]/.test(text)) return !YAML_WORDS.test(text);
  // A digit, ".", "+" first: a number, a date or a time under some schema? (js-yaml leaves a float
  // that overflows, "1e400", a string; the yaml library reads a number.)
  if (CORE_NUMBER.test(text)) return false;
  return TYPED_SCALARS.every((tag) => tag.resolve(text, false, tag.tagName) === NOT_RESOLVED);
}

/** A number of the YAML 1.2 core schema. */
const CORE_NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** The tags YAML 1.2 (core) and 1.1 give a plain scalar that is not a string (js-yaml's, which the stack reader, yaml-reader.ts, reads with too). */
const TYPED_SCALARS = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag, nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag, timestampTag, mergeTag];

/**
 * Reads a written stack back (readSourceFile, as plan does, with `env`'s API key and no other
 * variable) and returns, by block index, why each block that does not come back as written did
 * not: a diagnostic in it, or a value that differs.
 */
function readBack(text: string, layout: Layout, env: Readonly<Record<string, string | undefined>>): Map<number, string> {
  // A placeholder's variable reads back as its own reference, which the block holds as written.
  const placeheld = Object.fromEntries(layout.placeholders.map((p) => [p.variable, `\${env:${p.variable}}`]));
  const file = readSourceFile(WRITTEN_FILE, text, { ...placeheld, [API_KEY_ENV]: env[API_KEY_ENV] });
  const problems = new Map<number, string>();
  const blocks = file.root?.entries?.get('resources')?.entries;
  // A field holding the id of a secret resource (`secret_id`) is no credential, as when the stack is loaded.
  const released = new Set<Diagnostic>();
  layout.blocks.forEach((block, i) => {
    const node = blocks?.get(layout.names[i]!);
    const kind = RESOURCE_KINDS[block.type as ResourceType];
    if (node && kind.secretIds) for (const refusal of releaseSecretIds(kind, node).released) released.add(refusal);
  });
  const errors = file.diagnostics.filter((d) => d.severity === 'error' && !released.has(d));
  if (errors.length > 0) {
    // Where each block stands, to find whose each problem is (ranges cost time: only now).
    const spans = layout.names.map((name) => {
      const node = blocks?.get(name);
      return node ? { from: (node.keyRange ?? node.range).start.line, to: node.range.end.line } : undefined;
    });
    for (const d of errors) {
      let at = spans.findIndex((s) => s !== undefined && d.range !== undefined && d.range.start.line >= s.from && d.range.start.line <= s.to);
      // A block whose key the reader refused is not in the tree: the problem is that block's.
      if (at === -1) at = spans.findIndex((s, i) => s === undefined && !problems.has(i));
      if (at === -1) throw new Error(`writeStack: the stack it wrote does not read back: ${d.summary} (this is a bug)`);
      if (!problems.has(at)) problems.set(at, `it would not read back: ${d.summary}`);
    }
  }
  layout.blocks.forEach((block, i) => {
    if (problems.has(i)) return;
    const node = blocks?.get(must(layout.names[i], "a block's name"));
    if (!node) problems.set(i, 'it would not read back: the block is missing');
    else if (canonicalJson(node.value) !== canonicalJson(block)) problems.set(i, 'it would not read back as its live values');
  });
  if (problems.size === 0) {
    const defaults = file.root?.entries?.get('defaults')?.value ?? {};
    if (canonicalJson(defaults) !== canonicalJson(layout.defaults)) throw new Error('writeStack: defaults do not read back (this is a bug)');
  }
  return problems;
}

/** The name the read-back check gives the text it reads (never shown: its problems become reasons without places). */
const WRITTEN_FILE = 'imported.yaml';
