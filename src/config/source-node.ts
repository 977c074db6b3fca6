import type { Diagnostic, SourceRange } from './diagnostics.js';
import { interpolate, isWholeReference } from './interpolate.js';
import type { TemplatePart } from '../model/references.js';
import { API_KEY_ENV, OWNER_KEY_ENV, OWNER_KEY_PREVIOUS_ENV } from '../env.js';
import { containsApiKey, isSecretFieldName, looksLikeApiKey } from './secrets.js';

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
  /** The environment variables an interpolated string read (`${env:NAME}`), when it read any. */
  envReferences?: string[];
  /** Set when the string holds `${TYPE.NAME.FIELD}` references: its parts (the value is the template as written). */
  template?: TemplatePart[];
  /** True when an error was already reported at this node; later checks stay quiet about it. */
  failed?: boolean;
  /** True when the value looked like an API key (it is masked in SourceFile.text). */
  secret?: boolean;
  /**
   * Mapping entries whose key names a credential (`secret_access_key`, `password`), kept apart
   * from `entries` and the value so that nothing reads them by accident: only a field its kind
   * declares sensitive (KindSpec.sensitive) takes one (see claimSensitive); any other is refused.
   */
  withheld?: Map<string, SourceNode>;
  /** For a node in `withheld`: the error that refuses its key unless a sensitive field claims it. */
  refusal?: Diagnostic;
  /** For a node in `withheld`: what reading its value found (an unset variable), reported when a sensitive field claims it. */
  claimDiagnostics?: Diagnostic[];
}

/** Offsets in a file's text: start, then end of the value. */
export type Offsets = readonly [start: number, end: number];

/** What FileLines needs of a line table (lineTable's). */
export interface LinePositions {
  /** The 1-based line and column of an offset. */
  linePos(offset: number): { line: number; col: number };
}

/**
 * The line table of a text (a line starts after each "\n"): a binary search over the lines'
 * starts.
 */
export function lineTable(text: string): LinePositions {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return {
    linePos(offset) {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (starts[mid]! <= offset) low = mid;
        else high = mid - 1;
      }
      return { line: low + 1, col: offset - starts[low]! + 1 };
    },
  };
}

/** A file's line table: turns offsets into 1-based line:column ranges. */
export class FileLines {
  #lines: LinePositions | (() => LinePositions);

  /** `lines` may be a function that builds the table when a range is first asked for. */
  constructor(
    readonly filename: string,
    lines: LinePositions | (() => LinePositions),
  ) {
    this.#lines = lines;
  }

  range([start, end]: Offsets): SourceRange {
    if (typeof this.#lines === 'function') this.#lines = this.#lines();
    const a = this.#lines.linePos(start);
    const b = this.#lines.linePos(end ?? start);
    return { filename: this.filename, start: { line: a.line, column: a.col }, end: { line: b.line, column: b.col } };
  }
}

/**
 * A node of a file, holding its offsets: its ranges (line:column) are computed when first
 * read, for a diagnostic or a plan error, not for each of the hundreds of thousands of nodes
 * of a large stack, almost none of which is ever pointed at.
 */
export class FileNode implements SourceNode {
  declare entries?: Map<string, SourceNode>;
  declare items?: SourceNode[];
  declare envReference?: string;
  declare interpolated?: boolean;
  declare envReferences?: string[];
  declare template?: TemplatePart[];
  declare failed?: boolean;
  declare secret?: boolean;
  declare withheld?: Map<string, SourceNode>;
  declare refusal?: Diagnostic;
  declare claimDiagnostics?: Diagnostic[];
  /** Where the value starts and ends: numbers, not the offsets array, which the reading drops (a large stack has hundreds of thousands). */
  readonly start: number;
  readonly end: number;
  #range: SourceRange | undefined;
  #keyStart = -1;
  #keyEnd = -1;
  #keyRange: SourceRange | undefined;

  constructor(
    public value: unknown,
    readonly lines: FileLines,
    at: Offsets,
  ) {
    this.start = at[0];
    this.end = at[1] ?? at[0];
  }

  get range(): SourceRange {
    return (this.#range ??= this.lines.range(this.offsets()));
  }

  /** Start and end of the node's value (a subclass may find the end only when asked). */
  offsets(): Offsets {
    return [this.start, this.end];
  }

  get keyRange(): SourceRange | undefined {
    if (this.#keyRange === undefined && this.#keyStart !== -1) this.#keyRange = this.lines.range([this.#keyStart, this.#keyEnd]);
    return this.#keyRange;
  }

  set keyRange(range: SourceRange | undefined) {
    this.#keyRange = range;
  }

  /** The node as the value of a mapping key standing at `offsets`. */
  setKeyAt(offsets: Offsets): void {
    this.#keyStart = offsets[0];
    this.#keyEnd = offsets[1] ?? offsets[0];
    this.#keyRange = undefined;
  }
}

/** The variables holding owner keys: a stack may not read them. */
const OWNER_KEYS: readonly string[] = [OWNER_KEY_ENV, OWNER_KEY_PREVIOUS_ENV];
/**
 * Where a value stands, and nothing else of it: what a block keeps of each of its fields
 * (TypedBlock.fieldSources) for the diagnostics of later stages (plan errors point at a field).
 * A field's node holds its whole subtree (a record set's records, their contents); kept for
 * every field of 10,000 DNS record set blocks, they were 16 MB of the plan's heap.
 */
export function whereValueStands(node: SourceNode): { readonly range: SourceRange } {
  return node instanceof FileNode ? new ValueSpan(node.lines, node.start, node.end) : node;
}

/** A value's place in a file, its range computed when first read (see whereValueStands). */
class ValueSpan {
  #range: SourceRange | undefined;
  constructor(
    private readonly lines: FileLines,
    private readonly start: number,
    private readonly end: number,
  ) {}

  get range(): SourceRange {
    return (this.#range ??= this.lines.range([this.start, this.end]));
  }
}

/** A string with a lone UTF-16 surrogate (from a "\ud800" escape): not Unicode, so not sendable. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What a stack's keys and string values must pass as the reader builds the tree (see
 * source-tree.ts and yaml-reader.ts): no credential, no API key, no merge key, valid Unicode;
 * `${env:NAME}` expanded. Collects the diagnostics and the spans to mask in printed text.
 */
export class NodeChecks {
  /** Offsets of values that must never be printed (credentials, API-key-like strings). */
  readonly secretSpans: Array<readonly [number, number]> = [];
  private readonly apiKey: string | undefined;
  /** The owner keys (EDGEFORM_OWNER_KEY and the previous one) set in the environment: secrets like the API key. */
  private readonly ownerKeys: string[];
  /** Keys found to name no credential, be no merge key and hold valid Unicode. */
  private readonly ordinaryKeys = new Set<string>();

  constructor(
    protected readonly env: Readonly<Record<string, string | undefined>>,
    protected readonly lines: FileLines,
    protected readonly diagnostics: Diagnostic[],
  ) {
    this.apiKey = env[API_KEY_ENV];
    this.ownerKeys = OWNER_KEYS.flatMap((name) => env[name]?.trim() || []);
  }

  /**
   * Whether a mapping key may stand: an error is reported otherwise. Keys naming a credential
   * are refused, except in a tag map: tag keys are the user's labels (`token-bucket: on`), and
   * a key-shaped tag value is still caught by the value check. `plain` is false for a quoted
   * key (`"<<"` is an ordinary key). A key naming a credential is withheld: its value is masked
   * (see secretSpans) and kept apart (SourceNode.withheld) with the error that refuses it, which
   * stands unless a field its kind declares sensitive claims the value (see claimSensitive).
   */
  acceptKey(key: string, keyAt: Offsets, plain: boolean, isTagMap: boolean): 'accept' | 'refuse' | { withhold: Diagnostic } {
    // A key seen before in this file passed these checks then (most keys repeat in every block).
    if (this.ordinaryKeys.has(key)) return 'accept';
    const keyRange = () => this.lines.range(keyAt);
    if (containsApiKey(key, this.apiKey)) {
      this.error('secret-in-stack', `this key contains the API key (the value of ${API_KEY_ENV}); a stack never holds secrets`, keyRange(), {
        detail: 'The key is not shown. Remove it from the stack.',
      });
      this.secretSpans.push([keyAt[0], keyAt[1]]);
      return 'refuse';
    }
    if (!isTagMap && isSecretFieldName(key)) {
      this.error('secret-in-stack', `"${key}" looks like a credential; a stack never holds secrets`, keyRange(), {
        detail: `Remove it and set the API key in the environment variable ${API_KEY_ENV} instead.`,
      });
      return { withhold: this.diagnostics[this.diagnostics.length - 1]! };
    }
    if (key === '<<' && plain) {
      this.error('unsupported-yaml', 'merge keys (<<) are not supported', keyRange(), {
        detail: 'Write the fields out, or put fields every block shares under defaults:.',
      });
      return 'refuse';
    }
    if (key === '__proto__') {
      // Every layer that builds objects from the stack (zod's records among them) drops this
      // key, so a tag named so would vanish, and the authoritative policy remove it live.
      this.error('invalid-key', 'the key "__proto__" is not supported', keyRange(), {
        detail: 'It names an object prototype in JavaScript and would be dropped silently; rename it.',
      });
      return 'refuse';
    }
    if (LONE_SURROGATE.test(key)) {
      this.error('invalid-key', 'this key holds an unpaired UTF-16 surrogate (a "\\ud800"-style escape), which is not valid Unicode', keyRange());
      return 'refuse';
    }
    if (!isSecretFieldName(key) && key !== '<<') this.ordinaryKeys.add(key);
    return 'accept';
  }

  /** The node of a scalar's resolved value: strings interpolated and checked for secrets; a secret's span is masked. */
  scalar(value: unknown, at: Offsets): FileNode {
    const converted = this.convertScalar(value, at);
    if (converted.secret) this.secretSpans.push([at[0], at[1]]);
    return converted;
  }

  private convertScalar(value: unknown, at: Offsets): FileNode {
    if (typeof value !== 'string') return new FileNode(value, this.lines, at);
    // The common case: nothing to expand, no key, no surrogate (a UTF-16 unit at or above U+D800 is rare in a stack).
    if (!value.includes('${') && !containsApiKey(value, this.apiKey) && !looksLikeApiKey(value) && !/[\ud800-\udfff]/.test(value) && !this.holdsOwnerKey(value))
      return new FileNode(value, this.lines, at);
    const range = () => this.lines.range(at);
    const result = interpolate(value, this.env);
    if ((result.ok && result.references.includes(API_KEY_ENV)) || (!result.ok && result.reason === 'unset' && result.name === API_KEY_ENV)) {
      this.error('secret-in-stack', `\${env:${API_KEY_ENV}} would put the API key into the stack; a stack never holds secrets`, range(), {
        detail: `edgeform reads ${API_KEY_ENV} itself; no field of a stack needs the key.`,
      });
      return this.failedAt(at, '', true);
    }
    const ownerKey = result.ok
      ? result.references.find((name) => OWNER_KEYS.includes(name))
      : result.reason === 'unset' && OWNER_KEYS.includes(result.name)
        ? result.name
        : undefined;
    if (ownerKey !== undefined) {
      this.error('secret-in-stack', `\${env:${ownerKey}} would put the owner key into the stack; a stack never holds secrets`, range(), {
        detail: `edgeform reads ${ownerKey} itself to mark what it creates; no field of a stack needs the key.`,
      });
      return this.failedAt(at, '', true);
    }
    if (result.ok && this.holdsOwnerKey(result.value)) {
      this.error('secret-in-stack', `this value contains the owner key (the value of ${OWNER_KEY_ENV}); a stack never holds secrets`, range(), {
        detail: 'The value is not shown. Remove it from the stack.',
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
          detail: 'edgeform knows ${env:NAME} and references ${TYPE.NAME.FIELD} (e.g. ${cloud_floating_ip.edge.floating_ip_address}); write $${ for a literal "${".',
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
    if (result.references.length > 0 || value !== result.value || result.template) node.interpolated = true;
    if (result.references.length > 0) node.envReferences = result.references;
    if (isWholeReference(value)) node.envReference = result.references[0]!;
    if (result.template) node.template = result.template;
    return node;
  }

  /** Whether a text holds an owner key set in the environment (see containsApiKey). */
  private holdsOwnerKey(text: string): boolean {
    return this.ownerKeys.some((key) => containsApiKey(text, key));
  }

  /** A node that failed: an error was reported at it, later checks stay quiet about it. */
  protected failedAt(at: Offsets, value: unknown = null, secret = false): FileNode {
    const failed = new FileNode(value, this.lines, at);
    failed.failed = true;
    if (secret) failed.secret = true;
    return failed;
  }

  protected error(code: string, summary: string, range: SourceRange, extra: { detail?: string } = {}): void {
    this.diagnostics.push({ severity: 'error', code, summary, ...extra, range });
  }
}
