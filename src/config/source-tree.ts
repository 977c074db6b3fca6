import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, YAMLParseError, type Alias, type Document, type Node, type YAMLMap, type YAMLError } from 'yaml';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { interpolate, isWholeReference } from './interpolate.js';
import { API_KEY_ENV } from '../env.js';
import { containsApiKey, isSecretFieldName, looksLikeApiKey } from './secrets.js';
import { createStackBudget, MAX_ALIAS_COUNT, MAX_DEPTH, MAX_STACK_VALUES, scanYaml, tooDeep, type StackBudget } from './stack-limits.js';

/**
 * One YAML value with where it stands: the plain value (strings already interpolated) plus
 * the ranges and children needed to point a diagnostic at any part of it.
 */
export interface SourceNode {
  value: unknown;
  range: SourceRange;
  /** For a mapping entry: where its key stands. */
  keyRange?: SourceRange;
  /** Mapping entries in source order (keys as strings). */
  entries?: Map<string, SourceNode>;
  /** Sequence items. */
  items?: SourceNode[];
  /** Set when the value is exactly one `${env:NAME}` reference (it may become a number or boolean). */
  envReference?: string;
  /** True when the string contained any interpolation. */
  interpolated?: boolean;
  /** True when an error was already reported at this node; later checks stay quiet about it. */
  failed?: boolean;
  /** True when the value looked like an API key (it is masked in SourceFile.text). */
  secret?: boolean;
}

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
 * Parses one stack file with the yaml Document API and turns it into a SourceNode tree:
 * positions come from node ranges (LineCounter, 1-based); `${env:NAME}` is expanded in
 * string scalars; duplicate keys, secrets (and any value that contains the API key of
 * `env`), unset variables and unresolvable aliases are reported as diagnostics at their
 * exact place. Bounded: the file is counted with the lexer before it is parsed (`budget`,
 * shared by the files of a stack, see stack-limits.ts), nesting deeper than MAX_DEPTH and
 * alias expansion beyond the yaml library's maxAliasCount or the value budget are errors.
 */
export function readSourceFile(filename: string, text: string, env: Readonly<Record<string, string | undefined>>, budget: StackBudget = createStackBudget()): SourceFile {
  const lineCounter = new LineCounter();
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
  const control = NON_PRINTABLE.exec(text);
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

/** Offsets in a file's text as the yaml library gives them: start, then end of the value (then of the node). */
type Offsets = readonly number[];

/** A file's line table: turns the yaml library's offsets into 1-based line:column ranges. */
class FileLines {
  constructor(
    readonly filename: string,
    private readonly lines: LineCounter,
  ) {}

  range([start, end]: Offsets): SourceRange {
    const a = this.lines.linePos(start!);
    const b = this.lines.linePos(end ?? start!);
    return { filename: this.filename, start: { line: a.line, column: a.col }, end: { line: b.line, column: b.col } };
  }
}

/**
 * A node of a file, holding the yaml library's offsets: its ranges (line:column) are computed
 * when first read, for a diagnostic or a plan error, not for each of the hundreds of thousands
 * of nodes of a large stack, almost none of which is ever pointed at.
 */
class FileNode implements SourceNode {
  declare entries?: Map<string, SourceNode>;
  declare items?: SourceNode[];
  declare envReference?: string;
  declare interpolated?: boolean;
  declare failed?: boolean;
  declare secret?: boolean;
  #range: SourceRange | undefined;
  #keyAt: Offsets | undefined;
  #keyRange: SourceRange | undefined;

  constructor(
    public value: unknown,
    readonly lines: FileLines,
    readonly at: Offsets,
  ) {}

  get range(): SourceRange {
    return (this.#range ??= this.lines.range(this.at));
  }

  get keyRange(): SourceRange | undefined {
    if (this.#keyRange === undefined && this.#keyAt !== undefined) this.#keyRange = this.lines.range(this.#keyAt);
    return this.#keyRange;
  }

  set keyRange(range: SourceRange | undefined) {
    this.#keyRange = range;
  }

  /** The node as the value of a mapping key standing at `offsets`. */
  setKeyAt(offsets: Offsets): void {
    this.#keyAt = offsets;
    this.#keyRange = undefined;
  }
}

/** The context the yaml library resolves aliases with: its alias count limit, and one anchor lookup for the whole document. */
type AliasContext = NonNullable<Parameters<Alias['resolve']>[1]>;

/** Tags of the YAML core schema; any other (`!!binary`, `!!js/function`, `!custom`) is refused. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/** A string with a lone UTF-16 surrogate (from a "\ud800" escape): not Unicode, so not sendable. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

class Converter {
  /** Offsets of values that must never be printed (credentials, API-key-like strings). */
  readonly secretSpans: Array<readonly [number, number]> = [];
  private readonly aliasContext: AliasContext;
  private readonly apiKey: string | undefined;
  /** Keys found to name no credential, be no merge key and hold valid Unicode. */
  private readonly ordinaryKeys = new Set<string>();
  /** The outermost alias being expanded, if any: where a limit crossed inside its target is reported. */
  private expanding: SourceRange | undefined;
  /** Set once a limit was reported: the rest of the file is not converted (and not reported on). */
  stopped = false;

  constructor(
    private readonly doc: Document,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly lines: FileLines,
    private readonly diagnostics: Diagnostic[],
    private readonly budget: StackBudget,
  ) {
    this.aliasContext = { anchors: new Map(), doc, keep: false, mapAsMap: false, mapKeyWarned: true, maxAliasCount: MAX_ALIAS_COUNT };
    this.apiKey = env[API_KEY_ENV];
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
    if (isScalar(node)) {
      const converted = this.convertScalar(node.value, at);
      if (converted.secret && node.range) this.secretSpans.push([node.range[0], node.range[1]]);
      return converted;
    }
    return new FileNode(null, this.lines, at);
  }

  /** A node that failed: an error was reported at it, later checks stay quiet about it. */
  private failedAt(at: Offsets, value: unknown = null, secret = false): FileNode {
    const failed = new FileNode(value, this.lines, at);
    failed.failed = true;
    if (secret) failed.secret = true;
    return failed;
  }

  /** An alias's node: its target's converted value and children, at the alias's place. */
  private relocate(converted: SourceNode, at: Offsets): FileNode {
    const copy = new FileNode(converted.value, this.lines, at);
    if (converted.entries) copy.entries = converted.entries;
    if (converted.items) copy.items = converted.items;
    if (converted.envReference !== undefined) copy.envReference = converted.envReference;
    if (converted.interpolated) copy.interpolated = true;
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

  /**
   * Keys naming a credential are refused, except in a tag map: tag keys are the user's labels
   * (`token-bucket: on`), and a key-shaped tag value is still caught by the value check.
   */
  private convertMap(node: YAMLMap, at: Offsets, aliasChain: readonly Node[], isTagMap: boolean, depth: number): SourceNode {
    const entries = new Map<string, SourceNode>();
    const values: Array<[string, unknown]> = [];
    for (const pair of node.items) {
      if (this.stopped) break;
      const keyNode = pair.key as Node | null;
      const keyAt: Offsets = keyNode?.range ?? node.range ?? [0, 0];
      const keyRange = () => this.lines.range(keyAt);
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.error('invalid-key', 'mapping keys must be plain strings', keyRange());
        continue;
      }
      const key = String(keyNode.value);
      // A key seen before in this file passed these checks then (most keys repeat in every block).
      if (!this.ordinaryKeys.has(key)) {
        if (containsApiKey(key, this.apiKey)) {
          this.error('secret-in-stack', `this key contains the API key (the value of ${API_KEY_ENV}); a stack never holds secrets`, keyRange(), {
            detail: 'The key is not shown. Remove it from the stack.',
          });
          if (keyNode.range) this.secretSpans.push([keyNode.range[0], keyNode.range[1]]);
          continue;
        }
        if (!isTagMap && isSecretFieldName(key)) {
          this.error('secret-in-stack', `"${key}" looks like a credential; a stack never holds secrets`, keyRange(), {
            detail: `Remove it and set the API key in the environment variable ${API_KEY_ENV} instead.`,
          });
          const secret = (pair.value as Node | null)?.range;
          if (secret) this.secretSpans.push([secret[0], secret[1]]);
          continue;
        }
        if (key === '<<' && !keyNode.type?.startsWith('QUOTE')) {
          this.error('unsupported-yaml', 'merge keys (<<) are not supported', keyRange(), {
            detail: 'Write the fields out, or put fields every block shares under defaults:.',
          });
          continue;
        }
        if (key === '__proto__') {
          // Every layer that builds objects from the stack (zod's records among them) drops this
          // key, so a tag named so would vanish, and the authoritative policy remove it live.
          this.error('invalid-key', 'the key "__proto__" is not supported', keyRange(), {
            detail: 'It names an object prototype in JavaScript and would be dropped silently; rename it.',
          });
          continue;
        }
        if (LONE_SURROGATE.test(key)) {
          this.error('invalid-key', 'this key holds an unpaired UTF-16 surrogate (a "\\ud800"-style escape), which is not valid Unicode', keyRange());
          continue;
        }
        if (!isSecretFieldName(key) && key !== '<<') this.ordinaryKeys.add(key);
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

  private convertScalar(value: unknown, at: Offsets): SourceNode {
    if (typeof value !== 'string') return new FileNode(value, this.lines, at);
    const range = () => this.lines.range(at);
    const result = interpolate(value, this.env);
    if ((result.ok && result.references.includes(API_KEY_ENV)) || (!result.ok && result.reason === 'unset' && result.name === API_KEY_ENV)) {
      this.error('secret-in-stack', `\${env:${API_KEY_ENV}} would put the API key into the stack; a stack never holds secrets`, range(), {
        detail: `edgeform reads ${API_KEY_ENV} itself; no field of a stack needs the key.`,
      });
      return this.failedAt(at, '', true);
    }
    if (!result.ok) {
      if (result.reason === 'unset') {
        this.error('unset-env', `environment variable ${result.name} is not set`, range(), {
          detail: `\${env:${result.name}} needs ${result.name} in the environment (an empty value is allowed).`,
        });
      } else {
        this.error('invalid-interpolation', `"${result.text}" is not an interpolation edgeform knows`, range(), {
          detail: 'Only ${env:NAME} is supported; write $${ for a literal "${".',
        });
      }
      return this.failedAt(at, value);
    }
    if (containsApiKey(result.value, this.apiKey)) {
      const from = result.references.map((name) => `\${env:${name}}`).join(', ');
      this.error('secret-in-stack', `this value contains the API key (the value of ${API_KEY_ENV}); a stack never holds secrets`, range(), {
        detail: from ? `It comes from ${from}; the value is not shown. Point the variable at something else.` : 'The value is not shown. Remove it from the stack.',
      });
      return this.failedAt(at, '', containsApiKey(value, this.apiKey));
    }
    if (looksLikeApiKey(result.value)) {
      this.error('secret-in-stack', 'this value looks like a platform API key; a stack never holds secrets', range(), {
        detail: `Remove it and set the API key in the environment variable ${API_KEY_ENV} instead.`,
      });
      return this.failedAt(at, '', true);
    }
    if (LONE_SURROGATE.test(result.value)) {
      this.error('invalid-value', 'this string holds an unpaired UTF-16 surrogate (a "\\ud800"-style escape), which is not valid Unicode', range());
      return this.failedAt(at, value);
    }
    const node = new FileNode(result.value, this.lines, at);
    if (result.references.length > 0 || value !== result.value) node.interpolated = true;
    if (isWholeReference(value)) node.envReference = result.references[0]!;
    return node;
  }

  private error(code: string, summary: string, range: SourceRange, extra: { detail?: string } = {}): void {
    this.diagnostics.push({ severity: 'error', code, summary, ...extra, range });
  }
}
