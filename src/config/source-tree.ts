import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { interpolate, isWholeReference } from './interpolate.js';
import { API_KEY_ENV } from '../env.js';
import { isSecretFieldName, looksLikeApiKey } from './secrets.js';

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
  /** Undefined when the file is empty or has YAML syntax errors. */
  root?: SourceNode;
  diagnostics: Diagnostic[];
  /** True when the YAML itself was broken (the root, if any, is partial). */
  syntaxErrors: boolean;
}

/**
 * Parses one stack file with the yaml Document API and turns it into a SourceNode tree:
 * positions come from node ranges (LineCounter, 1-based); `${env:NAME}` is expanded in
 * string scalars; duplicate keys, secrets, unset variables and unresolvable aliases are
 * reported as diagnostics at their exact place.
 */
export function readSourceFile(filename: string, text: string, env: Readonly<Record<string, string | undefined>>): SourceFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: true, prettyErrors: false, uniqueKeys: false });
  const toRange = ([start, end]: readonly [number, number] | readonly number[]): SourceRange => {
    const a = lineCounter.linePos(start!);
    const b = lineCounter.linePos(end ?? start!);
    return { filename, start: { line: a.line, column: a.col }, end: { line: b.line, column: b.col } };
  };
  const diagnostics: Diagnostic[] = doc.errors.map((error) => ({
    severity: 'error',
    code: 'yaml-syntax',
    summary: `invalid YAML: ${firstLine(error.message)}`,
    detail: `YAML error ${error.code}.`,
    range: toRange(error.pos),
  }));
  for (const warning of doc.warnings) {
    diagnostics.push({ severity: 'warning', code: 'yaml-warning', summary: firstLine(warning.message), range: toRange(warning.pos) });
  }
  const syntaxErrors = doc.errors.length > 0;
  if (syntaxErrors || doc.contents === null) return { filename, text, diagnostics, syntaxErrors };
  const converter = new Converter(doc, env, toRange, diagnostics);
  const root = converter.convert(doc.contents, []);
  return { filename, text: maskSpans(text, converter.secretSpans), root, diagnostics, syntaxErrors };
}

function maskSpans(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  let out = text;
  for (const [start, end] of spans) out = out.slice(0, start) + out.slice(start, end).replace(/[^\n]/g, '*') + out.slice(end);
  return out;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

type ToRange = (range: readonly number[]) => SourceRange;

class Converter {
  /** Offsets of values that must never be printed (credentials, API-key-like strings). */
  readonly secretSpans: Array<readonly [number, number]> = [];

  constructor(
    private readonly doc: Document,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly toRange: ToRange,
    private readonly diagnostics: Diagnostic[],
  ) {}

  /** `parentKey` is the mapping key this node is the value of (tag maps are user data, see convertMap). */
  convert(node: Node, aliasChain: readonly Node[], parentKey?: string): SourceNode {
    const range = this.toRange(node.range ?? [0, 0]);
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (!target || aliasChain.includes(target)) {
        this.error('yaml-syntax', `alias *${node.source} refers to no anchor`, range);
        return { value: null, range, failed: true };
      }
      // An alias takes its target's value but points diagnostics at the alias itself.
      return { ...this.convert(target, [...aliasChain, target], parentKey), range };
    }
    if (isMap(node)) return this.convertMap(node, range, aliasChain, parentKey === 'tags');
    if (isSeq(node)) {
      const items = node.items.map((item) => (item ? this.convert(item as Node, aliasChain) : { value: null, range }));
      return { value: items.map((i) => i.value), range, items };
    }
    if (isScalar(node)) {
      const converted = this.convertScalar(node.value, range);
      if (converted.secret && node.range) this.secretSpans.push([node.range[0], node.range[1]]);
      return converted;
    }
    return { value: null, range };
  }

  /**
   * Keys naming a credential are refused, except in a tag map: tag keys are the user's labels
   * (`token-bucket: on`), and a key-shaped tag value is still caught by the value check.
   */
  private convertMap(node: YAMLMap, range: SourceRange, aliasChain: readonly Node[], isTagMap: boolean): SourceNode {
    const entries = new Map<string, SourceNode>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const keyRange = this.toRange(keyNode?.range ?? node.range ?? [0, 0]);
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.error('invalid-key', 'mapping keys must be plain strings', keyRange);
        continue;
      }
      const key = String(keyNode.value);
      if (!isTagMap && isSecretFieldName(key)) {
        this.error('secret-in-stack', `"${key}" looks like a credential; a stack never holds secrets`, keyRange, {
          detail: `Remove it and set the API key in the environment variable ${API_KEY_ENV} instead.`,
        });
        const secret = (pair.value as Node | null)?.range;
        if (secret) this.secretSpans.push([secret[0], secret[1]]);
        continue;
      }
      const previous = entries.get(key);
      if (previous) {
        this.error('duplicate-key', `duplicate key "${key}" (first defined at line ${previous.keyRange!.start.line})`, keyRange);
        continue;
      }
      const valueNode = pair.value as Node | null;
      const child = valueNode ? this.convert(valueNode, aliasChain, key) : { value: null, range: keyRange };
      entries.set(key, { ...child, keyRange });
    }
    return { value: Object.fromEntries([...entries].map(([k, v]) => [k, v.value])), range, entries };
  }

  private convertScalar(value: unknown, range: SourceRange): SourceNode {
    if (typeof value !== 'string') return { value, range };
    const result = interpolate(value, this.env);
    if ((result.ok && result.references.includes(API_KEY_ENV)) || (!result.ok && result.reason === 'unset' && result.name === API_KEY_ENV)) {
      this.error('secret-in-stack', `\${env:${API_KEY_ENV}} would put the API key into the stack; a stack never holds secrets`, range, {
        detail: `edgeform reads ${API_KEY_ENV} itself; no field of a stack needs the key.`,
      });
      return { value: '', range, failed: true, secret: true };
    }
    if (!result.ok) {
      if (result.reason === 'unset') {
        this.error('unset-env', `environment variable ${result.name} is not set`, range, {
          detail: `\${env:${result.name}} needs ${result.name} in the environment (an empty value is allowed).`,
        });
      } else {
        this.error('invalid-interpolation', `"${result.text}" is not an interpolation edgeform knows`, range, {
          detail: 'Only ${env:NAME} is supported; write $${ for a literal "${".',
        });
      }
      return { value, range, failed: true };
    }
    if (looksLikeApiKey(result.value)) {
      this.error('secret-in-stack', 'this value looks like a platform API key; a stack never holds secrets', range, {
        detail: `Remove it and set the API key in the environment variable ${API_KEY_ENV} instead.`,
      });
      return { value: '', range, failed: true, secret: true };
    }
    const node: SourceNode = { value: result.value, range };
    if (result.references.length > 0 || value !== result.value) node.interpolated = true;
    if (isWholeReference(value)) node.envReference = result.references[0]!;
    return node;
  }

  private error(code: string, summary: string, range: SourceRange, extra: { detail?: string } = {}): void {
    this.diagnostics.push({ severity: 'error', code, summary, ...extra, range });
  }
}
