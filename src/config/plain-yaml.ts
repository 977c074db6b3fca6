import {
  boolCoreTag,
  CHOMPING_MODE,
  COLLECTION_STYLE,
  EVENT_ID,
  floatCoreTag,
  getScalarValue,
  intCoreTag,
  NOT_RESOLVED,
  nullCoreTag,
  SCALAR_STYLE,
  type Event,
  type ScalarEvent,
} from 'js-yaml';
import { yamlLibrary } from './yaml-library.js';
import type { Diagnostic } from './diagnostics.js';
import { FileLines, FileNode, lineTable, NodeChecks, type Offsets, type SourceNode } from './source-node.js';
import { MAX_DEPTH, MAX_VALUE_LENGTH, type StackBudget } from './stack-limits.js';
import { DEFAULT_SLICING, eventStream, type EventStream, type Slicing } from './yaml-events.js';

/** What the fast reading made of a file. */
export interface PlainRead {
  /** Undefined for a file without a document (empty, or only comments). */
  root?: SourceNode;
  diagnostics: Diagnostic[];
  /** Offsets of values that must never be printed. */
  secretSpans: ReadonlyArray<readonly [number, number]>;
}

/**
 * The fast reading of a stack file: js-yaml's event parser (about ten times faster than the
 * yaml library's Document API, and without its per-node memory) builds the same SourceNode
 * tree as source-tree.ts, with the same offsets, values and checks (NodeChecks), for files
 * written in plain YAML: one document of mappings with scalar keys, sequences, and scalars
 * without anchors, aliases, tags or directives. What a stack is.
 *
 * Anything else returns undefined, and the file is then read by the yaml library, which reports
 * every problem in its own words and positions: any error of the parser; a root that is no
 * mapping; an empty value in a flow collection, a flow collection over several lines, a scalar
 * on a later line than its key or over several lines, trailing block scalar lines the two
 * libraries read differently, a block scalar that keeps its trailing lines ("|+") (seen to
 * differ, or too costly to place exactly); a tab in indentation, an indented "---", a "..."
 * marker, an indented directive line, an implicit key over 1,000 characters, a byte order mark
 * inside the text (errors to the yaml library that js-yaml lets pass, or read differently); a
 * limit of stack-limits.ts about to be crossed. So the fast reading decides nothing the full one would
 * decide differently; test/unit/config/plain-yaml.test.ts compares both over the repository's
 * YAML files and generated YAML, plain-yaml-mutated.test.ts over mutated YAML.
 */
export function readPlainYaml(
  filename: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: StackBudget,
  slicing: Slicing = DEFAULT_SLICING,
): PlainRead | undefined {
  // A lone CR is a line break to YAML and would shift the line table built from LF below; a
  // tab in indentation, an indented document marker or directive, a document end marker ("...")
  // and a byte order mark inside the text are read differently by the two libraries (errors to
  // the yaml library that js-yaml lets pass, mostly).
  if (/\r(?!\n)|^ *\t|^ +(---|\.\.\.)(?![^ \t\r\n])|^\.\.\.(?![^ \t\r\n])|^ +%|\uFEFF/m.test(text)) return undefined;
  if (text.length > MAX_VALUE_LENGTH && hasLongLine(text)) return undefined;
  // Bounds the events parsed before they are counted: every value but the first follows one of
  // these characters, so a file with fewer of them than the budget holds fewer values.
  if (valueStarts(text) >= budget.values) return undefined;
  let events: EventStream;
  try {
    events = eventStream(text, { filename, maxDepth: MAX_DEPTH }, needsFullRead, slicing);
  } catch {
    return undefined;
  }
  // The line table is built when a range is first asked for: for a diagnostic, or a plan error.
  const lines = new FileLines(filename, () => lineTable(text));
  const diagnostics: Diagnostic[] = [];
  const reader = new EventReader(text, events, env, lines, diagnostics);
  let root: SourceNode | undefined;
  try {
    root = reader.document();
  } catch (error) {
    if (error === NEEDS_FULL_READ) return undefined;
    throw error;
  }
  if (reader.lexed > budget.values || reader.converted > budget.expanded) return undefined;
  budget.values -= reader.lexed;
  budget.expanded -= reader.converted;
  return { ...(root ? { root } : {}), diagnostics, secretSpans: reader.secretSpans };
}

/**
 * Thrown while walking the events when the file needs the yaml library's reading: a signal
 * caught in readPlainYaml, never an error that leaves it.
 */
const NEEDS_FULL_READ = Symbol('needs the yaml library');

function needsFullRead(): never {
  throw NEEDS_FULL_READ;
}

function hasLongLine(text: string): boolean {
  let start = 0;
  for (let i = text.indexOf('\n'); ; i = text.indexOf('\n', i + 1)) {
    const end = i === -1 ? text.length : i;
    if (end - start > MAX_VALUE_LENGTH) return true;
    if (i === -1) return false;
    start = i + 1;
  }
}

/** Characters one of which stands before every value but the first: line breaks and the indicators , : - ? [ {. */
function valueStarts(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // \n , - : ? [ {
    if (c === 10 || c === 44 || c === 45 || c === 58 || c === 63 || c === 91 || c === 123) count += 1;
  }
  return count;
}

/** The longest implicit key YAML allows (the ":" at most 1,024 characters after the key's start); longer ones go to the yaml library. */
const MAX_IMPLICIT_KEY = 1000;

/** The YAML 1.2 core schema's plain scalars, in js-yaml's order of resolution. */
const PLAIN_TAGS = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];
/** What the yaml library's core schema reads as a number: js-yaml leaves a float that overflows ("1e400") a string. */
const CORE_NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** First characters of a plain scalar that can only be a string: letters but n, t, f (null, true, false, in any case), and "_". */
const STRING_ONLY_START = /^[a-eg-mo-su-zA-EG-MO-SU-Z_]/;

function resolvePlain(source: string): unknown {
  if (STRING_ONLY_START.test(source)) return source;
  for (const tag of PLAIN_TAGS) {
    const resolved: unknown = tag.resolve(source, false, tag.tagName);
    if (resolved !== NOT_RESOLVED) return resolved;
  }
  if (CORE_NUMBER.test(source)) needsFullRead();
  return source;
}

/**
 * A block collection. Where the yaml library ends one depends on how it attaches the comment
 * lines after its last entry, which follows its CST; that end is asked of the yaml library,
 * for the whole file at once, when a range is first needed: for a diagnostic, almost never.
 */
class BlockNode extends FileNode {
  constructor(
    value: unknown,
    lines: FileLines,
    start: number,
    private readonly ends: () => ReadonlyMap<number, number>,
    private readonly fallbackEnd: number,
  ) {
    super(value, lines, [start, fallbackEnd]);
  }

  override offsets(): Offsets {
    return [this.start, this.ends().get(this.start) ?? this.fallbackEnd];
  }
}

/** How many files had their block collections' ends asked of the yaml library: for the tests that keep this off the path of a valid stack. */
export const exactEndReads = { count: 0 };

/** The yaml library's end offset of every collection of `text`, by start offset. */
function collectionEnds(text: string): Map<number, number> {
  exactEndReads.count += 1;
  const ends = new Map<number, number>();
  const { parseDocument, visit } = yamlLibrary();
  visit(parseDocument(text, { uniqueKeys: false }), {
    Map: (_, node) => void (node.range && ends.set(node.range[0], node.range[1])),
    Seq: (_, node) => void (node.range && ends.set(node.range[0], node.range[1])),
  });
  return ends;
}

/** A node and the offset where the yaml library ends its value. */
interface Read {
  node: FileNode;
  end: number;
}

class EventReader extends NodeChecks {
  private ends: Map<number, number> | undefined;
  private readonly exactEnds = () => (this.ends ??= collectionEnds(this.text));
  /** Values as scanYaml counts them (scalars, keys included; flow collections; block sequence items). */
  lexed = 0;
  /** Values as the converter counts them (every node but keys). */
  converted = 0;

  constructor(
    private readonly text: string,
    private readonly events: EventStream,
    env: Readonly<Record<string, string | undefined>>,
    lines: FileLines,
    diagnostics: Diagnostic[],
  ) {
    super(env, lines, diagnostics);
  }

  document(): SourceNode | undefined {
    if (this.events.peek() === undefined) return undefined;
    const doc = this.next();
    if (doc.type !== EVENT_ID.DOCUMENT || doc.directives.length > 0) needsFullRead();
    if (this.peek()?.type === EVENT_ID.POP) return undefined;
    // A stack is a mapping; anything else is refused anyway, in the yaml library's words.
    if (this.peek()?.type !== EVENT_ID.MAPPING) needsFullRead();
    const root = this.node(0, null, undefined, 1).node;
    if (this.next().type !== EVENT_ID.POP || this.events.peek() !== undefined) needsFullRead();
    return root;
  }

  /** The next event (the stream lets it go once taken, so that a collection during the reading can free what was read). */
  private next(): Event {
    return this.events.next() ?? needsFullRead();
  }

  private peek(): Event | undefined {
    return this.events.peek();
  }

  /**
   * Reads the node at the current event. `cursor` is where the text before it ends (its key,
   * the previous item, its collection's start); `indicator` the character between them in block
   * context (":" before a value, "-" before an item), null in flow context and at the root.
   */
  private node(cursor: number, indicator: ':' | '-' | null, parentKey: string | undefined, depth: number): Read {
    if (depth > MAX_DEPTH) needsFullRead();
    this.converted += 1;
    const event = this.next();
    switch (event.type) {
      case EVENT_ID.SCALAR: {
        if (event.valueStart !== -1) this.lexed += 1;
        const { value, at } = this.scalarAt(event, cursor, indicator);
        // A scalar on a later line than its key or "-", or over several lines (but a block
        // scalar's lines): where the two libraries have been seen to disagree.
        const from = indicator === ':' ? cursor : indicator === '-' ? this.after(cursor, indicator) : at[0]!;
        if (hasLineBreak(this.text, from, event.style >= SCALAR_STYLE.LITERAL_BLOCK ? at[0]! : at[1]!)) needsFullRead();
        return { node: this.scalar(value, at), end: at[1]! };
      }
      case EVENT_ID.MAPPING:
        if (event.anchorStart !== -1 || event.tagStart !== -1) needsFullRead();
        return this.mapping(event.start, event.style === COLLECTION_STYLE.FLOW, parentKey === 'tags', depth);
      case EVENT_ID.SEQUENCE:
        if (event.anchorStart !== -1 || event.tagStart !== -1) needsFullRead();
        return this.sequence(event.start, event.style === COLLECTION_STYLE.FLOW, depth);
      default:
        return needsFullRead();
    }
  }

  /** A scalar's value and offsets as the yaml library gives them (quotes and block headers included, trailing blank lines not). */
  private scalarAt(event: ScalarEvent, cursor: number, indicator: ':' | '-' | null): { value: unknown; at: Offsets } {
    if (event.anchorStart !== -1 || event.tagStart !== -1) needsFullRead();
    const { text } = this;
    if (event.valueStart === -1) {
      // An empty value: null, placed after its indicator and the spaces that follow it.
      if (indicator === null || event.style !== SCALAR_STYLE.PLAIN) needsFullRead();
      const at = skipSpaces(text, this.after(cursor, indicator));
      return { value: null, at: [at, at] };
    }
    switch (event.style) {
      case SCALAR_STYLE.PLAIN:
        return { value: resolvePlain(event.fast ? text.slice(event.valueStart, event.valueEnd) : getScalarValue(text, event)), at: [event.valueStart, event.valueEnd] };
      case SCALAR_STYLE.SINGLE_QUOTED:
      case SCALAR_STYLE.DOUBLE_QUOTED: {
        const quote = event.style === SCALAR_STYLE.SINGLE_QUOTED ? "'" : '"';
        if (text[event.valueStart - 1] !== quote || text[event.valueEnd] !== quote) needsFullRead();
        return { value: getScalarValue(text, event), at: [event.valueStart - 1, event.valueEnd + 1] };
      }
      default: {
        // A block scalar starts at its header ("|", ">-"); its value ends after its last line
        // with content.
        const start = skipBlank(text, indicator === null ? cursor : this.after(cursor, indicator));
        if (text[start] !== '|' && text[start] !== '>') needsFullRead();
        // One that keeps its trailing lines ("|+"): the two libraries were found to read its
        // trailing blank lines differently (at the end of a file, with spaces in them).
        if (event.chomping === CHOMPING_MODE.KEEP) needsFullRead();
        const value = getScalarValue(text, event);
        if (value === '') needsFullRead();
        let trimmed = event.valueEnd;
        while (trimmed > event.valueStart && text[trimmed - 1] === '\n') {
          const lineStart = text.lastIndexOf('\n', trimmed - 2) + 1;
          const spaces = /^( *)\r?$/.exec(text.slice(lineStart, trimmed - 1));
          if (lineStart < event.valueStart || !spaces) break;
          // A trailing line of more spaces than the indentation: the two libraries read it differently.
          if (spaces[1]!.length > event.indent) needsFullRead();
          trimmed = lineStart;
        }
        return { value, at: [start, trimmed] };
      }
    }
  }

  /** The offset just after `indicator`, the first thing after `cursor` but blanks and comments. */
  private after(cursor: number, indicator: ':' | '-'): number {
    const at = skipBlank(this.text, cursor);
    if (this.text[at] !== indicator) needsFullRead();
    return at + 1;
  }

  private mapping(start: number, flow: boolean, isTagMap: boolean, depth: number): Read {
    const entries = new Map<string, SourceNode>();
    // Keys that would not be own data properties (__proto__) were refused by acceptKey.
    const value: Record<string, unknown> = {};
    let cursor = start + (flow ? 1 : 0);
    while (this.peek()?.type !== EVENT_ID.POP) {
      const keyEvent = this.next();
      if (keyEvent.type !== EVENT_ID.SCALAR || keyEvent.valueStart === -1) return needsFullRead();
      this.lexed += 1;
      const { value: keyValue, at: keyAt } = this.scalarAt(keyEvent, cursor, null);
      // The yaml library refuses an implicit key of more than 1,024 characters; js-yaml does not.
      if (keyValue === null || typeof keyValue === 'object' || keyAt[1]! - keyAt[0]! > MAX_IMPLICIT_KEY) needsFullRead();
      const key = String(keyValue);
      const plain = keyEvent.style === SCALAR_STYLE.PLAIN;
      const verdict = this.acceptKey(key, keyAt, plain, isTagMap);
      if (verdict !== 'accept' || entries.has(key)) {
        if (verdict === 'accept') this.error('duplicate-key', `duplicate key "${key}" (first defined at line ${entries.get(key)!.keyRange!.start.line})`, this.lines.range(keyAt));
        const skipped = this.skip(keyAt[1]!, flow ? null : ':', depth + 1);
        if (verdict === 'mask') this.secretSpans.push(skipped.node.offsets() as [number, number]);
        cursor = skipped.end;
        continue;
      }
      const { node, end } = this.node(keyAt[1]!, flow ? null : ':', key, depth + 1);
      node.setKeyAt(keyAt);
      entries.set(key, node);
      value[key] = node.value;
      cursor = end;
    }
    this.next();
    const map = this.collection(value, start, cursor, flow ? '}' : null);
    map.node.entries = entries;
    return map;
  }

  private sequence(start: number, flow: boolean, depth: number): Read {
    const items: SourceNode[] = [];
    let cursor = start + (flow ? 1 : 0);
    if (flow) this.lexed += 1;
    while (this.peek()?.type !== EVENT_ID.POP) {
      if (!flow) this.lexed += 1;
      const { node, end } = this.node(cursor, flow ? null : '-', undefined, depth + 1);
      items.push(node);
      cursor = end;
    }
    this.next();
    const seq = this.collection(
      items.map((i) => i.value),
      start,
      cursor,
      flow ? ']' : null,
    );
    seq.node.items = items;
    return seq;
  }

  /**
   * The node of a collection whose last entry ends at `cursor`. A flow collection ends after
   * its closing bracket (on the line it starts on: one over several lines may draw an
   * indentation warning, left to the full reading); a block collection, for what follows, after
   * the rest of its last line, and for its range where the yaml library ends it (BlockNode).
   */
  private collection(value: unknown, start: number, cursor: number, close: '}' | ']' | null): Read {
    const { text } = this;
    if (close !== null) {
      let at = cursor;
      while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === ',')) at += 1;
      if (text[at] !== close || text.slice(start, at).includes('\n')) needsFullRead();
      const node = new FileNode(value, this.lines, [start, at + 1]);
      return { node, end: at + 1 };
    }
    let end = cursor;
    if (text[cursor - 1] !== '\n') {
      const eol = text.indexOf('\n', cursor);
      end = eol === -1 ? text.length : eol + 1;
    }
    return { node: new BlockNode(value, this.lines, start, this.exactEnds, end), end };
  }

  /** Reads past the node at the current event (the value of a refused key) without a word about it, as the yaml library's reading does not convert it. */
  private skip(cursor: number, indicator: ':' | '-' | null, depth: number): Read {
    const { diagnostics, secretSpans, converted } = this;
    const before = [diagnostics.length, secretSpans.length];
    const read = this.node(cursor, indicator, undefined, depth);
    diagnostics.length = before[0]!;
    secretSpans.length = before[1]!;
    this.converted = converted;
    return read;
  }
}

/** Whether text[from, to) holds a line break: a look at that span only (searching for the next "\n" would cross the rest of a long line once per value on it). */
function hasLineBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) return true;
  return false;
}

function skipSpaces(text: string, at: number): number {
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}

/** Skips spaces, line breaks and comments. */
function skipBlank(text: string, at: number): number {
  for (;;) {
    const c = text[at];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') at += 1;
    else if (c === '#') {
      const eol = text.indexOf('\n', at);
      if (eol === -1) return text.length;
      at = eol;
    } else return at;
  }
}
