import { must } from '../errors.js';
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
  YAMLException,
  type AliasEvent,
  type Event,
  type ScalarEvent,
  type ScalarTagDefinition,
} from 'js-yaml';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { FileLines, FileNode, lineTable, NodeChecks, type Offsets, type SourceNode } from './source-node.js';
import { MAX_ALIAS_COUNT, MAX_DEPTH, MAX_STACK_VALUES, MAX_VALUE_LENGTH, tooDeep, type StackBudget } from './stack-limits.js';
import { DEFAULT_SLICING, eventStream, isSliced, type EventStream, type Slicing } from './yaml-events.js';

/** What reading a file gave. */
export interface YamlRead {
  /** Undefined for a file without a document (empty, or only comments), or one whose reading stopped. */
  root?: SourceNode;
  diagnostics: Diagnostic[];
  /** Offsets of values that must never be printed. */
  secretSpans: ReadonlyArray<readonly [number, number]>;
  /** True when the YAML was broken or a limit stopped the reading (there is then no root). */
  stopped: boolean;
}

/**
 * The one reading of a stack file: js-yaml's event parser (no node tree of its own; a large
 * `resources:` mapping parsed a slice at a time, yaml-events.ts) builds the SourceNode tree with
 * every value's offsets, and NodeChecks checks keys and strings. YAML is read in full: anchors
 * and aliases (expanded, each expansion counted, alias bombs stopped), the core schema's tags
 * (any other is an error), block scalars, flow collections over several lines, directives.
 * What a stack may not hold is an error at its place: a second document, a key that is no
 * plain scalar, a duplicate key, a merge key; a syntax error is js-yaml's, at its place.
 *
 * Values are counted as they are read (every scalar, key, list, mapping and alias expansion),
 * against what is left of `budget.values`; nesting deeper than MAX_DEPTH and a scalar longer
 * than MAX_VALUE_LENGTH stop the reading. `restore`, when given, maps the characters of a text
 * whose control characters were replaced (see source-tree.ts) back in every string read.
 */
export function readYaml(
  filename: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: StackBudget,
  slicing: Slicing = DEFAULT_SLICING,
  restore?: (value: string) => string,
): YamlRead {
  // The line table is built when a range is first asked for: for a diagnostic, or a plan error.
  const lines = new FileLines(filename, () => lineTable(text));
  const stopped = (diagnostic: Diagnostic): YamlRead => ({ diagnostics: [diagnostic], secretSpans: [], stopped: true });
  // Memory: a parsed event costs about 130 bytes. A text read whole holds all its events at
  // once; one read in slices, a slice's. A large text that cannot be sliced is read whole only
  // when it cannot hold more values than the budget (valueBound is an upper bound).
  // null: the text parsed whole.
  for (const slices of isSliced(text, slicing) ? [slicing, null] : [null]) {
    const bound = slices !== null || text.length < slicing.from ? undefined : valueBound(text, budget.values);
    if (bound !== undefined) return stopped(tooManyValues(lines.range([bound, bound])));
    const diagnostics: Diagnostic[] = [];
    let reader: EventReader | undefined;
    try {
      const events = eventStream(text, { filename, maxDepth: MAX_DEPTH + 1 }, refuseSlices, slices);
      reader = new EventReader(text, events, env, lines, diagnostics, budget.values, restore);
      const root = reader.document();
      budget.values -= reader.values;
      return { ...(root ? { root } : {}), diagnostics, secretSpans: reader.secretSpans, stopped: false };
    } catch (error) {
      // A syntax error of the text around the sliced mapping is placed by the whole text's parse.
      if (error === SLICES_DISAGREE || (error instanceof YAMLException && slices !== null)) continue;
      if (error === STOP) return { diagnostics, secretSpans: reader?.secretSpans ?? [], stopped: true };
      if (error instanceof YAMLException) return stopped(syntaxError(error, text, lines));
      throw error;
    }
  }
  // The last reading is whole: it never refuses slices.
  throw new Error('readYaml: no reading of the file finished (this is a bug)');
}

/** Thrown when the slices of a text do not read as the whole would: the text is then read whole. */
const SLICES_DISAGREE = Symbol('slices disagree');
/** Thrown when a limit or a structural error stopped the reading; the diagnostic is already reported. */
const STOP = Symbol('stop');

function refuseSlices(): never {
  throw SLICES_DISAGREE;
}

function tooManyValues(range: SourceRange, expanding = false): Diagnostic {
  return {
    severity: 'error',
    code: 'stack-too-large',
    summary: expanding
      ? `the stack holds more than ${MAX_STACK_VALUES.toLocaleString('en-US')} values once its aliases are expanded; edgeform reads at most that many`
      : `the stack holds more than ${MAX_STACK_VALUES.toLocaleString('en-US')} YAML values; edgeform reads at most that many`,
    detail: expanding
      ? "An alias copies its anchor's whole value; write shared fields once under defaults: instead."
      : 'Split the stack, or remove what it does not need; this limit keeps edgeform within bounded memory.',
    range,
  };
}

/**
 * Where a text passes `budget` possible values, or undefined when it cannot hold more: every
 * value but the first follows a line break, a "," "[" "{", or a ":" "-" "?" indicator (followed
 * by a space or line break, or a ":" right after a quote or bracket). An upper bound, used only
 * to refuse a large text that cannot be read in slices before it is parsed whole.
 */
function valueBound(text: string, budget: number): number | undefined {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let starts = c === 10 || c === 44 || c === 91 || c === 123;
    if (c === 45 || c === 58 || c === 63) {
      const after = text.charCodeAt(i + 1);
      const before = text.charCodeAt(i - 1);
      starts =
        Number.isNaN(after) || after === 32 || after === 9 || after === 10 || after === 13 || (c === 58 && (before === 34 || before === 39 || before === 93 || before === 125));
    }
    if (starts && ++count > budget) return i;
  }
  return undefined;
}

/** js-yaml's syntax error as a diagnostic at its place (nesting too deep in edgeform's words). */
function syntaxError(error: YAMLException, text: string, lines: FileLines): Diagnostic {
  let at = error.mark?.position ?? 0;
  if (/maxDepth/.test(error.reason)) {
    // js-yaml opens a flow collection or a block sequence item a level later than a block
    // mapping: the collection one too deep is the one before.
    if (/^[[{-]/.test(text.slice(at, at + 1))) {
      let before = at - 1;
      while (before > 0 && /\s/.test(must(text[before], 'text[before]'))) before -= 1;
      if (/[[{-]/.test(text[before] ?? '')) at = before;
    }
    const problem = tooDeep();
    return { severity: 'error', code: problem.code, summary: problem.summary, detail: problem.detail, range: lines.range([at, at]) };
  }
  const diagnostic: Diagnostic = { severity: 'error', code: 'yaml-syntax', summary: `invalid YAML: ${error.reason}`, range: lines.range([at, at]) };
  const unquoted = unquotedInterpolation(error, text, at);
  if (unquoted !== undefined) {
    diagnostic.summary += ` (an unquoted \${...} in [ ] or { }: write "${unquoted}")`;
    diagnostic.detail = 'Inside [ ] or { }, YAML reads the "{" of an unquoted ${...} as the start of a mapping: quote every value that holds one.';
  }
  return diagnostic;
}

/**
 * The plain value around `at` when js-yaml's error is its "missed comma" at the "{" of a "${"
 * written unquoted in a flow collection (`[${cloud_security_group.web.id}]`): what to write
 * quoted, cut at the "}" that closes the reference (and at a line's end).
 */
function unquotedInterpolation(error: YAMLException, text: string, at: number): string | undefined {
  if (!/missed comma/.test(error.reason) || text[at] !== '{' || text[at - 1] !== '$') return undefined;
  let start = at - 1;
  while (start > 0 && !/[\s[{,]/.test(must(text[start - 1], 'text[start - 1]'))) start -= 1;
  const close = text.indexOf('}', at);
  const lineEnd = text.indexOf('\n', at);
  const end = close === -1 || (lineEnd !== -1 && lineEnd < close) ? (lineEnd === -1 ? text.length : lineEnd) : close + 1;
  let value = text.slice(start, end);
  // The rest of the plain value after the reference (`:8080/` in `[http://${...}:8080/]`).
  const rest = must(/^[^\s,\]}]*/.exec(text.slice(end)), '/^[^\\s,\\]}]*/.exec(text.slice(end))')[0];
  value += rest;
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

/** The YAML 1.2 core schema's plain scalars, in js-yaml's order of resolution. */
const PLAIN_TAGS = [nullCoreTag, boolCoreTag, intCoreTag, floatCoreTag];
/** A core schema number that js-yaml leaves a string because it overflows ("1e400"): read as the number it writes (Infinity). */
const CORE_NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** First characters of a plain scalar that can only be a string: letters but n, t, f (null, true, false, in any case), and "_". */
const STRING_ONLY_START = /^[a-eg-mo-su-zA-EG-MO-SU-Z_]/;

function resolvePlain(source: string): unknown {
  if (STRING_ONLY_START.test(source)) return source;
  for (const tag of PLAIN_TAGS) {
    const resolved: unknown = tag.resolve(source, false, tag.tagName);
    if (resolved !== NOT_RESOLVED) return resolved;
  }
  if (CORE_NUMBER.test(source)) return Number(source);
  return source;
}

/** The core schema's scalar tags by short name; `str`, `map` and `seq` are the others a stack may write. */
const SCALAR_TAGS: Readonly<Record<string, ScalarTagDefinition<unknown>>> = { null: nullCoreTag, bool: boolCoreTag, int: intCoreTag, float: floatCoreTag };
const CORE_PREFIX = 'tag:yaml.org,2002:';
/** The tags a scalar of a stack may carry. */
const SCALAR_TAG_NAMES = ['!!str', '!!null', '!!bool', '!!int', '!!float'];

/** A tag as written (`!!str`, `!<tag:yaml.org,2002:str>`, `!Ref`) as a stack names it: `!!str`, `!Ref`. */
function tagName(written: string): string {
  const verbatim = /^!<(.*)>$/.exec(written)?.[1];
  const full = verbatim ?? written;
  return full.startsWith(CORE_PREFIX) ? `!!${full.slice(CORE_PREFIX.length)}` : full;
}

/** What an anchor gives its aliases: the events of its node, and the alias limit's counts (the yaml library's maxAliasCount rule). */
interface Anchor {
  name: string;
  events: Event[];
  /** True while its node is being read: an alias inside it refers to a value that contains it. */
  open: boolean;
  /** Set once the anchor was first resolved: how often it was used (starting at 1), and how much aliasing its value holds. */
  use?: { count: number; aliasCount: number };
}

/** A node and the offset where the text before what follows it ends. */
interface Read {
  node: FileNode;
  end: number;
}

class EventReader extends NodeChecks {
  /** Values read (keys, scalars, collections, aliases expanded). */
  values = 0;
  private readonly anchors = new Map<string, Anchor>();
  /** The anchor each alias read referred to, and the anchor each anchored event defines. */
  private readonly aliasTargets = new Map<Event, Anchor | undefined>();
  private readonly anchorOf = new Map<Event, Anchor>();
  /** Anchors whose node is being read: each records the events taken. */
  private readonly recording: Anchor[] = [];
  /** The anchors being expanded, outermost first. */
  private readonly expanding: Array<{ anchor: Anchor; at: Offsets }> = [];

  constructor(
    private readonly text: string,
    private events: EventStream,
    env: Readonly<Record<string, string | undefined>>,
    lines: FileLines,
    diagnostics: Diagnostic[],
    private readonly budget: number,
    private readonly restore: ((value: string) => string) | undefined,
  ) {
    super(env, lines, diagnostics);
  }

  document(): SourceNode | undefined {
    if (this.events.peek() === undefined) return undefined;
    this.next();
    if (this.peek()?.type === EVENT_ID.POP) {
      this.next();
      this.refuseMoreDocuments(0);
      return undefined;
    }
    const { node, end } = this.node(0, null, undefined, 1);
    this.next();
    this.refuseMoreDocuments(end);
    return node;
  }

  /** A second document is an error at its start: the first thing after `end` but blank lines, comments and "..." lines. */
  private refuseMoreDocuments(end: number): void {
    if (this.events.peek() === undefined) return;
    const { text } = this;
    let at = skipBlank(text, end);
    while (text.startsWith('...', at)) at = skipBlank(text, lineEndOf(text, at));
    this.stop(
      {
        code: 'yaml-syntax',
        summary: 'a second YAML document starts here; a stack file holds one document',
        detail: 'Remove the "---" line, or split the documents into files of a directory stack.',
      },
      [at, at],
    );
  }

  /** The next event (the stream lets it go once taken, so that a collection during the reading can free what was read). */
  private next(): Event {
    const event = this.events.next();
    if (event === undefined) throw new Error('readYaml: the events ended inside a document (this is a bug)');
    // What an alias expands is its anchor's recorded events, not recorded again.
    if (this.expanding.length === 0) for (const anchor of this.recording) anchor.events.push(event);
    return event;
  }

  private peek(): Event | undefined {
    return this.events.peek();
  }

  /** Counts one value; past the budget, stops the reading at it. */
  private count(at: Offsets): void {
    if (++this.values <= this.budget) return;
    const outer = this.expanding[0];
    this.diagnostics.push(tooManyValues(this.lines.range(outer?.at ?? at), outer !== undefined));
    throw STOP;
  }

  /** Reports a limit or a structural problem once and stops reading the file (what follows would only add noise, or cost). */
  private stop(problem: { code: string; summary: string; detail: string }, at: Offsets): never {
    this.error(problem.code, problem.summary, this.lines.range(this.expanding[0]?.at ?? at), { detail: problem.detail });
    throw STOP;
  }

  /**
   * Reads the node at the current event. `cursor` is where the text before it ends (its key,
   * the previous item, its collection's start); `indicator` the character between them in block
   * context (":" before a value, "-" before an item), null in flow context and at the root.
   */
  private node(cursor: number, indicator: ':' | '-' | null, parentKey: string | undefined, depth: number): Read {
    const event = this.next();
    if (event.type === EVENT_ID.ALIAS) return this.alias(event, parentKey, depth);
    if (event.type !== EVENT_ID.SCALAR && event.type !== EVENT_ID.MAPPING && event.type !== EVENT_ID.SEQUENCE) {
      throw new Error(`readYaml: unexpected event ${event.type} (this is a bug)`);
    }
    let anchor: Anchor | undefined;
    if (event.anchorStart !== -1) {
      anchor = this.anchorOf.get(event);
      if (anchor === undefined) {
        anchor = { name: this.text.slice(event.anchorStart, event.anchorEnd), events: [event], open: true };
        this.anchorOf.set(event, anchor);
        this.anchors.set(anchor.name, anchor);
        this.recording.push(anchor);
      }
    }
    try {
      return this.content(event, cursor, indicator, parentKey, depth);
    } finally {
      if (anchor?.open) {
        anchor.open = false;
        this.recording.splice(this.recording.indexOf(anchor), 1);
      }
    }
  }

  private content(event: Exclude<Event, { type: 1 | 5 | 6 }>, cursor: number, indicator: ':' | '-' | null, parentKey: string | undefined, depth: number): Read {
    const tag = event.tagStart === -1 ? undefined : tagName(this.text.slice(event.tagStart, event.tagEnd));
    if (event.type === EVENT_ID.SCALAR) {
      const { value, at } = this.scalarAt(event, cursor, indicator, tag);
      this.count(at);
      if (depth > MAX_DEPTH) this.stop(tooDeep(), at);
      const end = event.valueStart === -1 ? at[1] : Math.max(at[1], event.valueEnd);
      if (tag !== undefined && !SCALAR_TAG_NAMES.includes(tag)) {
        this.unsupportedTag(tag, at);
        return { node: this.failedAt(at), end };
      }
      if (at[1] - at[0] > MAX_VALUE_LENGTH) {
        this.stop(
          {
            code: 'value-too-long',
            summary: `this value is ${(at[1] - at[0]).toLocaleString('en-US')} characters long; edgeform reads at most ${MAX_VALUE_LENGTH.toLocaleString('en-US')}`,
            detail: 'No field of a stack needs a value anywhere near this long; check that the file is the stack you meant.',
          },
          at,
        );
      }
      return { node: this.scalar(value, at), end };
    }
    const start: Offsets = [event.start, event.start];
    this.count(start);
    if (depth > MAX_DEPTH) this.stop(tooDeep(), start);
    const flow = event.style === COLLECTION_STYLE.FLOW;
    if (tag !== undefined && tag !== (event.type === EVENT_ID.MAPPING ? '!!map' : '!!seq')) {
      this.unsupportedTag(tag, start);
      const end = this.skipRest(event.start, depth);
      const close = this.collection(null, event.start, end, flow ? (event.type === EVENT_ID.MAPPING ? '}' : ']') : null);
      return { node: this.failedAt(close.node.offsets()), end: close.end };
    }
    if (event.type === EVENT_ID.MAPPING) return this.mapping(event.start, flow, parentKey === 'tags', depth);
    return this.sequence(event.start, flow, depth);
  }

  private unsupportedTag(tag: string, at: Offsets): void {
    this.error('unsupported-yaml', `the YAML tag ${tag} is not supported`, this.lines.range(at), {
      detail: 'A stack holds plain strings, numbers, booleans, lists and mappings; remove the tag.',
    });
  }

  /** Takes the rest of the events of a collection whose start was taken, counting its values; the offset after the last. */
  private skipRest(start: number, depth: number): number {
    let end = start;
    for (let open = 1; open > 0;) {
      const event = this.next();
      if (event.type === EVENT_ID.POP) {
        open -= 1;
        continue;
      }
      const at = event.type === EVENT_ID.SCALAR ? event.valueEnd : event.type === EVENT_ID.ALIAS ? event.anchorEnd : event.type === EVENT_ID.DOCUMENT ? end : event.start;
      end = Math.max(end, at);
      this.count([at, at]);
      if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) {
        open += 1;
        if (depth + open - 1 > MAX_DEPTH) this.stop(tooDeep(), [event.start, event.start]);
      }
    }
    return end;
  }

  /** An alias: its anchor's node read again (counted, checked), at the alias's place. */
  private alias(event: AliasEvent, parentKey: string | undefined, depth: number): Read {
    const at: Offsets = [event.anchorStart - 1, event.anchorEnd];
    const name = this.text.slice(event.anchorStart, event.anchorEnd);
    if (!this.aliasTargets.has(event)) this.aliasTargets.set(event, this.anchors.get(name));
    const anchor = this.aliasTargets.get(event);
    this.count(at);
    if (anchor === undefined || anchor.open || this.expanding.some((e) => e.anchor === anchor)) {
      this.error('yaml-syntax', anchor ? `alias *${name} refers to a value that contains it` : `alias *${name} refers to no anchor`, this.lines.range(at));
      return { node: this.failedAt(at), end: at[1] };
    }
    if (this.resolve(anchor)) {
      this.stop(
        {
          code: 'too-many-aliases',
          summary: `alias *${name} expands too much: the aliases of this file would build a huge value (an alias bomb?)`,
          detail: `An anchor may be used at most ${MAX_ALIAS_COUNT.toLocaleString('en-US')} times, fewer when its value holds aliases itself; write shared fields once under defaults: instead.`,
        },
        at,
      );
    }
    // The anchor's events are read again, from a stream of their own; a limit crossed while
    // expanding it is reported at the outermost alias being expanded.
    const events = this.events;
    this.events = replay(anchor.events);
    this.expanding.push({ anchor, at });
    try {
      const first = must(anchor.events[0], 'anchor.events[0]');
      const cursor = first.type === EVENT_ID.SCALAR ? Math.max(first.anchorEnd, first.tagEnd) : 0;
      const read = this.node(cursor, null, parentKey, depth);
      return { node: relocate(read.node, at), end: at[1] };
    } finally {
      this.expanding.pop();
      this.events = events;
    }
  }

  /**
   * Counts a use of an anchor as the yaml library's maxAliasCount does (its `Alias.resolve`):
   * the first use resolves the anchor's value (using each alias in it once more), each use adds
   * one to its count, and the count times the aliasing its value holds (the most of any of its
   * items; an alias counts its anchor's count times aliasing) may not pass MAX_ALIAS_COUNT.
   * True when it does.
   */
  private resolve(anchor: Anchor): boolean {
    if (anchor.use === undefined) {
      anchor.use = { count: 1, aliasCount: 0 };
      for (const event of anchor.events.slice(1)) {
        const inner = this.anchorOf.get(event);
        if (inner !== undefined && inner.use === undefined) inner.use = { count: 1, aliasCount: 0 };
        if (event.type !== EVENT_ID.ALIAS) continue;
        const target = this.aliasTargets.get(event);
        if (target !== undefined && this.resolve(target)) return true;
      }
    }
    anchor.use.count += 1;
    if (anchor.use.aliasCount === 0) anchor.use.aliasCount = this.aliasCount(anchor.events, 0).count;
    return anchor.use.count * anchor.use.aliasCount > MAX_ALIAS_COUNT;
  }

  /** The yaml library's getAliasCount of the node whose events start at `from`, and the index after them. */
  private aliasCount(events: readonly Event[], from: number): { count: number; next: number } {
    const event = must(events[from], 'events[from]');
    if (event.type === EVENT_ID.ALIAS) {
      const use = this.aliasTargets.get(event)?.use;
      return { count: use ? use.count * use.aliasCount : 0, next: from + 1 };
    }
    if (event.type !== EVENT_ID.MAPPING && event.type !== EVENT_ID.SEQUENCE) return { count: 1, next: from + 1 };
    let count = 0;
    let at = from + 1;
    while (at < events.length && must(events[at], 'events[at]').type !== EVENT_ID.POP) {
      const item = this.aliasCount(events, at);
      count = Math.max(count, item.count);
      at = item.next;
    }
    return { count, next: at + 1 };
  }

  /** A scalar's value and offsets (quotes and block headers included, trailing blank lines not). */
  private scalarAt(event: ScalarEvent, cursor: number, indicator: ':' | '-' | null, tag?: string): { value: unknown; at: Offsets } {
    const { text } = this;
    // Where the text of the scalar may start: after its properties (anchor, tag), else after its indicator.
    const props = Math.max(event.anchorEnd, event.tagEnd);
    const from = props !== -1 ? props : indicator === null ? cursor : this.after(cursor, indicator);
    if (event.valueStart === -1) {
      // An empty value: null ("" with !!str), placed after its indicator and the spaces that follow it.
      const at = skipSpaces(text, from);
      return { value: tag === '!!str' ? '' : null, at: [at, at] };
    }
    switch (event.style) {
      case SCALAR_STYLE.PLAIN: {
        const source = this.decoded(event.fast ? text.slice(event.valueStart, event.valueEnd) : getScalarValue(text, event));
        return { value: this.tagged(tag, source, true), at: [event.valueStart, event.valueEnd] };
      }
      case SCALAR_STYLE.SINGLE_QUOTED:
      case SCALAR_STYLE.DOUBLE_QUOTED: {
        const quote = event.style === SCALAR_STYLE.SINGLE_QUOTED ? "'" : '"';
        const quoted = text[event.valueStart - 1] === quote && text[event.valueEnd] === quote;
        const value = this.tagged(tag, this.decoded(getScalarValue(text, event)), false);
        return { value, at: quoted ? [event.valueStart - 1, event.valueEnd + 1] : [event.valueStart, event.valueEnd] };
      }
      default: {
        // A block scalar starts at its header ("|", ">-"); its value ends after its last line
        // with content (or, keeping its trailing lines, "|+", after them).
        const header = skipBlank(text, from);
        const start = text[header] === '|' || text[header] === '>' ? header : event.valueStart;
        const value = this.tagged(tag, this.decoded(getScalarValue(text, event)), false);
        let trimmed = event.valueEnd;
        if (event.chomping !== CHOMPING_MODE.KEEP) {
          while (trimmed > event.valueStart && text[trimmed - 1] === '\n') {
            const lineStart = text.lastIndexOf('\n', trimmed - 2) + 1;
            if (lineStart < event.valueStart || !/^ *\r?$/.test(text.slice(lineStart, trimmed - 1))) break;
            trimmed = lineStart;
          }
        }
        return { value, at: [start, Math.max(trimmed, start)] };
      }
    }
  }

  /** A string as the text meant it (see `restore`). */
  private decoded(value: string): string {
    return this.restore ? this.restore(value) : value;
  }

  /** A scalar's value under its tag: plain scalars resolved by the core schema, quoted ones strings, `!!int "2"` a number. */
  private tagged(tag: string | undefined, source: string, plain: boolean): unknown {
    if (tag === undefined) return plain ? resolvePlain(source) : source;
    const definition = SCALAR_TAGS[tag.slice(2)];
    if (definition === undefined) return source;
    const resolved: unknown = definition.resolve(source, true, definition.tagName);
    return resolved === NOT_RESOLVED ? source : resolved;
  }

  /** The offset just after `indicator`, the first thing after `cursor` but blanks and comments (`cursor` when it is not there). */
  private after(cursor: number, indicator: ':' | '-'): number {
    const at = skipBlank(this.text, cursor);
    return this.text[at] === indicator ? at + 1 : cursor;
  }

  private mapping(start: number, flow: boolean, isTagMap: boolean, depth: number): Read {
    const entries = new Map<string, SourceNode>();
    let withheld: Map<string, SourceNode> | undefined;
    // Keys that would not be own data properties (__proto__) were refused by acceptKey.
    const value: Record<string, unknown> = {};
    let cursor = start + (flow ? 1 : 0);
    while (this.peek()?.type !== EVENT_ID.POP) {
      const keyEvent = must(this.peek(), 'this.peek()');
      if (keyEvent.type !== EVENT_ID.SCALAR) {
        // A list, mapping or alias as a key.
        const keyStart =
          keyEvent.type === EVENT_ID.ALIAS ? keyEvent.anchorStart - 1 : keyEvent.type === EVENT_ID.MAPPING || keyEvent.type === EVENT_ID.SEQUENCE ? keyEvent.start : cursor;
        const key = this.skipNext(cursor, null, depth + 1);
        this.error('invalid-key', 'mapping keys must be plain strings', this.lines.range([keyStart, keyStart]));
        cursor = this.skipNext(key.end, flow ? null : ':', depth + 1).end;
        continue;
      }
      this.next();
      const { value: keyValue, at: keyAt } = this.scalarAt(
        keyEvent,
        cursor,
        null,
        keyEvent.tagStart === -1 ? undefined : tagName(this.text.slice(keyEvent.tagStart, keyEvent.tagEnd)),
      );
      this.count(keyAt);
      if (keyValue === null || typeof keyValue === 'object') {
        this.error('invalid-key', 'mapping keys must be plain strings', this.lines.range(keyAt));
        cursor = this.skipNext(Math.max(keyAt[1], keyEvent.valueEnd), flow ? null : ':', depth + 1).end;
        continue;
      }
      const key = String(keyValue);
      const plain = keyEvent.style === SCALAR_STYLE.PLAIN;
      const verdict = this.acceptKey(key, keyAt, plain, isTagMap);
      if (typeof verdict === 'object' && !withheld?.has(key)) {
        // A credential's value is read (a sensitive field may claim it) but kept apart and masked;
        // what reading it found is reported only if it is claimed (the refusal says enough otherwise).
        const reported = this.diagnostics.length;
        const { node: kept, end } = this.node(keyAt[1], flow ? null : ':', key, depth + 1);
        kept.setKeyAt(keyAt);
        kept.refusal = verdict.withhold;
        kept.claimDiagnostics = this.diagnostics.splice(reported);
        this.secretSpans.push(kept.offsets() as [number, number]);
        (withheld ??= new Map()).set(key, kept);
        cursor = end;
        continue;
      }
      if (verdict !== 'accept' || entries.has(key)) {
        if (verdict === 'accept')
          this.error(
            'duplicate-key',
            `duplicate key "${key}" (first defined at line ${must(entries.get(key)?.keyRange, "the first key's range").start.line})`,
            this.lines.range(keyAt),
          );
        const skipped = this.skipNext(keyAt[1], flow ? null : ':', depth + 1);
        if (typeof verdict === 'object') this.secretSpans.push(skipped.node.offsets() as [number, number]);
        cursor = skipped.end;
        continue;
      }
      const { node, end } = this.node(keyAt[1], flow ? null : ':', key, depth + 1);
      node.setKeyAt(keyAt);
      entries.set(key, node);
      value[key] = node.value;
      cursor = end;
    }
    this.next();
    const map = this.collection(value, start, cursor, flow ? '}' : null);
    map.node.entries = entries;
    if (withheld) map.node.withheld = withheld;
    return map;
  }

  private sequence(start: number, flow: boolean, depth: number): Read {
    const items: SourceNode[] = [];
    let cursor = start + (flow ? 1 : 0);
    while (this.peek()?.type !== EVENT_ID.POP) {
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
   * its closing bracket; a block collection after the line its last entry ends on.
   */
  private collection(value: unknown, start: number, cursor: number, close: '}' | ']' | null): Read {
    const { text } = this;
    if (close !== null) {
      let at = cursor;
      while (at < text.length && text[at] !== close) at = text[at] === '#' ? lineEndOf(text, at) : at + 1;
      const node = new FileNode(value, this.lines, [start, Math.min(at + 1, text.length)]);
      return { node, end: Math.min(at + 1, text.length) };
    }
    const end = cursor > 0 && text[cursor - 1] === '\n' ? cursor : lineEndOf(text, cursor);
    return { node: new FileNode(value, this.lines, [start, end]), end };
  }

  /** Reads past the node at the current event without a word about it (the value of a refused key), but for a limit it crosses. */
  private skipNext(cursor: number, indicator: ':' | '-' | null, depth: number): Read {
    if (this.peek()?.type === EVENT_ID.POP) return { node: new FileNode(null, this.lines, [cursor, cursor]), end: cursor };
    const { diagnostics, secretSpans } = this;
    const before = [diagnostics.length, secretSpans.length];
    const read = this.node(cursor, indicator, undefined, depth);
    diagnostics.length = must(before[0], 'before[0]');
    secretSpans.length = must(before[1], 'before[1]');
    return read;
  }
}

/** An alias's node: its anchor's value and children, at the alias's place. */
function relocate(read: FileNode, at: Offsets): FileNode {
  const copy = new FileNode(read.value, read.lines, at);
  if (read.entries) copy.entries = read.entries;
  if (read.items) copy.items = read.items;
  if (read.envReference !== undefined) copy.envReference = read.envReference;
  if (read.interpolated) copy.interpolated = true;
  if (read.template) copy.template = read.template;
  if (read.failed) copy.failed = true;
  if (read.secret) copy.secret = true;
  if (read.withheld) copy.withheld = read.withheld;
  return copy;
}

/** A stream over recorded events, which it leaves in place (an anchor's events are read once per alias). */
function replay(events: readonly Event[]): EventStream {
  let at = 0;
  return { next: () => events[at++], peek: () => events[at] };
}

function skipSpaces(text: string, at: number): number {
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}

/** The offset just past the line break of the line holding `at` (or the end of the text). */
function lineEndOf(text: string, at: number): number {
  const eol = text.indexOf('\n', at);
  return eol === -1 ? text.length : eol + 1;
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
