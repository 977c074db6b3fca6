import { isMap, isScalar, LineCounter, parseDocument, visit, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { must } from '../errors.js';
import { ALL_KINDS, type KindSpec } from '../kinds/registry.js';
import { TOP_LEVEL_KEYS } from './types.js';

/** What formatting one stack file gives: its canonical text, or why it could not be read. */
export type FormattedStack = { ok: true; text: string; changed: boolean } | { ok: false; error: { line: number; column: number; message: string } };

/**
 * A stack file's text with its keys in canonical order: the top-level sections as
 * TOP_LEVEL_KEYS (version, name, renamed_from, prune, provider, defaults, resources, checks); within each block of `resources:` and `checks:`, `type` first, then the
 * kind's identity fields, then its other fields in schema order, then keys the kind does not
 * know (in their order), `depends_on` last. The yaml Document API finds each key and the
 * extent of its value; only those spans of text move, each with the comment lines right above
 * it and everything on its lines (trailing comments, quoting, flow style, alignment), so the
 * result differs from the input in order only. The file's header (the comments above its first
 * key) stays on top. A file already in that order comes back byte for byte (`changed: false`);
 * formatting is idempotent. A flow-style block (`web_ip: { ... }`) is left as it is. A file
 * that is not YAML is an error at its line and column.
 */
export function formatStackText(text: string): FormattedStack {
  const parsed = parse(text);
  if (!parsed.ok) return parsed;
  // Blocks first, from the last to the first, so each edit leaves the offsets before it valid;
  // then the top level, on the text that gives.
  let out = text;
  const blocks = blockMaps(parsed.root);
  for (const block of blocks.reverse()) out = reorderSpan(out, block, blockRank(block), false);
  const again = parse(out);
  if (!again.ok) return again;
  out = reorderSpan(out, again.root, (key) => rankIn(TOP_LEVEL_KEYS, key), true);
  return { ok: true, text: out, changed: out !== text };
}

function parse(text: string): { ok: true; root: YAMLMap | null } | { ok: false; error: { line: number; column: number; message: string } } {
  // The yaml library's own check of unique keys compares each key with every other of its map:
  // quadratic, minutes for a stack of 10,000 blocks. duplicateKey finds them with a set instead.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0] ?? { line: 1, col: 1 };
    return { ok: false, error: { line: at.line, column: at.col, message: error.message.replace(/\n[\s\S]*/, '') } };
  }
  const duplicate = duplicateKey(doc);
  if (duplicate !== undefined) {
    const at = lineCounter.linePos(duplicate);
    return { ok: false, error: { line: at.line, column: at.col, message: 'Map keys must be unique' } };
  }
  return { ok: true, root: isMap(doc.contents) ? doc.contents : null };
}

/** The offset of the first key that repeats a key of its map (scalar keys, compared by value), if any. */
function duplicateKey(doc: Document): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) {
          found = pair.key.range?.[0] ?? 0;
          return visit.BREAK;
        }
        seen.add(pair.key.value);
      }
      return undefined;
    },
  });
  return found;
}

/** The block-style maps of `resources:` and `checks:` entries, in file order. */
function blockMaps(root: YAMLMap | null): YAMLMap[] {
  if (!root) return [];
  const maps: YAMLMap[] = [];
  for (const section of ['resources', 'checks']) {
    const blocks = root.get(section, true);
    if (!isMap(blocks) || blocks.flow) continue;
    for (const pair of blocks.items) if (isMap(pair.value) && !pair.value.flow) maps.push(pair.value);
  }
  return maps.sort((a, b) => rangeOf(a)[0] - rangeOf(b)[0]);
}

/** The rank of each key of one block: type, identity, schema order, unknown keys, depends_on. */
function blockRank(block: YAMLMap): (key: string) => number {
  const type = block.get('type');
  return blockFieldRank(typeof type === 'string' ? type : undefined);
}

/**
 * The canonical rank of each key of a block of kind `type` (fmt's order, which import writes in
 * too): `type`, the kind's identity fields, its other fields in schema order, keys it does not
 * know (equal rank: a stable sort keeps their order), `depends_on` last.
 */
export function blockFieldRank(type: string | undefined): (key: string) => number {
  const kind = type === undefined ? undefined : (ALL_KINDS as Readonly<Record<string, KindSpec | undefined>>)[type];
  const order = ['type', ...(kind?.identity ?? []), ...(kind ? Object.keys(kind.shape.shape) : [])];
  return (key) => (key === 'depends_on' ? Number.MAX_SAFE_INTEGER : rankIn(order, key));
}

/** Position of `key` in `order`; keys not in it come after, in their own order (the sort is stable). */
function rankIn(order: readonly string[], key: string): number {
  const at = order.indexOf(key);
  return at === -1 ? order.length : at;
}

/**
 * The text with the pairs of a block-style map sorted by rank (stably). Each pair's span runs
 * from the comment lines directly above its key (not for the first pair of the top level: those
 * are the file's header) to the start of the next pair's span; the last one to the end of the
 * line its value ends on. Spans keep their lines whole, so every one ends with a line break.
 */
function reorderSpan(text: string, map: YAMLMap | null, rank: (key: string) => number, topLevel: boolean): string {
  if (!map || map.flow || map.items.length < 2) return text;
  const pairs = map.items as Array<Pair<Node, Node | null>>;
  const sorted = pairs.map((pair, i) => ({ i, r: rank(isScalar(pair.key) ? String(pair.key.value) : String(pair.key)) })).sort((a, b) => a.r - b.r || a.i - b.i);
  if (sorted.every((s, i) => s.i === i)) return text;
  const starts = pairs.map((pair, i) => spanStart(text, rangeOf(pair.key)[0], !(topLevel && i === 0)));
  const last = must(pairs.at(-1), 'the last pair of a map of two or more');
  const end = lineEnd(text, must(last.value?.range ?? last.key.range, "a parsed pair's range")[1]);
  // Each span runs to the next one's start; the last one to the end of its value's line.
  const spans = starts.map((start, i) => text.slice(start, starts[i + 1] ?? end));
  const lastSpan = spans.length - 1;
  const missingBreak = !must(spans[lastSpan], 'the last span').endsWith('\n');
  if (missingBreak) spans[lastSpan] += '\n';
  let body = sorted.map((s) => must(spans[s.i], "a pair's span")).join('');
  if (missingBreak) body = body.slice(0, -1);
  return text.slice(0, starts[0]) + body + text.slice(end);
}

/** The start of the line holding `offset`, moved up over the comment lines right above it when `withComments`. */
function spanStart(text: string, offset: number, withComments: boolean): number {
  let start = text.lastIndexOf('\n', offset - 1) + 1;
  while (withComments && start > 0) {
    const above = text.lastIndexOf('\n', start - 2) + 1;
    if (!text.slice(above, start).trimStart().startsWith('#')) break;
    start = above;
  }
  return start;
}

/** The offset just past the line break of the line holding `offset` (or the end of the text). */
function lineEnd(text: string, offset: number): number {
  // A node's range may end just past its own line break: the line is then already whole.
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const at = text.indexOf('\n', offset);
  return at === -1 ? text.length : at + 1;
}

/** A node's range in the text: the parser sets it on every node it reads. */
function rangeOf(node: Node): NonNullable<Node['range']> {
  return must(node.range, "a parsed node's range");
}
