import type { Alias, Document, LineCounter, Node, YAMLMap, YAMLError } from 'yaml';
import { yamlLibrary } from './yaml-library.js';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { FileLines, FileNode, NodeChecks, type Offsets, type SourceNode } from './source-node.js';
import { readPlainYaml } from './plain-yaml.js';
import type { Slicing } from './yaml-events.js';
import { createStackBudget, MAX_ALIAS_COUNT, MAX_DEPTH, MAX_STACK_VALUES, scanYaml, tooDeep, type StackBudget } from './stack-limits.js';

export type { SourceNode } from './source-node.js';

/** A parsed stack file: its text (for code frames), the root node, and what went wrong reading it. */
export interface SourceFile {
  filename: string;
  /** The file's text with secret values masked by `*` (same length, so positions hold): safe to print. */
  text: string;
  /** Undefined when the file is empty, has YAML syntax errors or crossed a limit. */
  root?: SourceNode;
  diagnostics: Diagnostic[];
  /** True when the YAML itself was broken or a limit stopped reading it (the root, if any, is partial). */
  syntaxErrors: boolean;
}

/**
 * Reads one stack file into a SourceNode tree: positions 1-based line:column; `${env:NAME}`
 * expanded in string scalars; duplicate keys, secrets (and any value that contains the API key
 * of `env`), unset variables and unresolvable aliases reported as diagnostics at their exact
 * place; bounded by `budget` (shared by the files of a stack, see stack-limits.ts). A file in
 * plain YAML, as stacks are, is read by js-yaml's events (plain-yaml.ts, about ten times
 * faster); any other, by the yaml library (readWithYamlLibrary). Both build the same tree.
 */
export function readSourceFile(
  filename: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: StackBudget = createStackBudget(),
  slicing?: Slicing,
): SourceFile {
  const control = NON_PRINTABLE.exec(text);
  const plain = control ? undefined : readPlainYaml(filename, text, env, budget, slicing);
  if (plain) return { filename, text: maskSpans(text, plain.secretSpans), ...(plain.root ? { root: plain.root } : {}), diagnostics: plain.diagnostics, syntaxErrors: false };
  return readWithYamlLibrary(filename, text, env, budget, control);
}

/**
 * readSourceFile through the yaml library's Document API, for any YAML, every problem in its
 * words: positions from node ranges (LineCounter). The file is counted with the lexer before it
 * is parsed (scanYaml); nesting deeper than MAX_DEPTH and alias expansion beyond the yaml
 * library's maxAliasCount or the value budget are errors. Exported for the tests that compare
 * both readings.
 */
export function readWithYamlLibrary(
  filename: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: StackBudget = createStackBudget(),
  control: RegExpExecArray | null = NON_PRINTABLE.exec(text),
): SourceFile {
  const lineCounter = new (yamlLibrary().LineCounter)();
  const lines = new FileLines(filename, lineCounter);
  const toRange = (offsets: Offsets): SourceRange => lines.range(offsets);
  const lexemes: string[] = [];
  const scanProblem = scanYaml(text, budget, lexemes);
  if (scanProblem) {
    const at = positionAt(text, scanProblem.offset);
    const range = { filename, start: at, end: at };
    return { filename, text, diagnostics: [{ severity: 'error', code: scanProblem.code, summary: scanProblem.summary, detail: scanProblem.detail, range }], syntaxErrors: true };
  }
  const doc = parseLexemes(lexemes, text.length, lineCounter);
  const diagnostics: Diagnostic[] = doc.errors.map((error) => ({ severity: 'error', ...describeYamlError(error), range: toRange(error.pos) }));
  if (control) {
    const code = control[0].charCodeAt(0);
    const shown = code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
    diagnostics.push({
      severity: 'error',
      code: 'invalid-character',
      summary: `the file holds the control character ${shown} here; YAML allows only printable characters`,
      detail:
        'Control characters (such as ESC, which starts terminal escape sequences) have no place in a stack; write them as escapes in a double-quoted string if you really mean them. Only the first one is reported.',
      range: toRange([control.index, control.index + 1]),
    });
  }
  for (const warning of doc.warnings) {
    // An unknown tag is an error of its own (Converter), not also a warning.
    if (warning.code === 'TAG_RESOLVE_FAILED') continue;
    diagnostics.push({ severity: 'warning', code: 'yaml-warning', summary: firstLine(warning.message), range: toRange(warning.pos) });
  }
  const syntaxErrors = doc.errors.length > 0;
  if (syntaxErrors || doc.contents === null) return { filename, text, diagnostics, syntaxErrors };
  const converter = new Converter(doc, env, lines, diagnostics, budget);
  const root = converter.convert(doc.contents, [], undefined, 1);
  // A limit stopped the conversion: the partial tree would only add noise, like broken YAML.
  if (converter.stopped) return { filename, text: maskSpans(text, converter.secretSpans), diagnostics, syntaxErrors: true };
  return { filename, text: maskSpans(text, converter.secretSpans), root, diagnostics, syntaxErrors: false };
}

/**
 * The yaml library's parseDocument, fed the lexemes scanYaml already cut (lexing is a fifth of
 * the parse): the parser and composer parseDocument uses, with the same options, and the same
 * MULTIPLE_DOCS error on a second document.
 */
function parseLexemes(lexemes: readonly string[], length: number, lineCounter: LineCounter): Document.Parsed {
  const { Composer, Parser, YAMLParseError } = yamlLibrary();
  const parser = new Parser(lineCounter.addNewLine);
  const tokens = function* () {
    // What Parser.parse does before its first lexeme.
    lineCounter.addNewLine(0);
    for (const lexeme of lexemes) yield* parser.next(lexeme);
    yield* parser.end();
  };
  let doc: Document.Parsed | undefined;
  for (const next of new Composer({ prettyErrors: false, uniqueKeys: false }).compose(tokens(), true, length)) {
    if (!doc) {
      doc = next;
      continue;
    }
    doc.errors.push(new YAMLParseError(next.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
    break;
  }
  // compose(…, forceDoc) always yields a document.
  return doc!;
}

/** Characters the YAML spec does not allow in a stream (C0 but tab and line breaks, DEL, C1 but NEL, U+FFFE, U+FFFF). */
const NON_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/** The yaml library's errors in a stack's words; its own message otherwise. */
function describeYamlError(error: YAMLError): { code: string; summary: string; detail?: string } {
  if (error.code === 'MULTIPLE_DOCS') {
    return {
      code: 'yaml-syntax',
      summary: 'a second YAML document starts here; a stack file holds one document',
      detail: 'Remove the "---" line, or split the documents into files of a directory stack.',
    };
  }
  if (/Maximum call stack size exceeded/.test(error.message)) {
    return { code: 'too-deep', summary: 'values are nested too deeply to read', detail: `A stack needs only a few levels; edgeform refuses nesting deeper than ${MAX_DEPTH}.` };
  }
  return { code: 'yaml-syntax', summary: `invalid YAML: ${firstLine(error.message)}`, detail: `YAML error ${error.code}.` };
}

/** The 1-based line and column of an offset (for problems found before the yaml library counted lines). */
function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The text with every span's characters (but line breaks) replaced by `*`; one pass, whatever the number of spans. */
function maskSpans(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of sorted) {
    if (end <= at) continue;
    const from = Math.max(start, at);
    parts.push(text.slice(at, from), text.slice(from, end).replace(/[^\n]/g, '*'));
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** The context the yaml library resolves aliases with: its alias count limit, and one anchor lookup for the whole document. */
type AliasContext = NonNullable<Parameters<Alias['resolve']>[1]>;

/** Tags of the YAML core schema; any other (`!!binary`, `!!js/function`, `!custom`) is refused. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

class Converter extends NodeChecks {
  private readonly aliasContext: AliasContext;
  /** The outermost alias being expanded, if any: where a limit crossed inside its target is reported. */
  private expanding: SourceRange | undefined;
  /** Set once a limit was reported: the rest of the file is not converted (and not reported on). */
  stopped = false;

  constructor(
    private readonly doc: Document,
    env: Readonly<Record<string, string | undefined>>,
    lines: FileLines,
    diagnostics: Diagnostic[],
    private readonly budget: StackBudget,
  ) {
    super(env, lines, diagnostics);
    this.aliasContext = { anchors: new Map(), doc, keep: false, mapAsMap: false, mapKeyWarned: true, maxAliasCount: MAX_ALIAS_COUNT };
  }
  /**
   * `parentKey` is the mapping key this node is the value of (tag maps are user data, see
   * convertMap); `depth` is 1 for the document's root.
   */
  convert(node: Node, aliasChain: readonly Node[], parentKey: string | undefined, depth: number): SourceNode {
    const at: Offsets = node.range ?? [0, 0];
    if (this.stopped) return this.failedAt(at);
    if (depth > MAX_DEPTH) return this.stop(tooDeep(), at);
    if (--this.budget.expanded < 0) {
      return this.stop(
        {
          code: 'stack-too-large',
          summary: `the stack holds more than ${MAX_STACK_VALUES.toLocaleString('en-US')} values once its aliases are expanded; edgeform reads at most that many`,
          detail: "An alias copies its anchor's whole value; write shared fields once under defaults: instead.",
        },
        at,
      );
    }
    const { isAlias, isMap, isScalar, isSeq } = yamlLibrary();
    if (isAlias(node)) {
      let target: Node | undefined;
      try {
        target = node.resolve(this.doc, this.aliasContext);
      } catch (error) {
        if (!(error instanceof ReferenceError) || !/alias count/i.test(error.message)) throw error;
        return this.stop(
          {
            code: 'too-many-aliases',
            summary: `alias *${node.source} expands too much: the aliases of this file would build a huge value (an alias bomb?)`,
            detail: `The yaml library allows an anchor to be used at most ${MAX_ALIAS_COUNT.toLocaleString('en-US')} times, fewer when its value holds aliases itself; write shared fields once under defaults: instead.`,
          },
          at,
        );
      }
      if (!target || aliasChain.includes(target)) {
        this.error('yaml-syntax', target ? `alias *${node.source} refers to a value that contains it` : `alias *${node.source} refers to no anchor`, this.lines.range(at));
        return this.failedAt(at);
      }
      // An alias takes its target's value but points diagnostics at the alias itself; a limit
      // crossed while expanding it is reported at the outermost alias being expanded.
      const outer = this.expanding;
      this.expanding ??= this.lines.range(at);
      try {
        return this.relocate(this.convert(target, [...aliasChain, target], parentKey, depth), at);
      } finally {
        this.expanding = outer;
      }
    }
    if (node.tag && !CORE_TAGS.has(node.tag)) {
      const tag = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
      this.error('unsupported-yaml', `the YAML tag ${tag} is not supported`, this.lines.range(at), {
        detail: 'A stack holds plain strings, numbers, booleans, lists and mappings; remove the tag.',
      });
      return this.failedAt(at);
    }
    if (isMap(node)) return this.convertMap(node, at, aliasChain, parentKey === 'tags', depth);
    if (isSeq(node)) {
      const items: SourceNode[] = [];
      for (const item of node.items) {
        if (this.stopped) break;
        items.push(item ? this.convert(item as Node, aliasChain, undefined, depth + 1) : new FileNode(null, this.lines, at));
      }
      const seq = new FileNode(
        items.map((i) => i.value),
        this.lines,
        at,
      );
      seq.items = items;
      return seq;
    }
    if (isScalar(node)) return this.scalar(node.value, at);
    return new FileNode(null, this.lines, at);
  }

  /** An alias's node: its target's converted value and children, at the alias's place. */
  private relocate(converted: SourceNode, at: Offsets): FileNode {
    const copy = new FileNode(converted.value, this.lines, at);
    if (converted.entries) copy.entries = converted.entries;
    if (converted.items) copy.items = converted.items;
    if (converted.envReference !== undefined) copy.envReference = converted.envReference;
    if (converted.interpolated) copy.interpolated = true;
    if (converted.template) copy.template = converted.template;
    if (converted.failed) copy.failed = true;
    if (converted.secret) copy.secret = true;
    return copy;
  }

  /** Reports a limit once and stops converting the file: what follows would only add noise (or cost). */
  private stop(problem: { code: string; summary: string; detail: string }, at: Offsets): SourceNode {
    this.stopped = true;
    this.error(problem.code, problem.summary, this.expanding ?? this.lines.range(at), { detail: problem.detail });
    return this.failedAt(at);
  }

  /** A mapping: its keys checked (see acceptKey), duplicates reported, values converted. */
  private convertMap(node: YAMLMap, at: Offsets, aliasChain: readonly Node[], isTagMap: boolean, depth: number): SourceNode {
    const entries = new Map<string, SourceNode>();
    const values: Array<[string, unknown]> = [];
    for (const pair of node.items) {
      if (this.stopped) break;
      const keyNode = pair.key as Node | null;
      const keyAt: Offsets = keyNode?.range ?? node.range ?? [0, 0];
      const keyRange = () => this.lines.range(keyAt);
      if (!yamlLibrary().isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.error('invalid-key', 'mapping keys must be plain strings', keyRange());
        continue;
      }
      const key = String(keyNode.value);
      const verdict = this.acceptKey(key, keyAt, !keyNode.type?.startsWith('QUOTE'), isTagMap);
      if (verdict !== 'accept') {
        const secret = (pair.value as Node | null)?.range;
        if (verdict === 'mask' && secret) this.secretSpans.push([secret[0], secret[1]]);
        continue;
      }
      const previous = entries.get(key);
      if (previous) {
        this.error('duplicate-key', `duplicate key "${key}" (first defined at line ${previous.keyRange!.start.line})`, keyRange());
        continue;
      }
      const valueNode = pair.value as Node | null;
      // convert returns a node of its own, so it can take its key's range.
      const child: SourceNode = valueNode ? this.convert(valueNode, aliasChain, key, depth + 1) : new FileNode(null, this.lines, keyAt);
      if (child instanceof FileNode) child.setKeyAt(keyAt);
      else child.keyRange = keyRange();
      entries.set(key, child);
      values.push([key, child.value]);
    }
    const map = new FileNode(Object.fromEntries(values), this.lines, at);
    map.entries = entries;
    return map;
  }
}
