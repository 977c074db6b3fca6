import { Document, visit, type Pair, type Scalar, type YAMLMap } from 'yaml';
import { RESOURCE_KINDS, type ResourceType } from '../kinds/registry.js';
import { STACK_VERSION } from './load-stack.js';
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
}

/** A stack to write: its blocks, the base URL to state (only when not the public one), and a comment at the top. */
export interface StackDraft {
  blocks: readonly DraftBlock[];
  /** Written as `provider.base_url`; leave it out for the default endpoint. */
  baseUrl?: string;
  /** Lines of the comment at the top of the file. */
  header?: readonly string[];
}

/** The fields `defaults:` takes over when every block that has one holds the same value. */
const DEFAULTABLE = ['project_id', 'region_id'] as const;

/** The longest block name written (the live names it is made from can be long). */
export const MAX_BLOCK_NAME = 64;

/** Characters a stack file never holds raw: C0 controls (but line feed), DEL, C1 controls, line/paragraph separators, bidi controls. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;
/** A string that is not plain printable ASCII: written double-quoted, where every character has an escape. */
const NOT_PLAIN_ASCII = /[^\x20-\x7e]/;
/** Printable ASCII over several lines (a WebVTT text): written as a literal block (`|`), line for line. */
const PLAIN_ASCII_LINES = /^[\x20-\x7e\n]*\n[\x20-\x7e\n]*$/;
/** A line starting or ending with a space, which a literal block does not keep reliably: such text is double-quoted instead. */
const EDGE_SPACE = /(?:^|\n) | (?:\n|$)/;

const escapeChar = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A block name made from a live name or id: every run of characters a name may not hold
 * becomes `_`, a name that would not start with a letter or `_` is prefixed with the kind's
 * type, and it is cut to MAX_BLOCK_NAME characters. The result always matches NAME_PATTERN.
 */
export function sanitizeBlockName(hint: string, type: string): string {
  let name = hint
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_BLOCK_NAME);
  if (name === '') return type;
  if (!/^[a-zA-Z_]/.test(name)) name = `${type}_${name}`.slice(0, MAX_BLOCK_NAME);
  return NAME_PATTERN.test(name) ? name : type;
}

/**
 * Valid, unique block names for blocks in order: each sanitized (sanitizeBlockName); a name
 * already taken gets `_2`, `_3`, ... (the first block keeps the plain name).
 */
export function uniqueBlockNames(blocks: ReadonlyArray<Pick<DraftBlock, 'name' | 'type'>>): string[] {
  const taken = new Set<string>();
  return blocks.map((block) => {
    const base = sanitizeBlockName(block.name, block.type);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_BLOCK_NAME - String(n).length - 1)}_${n}`;
    taken.add(name);
    return name;
  });
}

/** A comment's text on one line with no raw control or bidi character. */
function commentText(text: string): string {
  return ` ${text.replace(/\n/g, '\\n').replace(UNSAFE, escapeChar)}`;
}

/**
 * Writes a stack file (version 1) through the yaml Document API: `provider.base_url` when one
 * is given, `defaults:` for project_id and region_id when every block that has the field holds
 * the same value (the blocks then leave it out), and one block per draft block, its comment
 * above it, its fields in the order of its kind's schema, under a unique valid name. Pure.
 *
 * The text holds no raw control or bidi character: a string that is not plain printable ASCII
 * is written double-quoted and such characters as `\uXXXX` escapes, so the file reads back to
 * the same values and shows in a terminal as it is; printable ASCII over several lines (subtitle
 * text) is a literal block, which reads back the same and reads as the text itself.
 */
export function writeStack(draft: StackDraft): string {
  const defaults: Record<string, unknown> = {};
  for (const field of DEFAULTABLE) {
    const values = new Set(draft.blocks.filter((b) => field in b.attributes).map((b) => JSON.stringify(b.attributes[field])));
    if (values.size === 1) defaults[field] = JSON.parse([...values][0]!) as unknown;
  }
  const names = uniqueBlockNames(draft.blocks);
  const resources: Record<string, Record<string, unknown>> = {};
  draft.blocks.forEach((block, i) => {
    const order = Object.keys(RESOURCE_KINDS[block.type].shape.shape);
    const fields = Object.keys(block.attributes)
      .filter((f) => !(f in defaults))
      .sort((a, b) => rank(order, a) - rank(order, b));
    resources[names[i]!] = { type: block.type, ...Object.fromEntries(fields.map((f) => [f, block.attributes[f]])) };
  });

  const doc = new Document({
    version: STACK_VERSION,
    ...(draft.baseUrl !== undefined ? { provider: { base_url: draft.baseUrl } } : {}),
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
    resources,
  });
  if (draft.header && draft.header.length > 0) doc.commentBefore = draft.header.map(commentText).join('\n');
  const map = doc.get('resources', true) as YAMLMap<Scalar, unknown>;
  (map.items as Array<Pair<Scalar, unknown>>).forEach((pair, i) => {
    pair.key.commentBefore = commentText(draft.blocks[i]!.comment);
    if (i > 0) pair.key.spaceBefore = true;
  });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (PLAIN_ASCII_LINES.test(node.value) && !EDGE_SPACE.test(node.value)) node.type = 'BLOCK_LITERAL';
      else if (NOT_PLAIN_ASCII.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  // Only double-quoted scalars can hold such characters now, and there `\uXXXX` is the character.
  return doc.toString({ lineWidth: 0 }).replace(UNSAFE, (char) => (char === '\t' ? '\\t' : escapeChar(char)));
}

function rank(order: readonly string[], field: string): number {
  const at = order.indexOf(field);
  return at === -1 ? order.length : at;
}
