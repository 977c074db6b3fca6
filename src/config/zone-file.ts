import { ZoneFileSyntaxError } from '../errors.js';
import type { Diagnostic, SourcePos, SourceRange } from './diagnostics.js';

/**
 * BIND zone files (RFC 1035 §5 master files), read into record sets and written back.
 *
 * Hand-written: the npm parsers (dns-zonefile, zone-file, @fungible-systems/zone-file, dnsz) are
 * line-by-line regular expressions that skip what they do not understand and report no
 * positions, and edgeform's rule is that bad input is an error at `file:line:col`. This one is a
 * small lexer (tokens with their positions; comments, quoted strings with escapes, parentheses
 * joining lines) and a parser of entries (directives and records).
 *
 * Read: `$ORIGIN`, `$TTL` (seconds or units: `1h30m`, `1d`, `1w`), `@`, relative and absolute
 * owners, a blank owner (the previous one), optional class `IN`, an optional TTL before or after
 * it. Refused, each at its position: `$INCLUDE`, `$GENERATE` and other directives, classes other
 * than IN, unterminated quotes and parentheses, a record without type or data, a TTL outside
 * 0..2147483647, an owner outside the origin (or with an empty label, a label over 63
 * characters, over 253 in all), a record whose TTL differs from its set's.
 */

/** The largest TTL (RFC 2181 §8: 31 bits). */
export const MAX_ZONE_TTL = 2147483647;

/** One record of a set: its data tokens after the type (quoted strings unquoted, escapes read), and where it is. */
export interface ZoneRecord {
  rdata: string[];
  /** The `$ORIGIN` in effect for the record, lower case without the trailing dot: what relative names in its data are relative to. */
  origin: string;
  at: SourceRange;
}

/** The records of one owner name and type. */
export interface ZoneRecordSet {
  /** Fully qualified, lower case, without the trailing dot. */
  name: string;
  /** Upper case. */
  type: string;
  ttl: number;
  records: ZoneRecord[];
  /** Where its first record is. */
  at: SourceRange;
}

/** What a zone file holds: its record sets in the order they first appear, and its problems (errors when it cannot be used). */
export interface ZoneFileResult {
  recordSets: ZoneRecordSet[];
  diagnostics: Diagnostic[];
}

/** What formatZoneFile writes: record sets as parseZoneFile gives them (positions not needed). */
export interface ZoneRecordSetInput {
  name: string;
  type: string;
  ttl: number;
  records: ReadonlyArray<{ rdata: readonly string[] }>;
}

interface Token {
  value: string;
  /** Written without quotes or escapes: only such a token is `@` (the origin) or a `$DIRECTIVE`. */
  plain: boolean;
  start: SourcePos;
  end: SourcePos;
}

interface Entry {
  /** The line started with a blank: the owner is the previous one. */
  blankOwner: boolean;
  tokens: Token[];
  start: SourcePos;
}

const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * Splits the text into entries (one per line, or several lines joined by parentheses), each a
 * list of tokens with positions (1-based lines, columns in code points). Throws the first
 * lexical error (an unterminated quote or parenthesis, a stray `)`), which ends the reading.
 */
function lex(text: string, onEntry: (entry: Entry) => void): void {
  const chars = Array.from(text);
  let i = 0;
  let line = 1;
  let column = 1;
  const pos = (): SourcePos => ({ line, column });
  const advance = (): string => {
    const c = chars[i++] as string;
    if (c === '\n') {
      line++;
      column = 1;
    } else column++;
    return c;
  };
  /** Reads `\X` (X itself) or `\DDD` (the character of that decimal code) after the backslash. */
  const escape = (): string => {
    const at = pos();
    advance();
    if (i >= chars.length) throw new ZoneFileSyntaxError('zone-file-syntax', 'a backslash ends the file', at);
    if (isDigit(chars[i]) && isDigit(chars[i + 1]) && isDigit(chars[i + 2])) {
      const code = Number(`${advance()}${advance()}${advance()}`);
      if (code > 255) throw new ZoneFileSyntaxError('zone-file-syntax', `escape \\${code} is not a byte (000 to 255)`, at);
      return String.fromCharCode(code);
    }
    return advance();
  };

  let entry: Entry | undefined;
  let paren: SourcePos | undefined;
  let atLineStart = true;
  const finish = (): void => {
    if (entry && entry.tokens.length > 0) onEntry(entry);
    entry = undefined;
  };
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === '\n') {
      advance();
      if (paren === undefined) finish();
      atLineStart = true;
      continue;
    }
    if (isBlank(c)) {
      if (atLineStart && paren === undefined && entry === undefined) entry = { blankOwner: true, tokens: [], start: pos() };
      advance();
      atLineStart = false;
      continue;
    }
    atLineStart = false;
    if (c === ';') {
      while (i < chars.length && chars[i] !== '\n') advance();
      continue;
    }
    entry ??= { blankOwner: false, tokens: [], start: pos() };
    if (c === '(') {
      if (paren !== undefined)
        throw new ZoneFileSyntaxError('zone-file-syntax', 'a "(" inside parentheses', pos(), `the parenthesis opened at ${paren.line}:${paren.column} is still open`);
      paren = pos();
      advance();
      continue;
    }
    if (c === ')') {
      if (paren === undefined) throw new ZoneFileSyntaxError('zone-file-syntax', 'a ")" without "("', pos());
      paren = undefined;
      advance();
      continue;
    }
    const start = pos();
    let value = '';
    if (c === '"') {
      advance();
      for (;;) {
        const d = chars[i];
        if (d === undefined || d === '\n')
          throw new ZoneFileSyntaxError('zone-file-syntax', 'unterminated quoted string', start, 'a quoted string ends with " on the same line; write a line break as \\010');
        if (d === '"') {
          advance();
          break;
        }
        value += d === '\\' ? escape() : advance();
      }
      entry.tokens.push({ value, plain: false, start, end: pos() });
      continue;
    }
    let plain = true;
    while (i < chars.length) {
      const d = chars[i] as string;
      if (d === '\n' || isBlank(d) || d === ';' || d === '(' || d === ')') break;
      if (d === '\\') plain = false;
      value += d === '\\' ? escape() : advance();
    }
    entry.tokens.push({ value, plain, start, end: pos() });
  }
  if (paren !== undefined) throw new ZoneFileSyntaxError('zone-file-syntax', 'unterminated parenthesis: no ")" before the end of the file', paren);
  finish();
}

const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A TTL (`3600`, `1h30m`, `1W`) in seconds; undefined when the text is not one. */
export function readTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(\d+[smhdw])+$/i.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(n) * (TTL_UNITS[unit as string] as number);
  return total;
}

const CLASS = /^(IN|CH|CS|HS|CLASS\d+)$/i;
const TYPE = /^([A-Z][A-Z0-9-]*|TYPE\d+)$/i;

/** A domain name as kept: lower case, without the trailing dot. */
function canonical(name: string): string {
  return (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
}

function within(name: string, origin: string): boolean {
  return origin === '' || name === origin || name.endsWith(`.${origin}`);
}

/** A name token made absolute against the current origin (`@` is the origin). */
function absoluteName(token: Token, origin: string): string {
  if (token.value === '@' && token.plain) return origin;
  if (token.value.endsWith('.')) return canonical(token.value);
  const relative = token.value.toLowerCase();
  return origin === '' ? relative : `${relative}.${origin}`;
}

/**
 * Reads a zone file for the zone `origin` (the initial `$ORIGIN`; owner names must be inside
 * it). `file` names the file in the diagnostics' ranges. Never throws for bad input: every
 * problem is a diagnostic (a lexical one ends the reading; a bad entry is skipped and the next
 * one read).
 */
export function parseZoneFile(text: string, options: { file: string; origin: string }): ZoneFileResult {
  const reader = new ZoneFileReader(options.file, canonical(options.origin));
  try {
    lex(text, (entry) => reader.read(entry));
  } catch (caught) {
    if (!(caught instanceof ZoneFileSyntaxError)) throw caught;
    reader.error(caught.code, caught.summary, caught.at, undefined, caught.detail);
  }
  return { recordSets: [...reader.sets.values()], diagnostics: reader.diagnostics };
}

/** The reading of one zone file, an entry at a time: the record sets so far, the directives in effect, the problems found. */
class ZoneFileReader {
  readonly diagnostics: Diagnostic[] = [];
  readonly sets = new Map<string, ZoneRecordSet>();
  /** Where each set's TTL was first given (for the error of a record whose TTL differs). */
  private readonly ttlAt = new Map<string, SourcePos>();
  private origin: string;
  private defaultTtl: number | undefined;
  private lastTtl: number | undefined;
  private previousOwner: string | undefined;

  constructor(
    private readonly file: string,
    private readonly zone: string,
  ) {
    this.origin = zone;
  }

  /** Reads one entry: a directive (`$ORIGIN`, `$TTL`, ...) or a record. */
  read(entry: Entry): void {
    const head = entry.tokens[0] as Token;
    if (!entry.blankOwner && head.plain && head.value.startsWith('$')) this.directive(head, entry.tokens.slice(1));
    else this.record(entry);
  }

  range(start: SourcePos, end: SourcePos = start): SourceRange {
    return { filename: this.file, start, end };
  }

  error(code: string, summary: string, start: SourcePos, end?: SourcePos, detail?: string): void {
    this.diagnostics.push({ severity: 'error', code, summary, ...(detail === undefined ? {} : { detail }), range: this.range(start, end ?? start) });
  }

  private ttlValue(token: Token, what: string): number | undefined {
    const ttl = readTtl(token.value);
    if (ttl === undefined) {
      this.error('zone-file-ttl', `${what} ${JSON.stringify(token.value)} is not a TTL (seconds, or units such as 1h30m, 1d, 1w)`, token.start, token.end);
      return undefined;
    }
    if (ttl > MAX_ZONE_TTL) {
      this.error('zone-file-ttl', `${what} ${token.value} is out of range: a TTL is 0 to ${MAX_ZONE_TTL} seconds`, token.start, token.end);
      return undefined;
    }
    return ttl;
  }

  private directive(head: Token, args: readonly Token[]): void {
    const name = head.value.toUpperCase();
    if (name === '$INCLUDE') {
      this.error(
        'zone-file-unsupported',
        '$INCLUDE is not supported: a zone file must hold all its records',
        head.start,
        head.end,
        'Copy the included file\u2019s records into this file.',
      );
      return;
    }
    if (name === '$GENERATE') {
      this.error('zone-file-unsupported', '$GENERATE is not supported: write the generated records out', head.start, head.end);
      return;
    }
    if (name !== '$ORIGIN' && name !== '$TTL') {
      this.error('zone-file-syntax', `unknown directive ${head.value} (a zone file may use $ORIGIN and $TTL)`, head.start, head.end);
      return;
    }
    const [value, extra] = args;
    if (!value) return this.error('zone-file-syntax', `${name} needs a value`, head.start, head.end);
    if (extra) return this.error('zone-file-syntax', `${name} takes one value; found ${JSON.stringify(extra.value)} after it`, extra.start, extra.end);
    if (name === '$TTL') {
      const ttl = this.ttlValue(value, '$TTL');
      if (ttl !== undefined) this.defaultTtl = ttl;
      return;
    }
    const next = absoluteName(value, this.origin);
    if (!within(next, this.zone)) return this.error('zone-file-name', `$ORIGIN ${value.value} is not inside the zone ${this.zone}`, value.start, value.end);
    this.origin = next;
  }

  /** The owner of a record entry (the previous one for a blank owner); undefined, with its error, when it is not usable. */
  private owner(entry: Entry): string | undefined {
    if (entry.blankOwner) {
      if (this.previousOwner === undefined) return void this.error('zone-file-syntax', 'a record with a blank owner before any owner name', entry.start);
      return this.previousOwner;
    }
    const token = entry.tokens[0] as Token;
    const owner = absoluteName(token, this.origin);
    const { zone } = this;
    if (!within(owner, zone)) return void this.error('zone-file-name', `owner ${token.value} (${owner}) is not inside the zone ${zone}`, token.start, token.end);
    if (owner.split('.').some((label) => label === '')) return void this.error('zone-file-name', `owner ${JSON.stringify(token.value)} has an empty label`, token.start, token.end);
    const long = owner.split('.').find((label) => label.length > 63);
    if (long !== undefined) return void this.error('zone-file-name', `owner ${owner} has a label longer than 63 characters (${long.length})`, token.start, token.end);
    if (owner.length > 253) return void this.error('zone-file-name', `owner ${owner.slice(0, 40)}... is longer than 253 characters (${owner.length})`, token.start, token.end);
    return owner;
  }

  /**
   * The optional TTL and class after the owner (either order), read from `tokens[k]`: where the
   * type stands next, and the TTL given; undefined, with its error, when one is not usable.
   */
  private ttlAndClass(tokens: readonly Token[], k: number): { k: number; ttl?: number; ttlToken?: Token } | undefined {
    let ttl: number | undefined;
    let ttlToken: Token | undefined;
    let sawClass = false;
    for (let n = 0; n < 2 && k < tokens.length; n++) {
      const token = tokens[k] as Token;
      if (!token.plain) break;
      if (!sawClass && CLASS.test(token.value)) {
        if (token.value.toUpperCase() !== 'IN')
          return void this.error('zone-file-unsupported', `class ${token.value} is not supported: the platform serves class IN only`, token.start, token.end);
        sawClass = true;
        k++;
      } else if (ttlToken === undefined && /^\d/.test(token.value)) {
        ttlToken = token;
        k++;
        ttl = this.ttlValue(token, 'TTL');
        if (ttl === undefined) return undefined;
      } else break;
    }
    return { k, ...(ttl === undefined ? {} : { ttl }), ...(ttlToken === undefined ? {} : { ttlToken }) };
  }

  private record(entry: Entry): void {
    const tokens = entry.tokens;
    const owner = this.owner(entry);
    if (owner === undefined) return;
    this.previousOwner = owner;
    const before = this.ttlAndClass(tokens, entry.blankOwner ? 0 : 1);
    if (before === undefined) return;
    const { ttlToken } = before;
    let { k, ttl } = before;
    const typeToken = tokens[k++];
    if (!typeToken) {
      const last = tokens[tokens.length - 1];
      return this.error('zone-file-syntax', `the record of ${owner} has no type`, last?.end ?? entry.start, undefined, 'A record is: [owner] [TTL] [IN] TYPE DATA...');
    }
    if (!typeToken.plain || !TYPE.test(typeToken.value))
      return this.error(
        'zone-file-syntax',
        `expected a record type, found ${JSON.stringify(typeToken.value)}`,
        typeToken.start,
        typeToken.end,
        'A record is: [owner] [TTL] [IN] TYPE DATA...',
      );
    const type = typeToken.value.toUpperCase();
    const data = tokens.slice(k);
    if (data.length === 0) return this.error('zone-file-syntax', `the ${type} record of ${owner} has no data`, typeToken.end);
    if (ttl === undefined) ttl = this.defaultTtl ?? this.lastTtl;
    if (ttl === undefined) return this.error('zone-file-ttl', `the ${type} record of ${owner} has no TTL, and no $TTL comes before it`, typeToken.start, typeToken.end);
    if (ttlToken) this.lastTtl = ttl;
    const first = tokens[0] as Token;
    const last = tokens[tokens.length - 1] as Token;
    const at = this.range(entry.blankOwner ? entry.start : first.start, last.end);
    this.addRecord({ owner, type, ttl, ttlToken, at, rdata: data.map((t) => t.value) });
  }

  /** Adds a record to its set (a new set at its first record); an error when its TTL differs from its set's. */
  private addRecord(r: { owner: string; type: string; ttl: number; ttlToken: Token | undefined; at: SourceRange; rdata: string[] }): void {
    const { owner, type, ttl, ttlToken, at, rdata } = r;
    const key = `${owner} ${type}`;
    const set = this.sets.get(key);
    const ttlPos = ttlToken?.start ?? at.start;
    if (!set) {
      this.sets.set(key, { name: owner, type, ttl, records: [{ rdata, origin: this.origin, at }], at });
      this.ttlAt.set(key, ttlPos);
      return;
    }
    if (set.ttl !== ttl) {
      const firstAt = this.ttlAt.get(key) as SourcePos;
      return this.error(
        'zone-file-ttl',
        `the ${type} records of ${owner} have different TTLs: ${ttl} here, ${set.ttl} at ${firstAt.line}:${firstAt.column}`,
        ttlPos,
        ttlToken?.end,
        'A record set has one TTL; give every record of it the same.',
      );
    }
    set.records.push({ rdata, origin: this.origin, at });
  }
}

// ---- writing ----

/** Characters that end or start something in an unquoted token. */
const SPECIAL = /[\s;()"\\]/u;

/** A character escaped as \DDD: controls and DEL (a line break inside quotes would end the string). */
function escapeControl(c: string): string {
  const code = c.codePointAt(0) as number;
  return code < 0x20 || code === 0x7f ? `\\${String(code).padStart(3, '0')}` : c;
}

/** A data token that reads back as exactly `value`: bare when it can be, else quoted with `"` and `\` escaped. */
function dataToken(value: string): string {
  if (value !== '' && !SPECIAL.test(value) && !/[\x00-\x1f\x7f]/.test(value) && !value.startsWith('$')) return value;
  return `"${Array.from(value, (c) => (c === '"' || c === '\\' ? `\\${c}` : escapeControl(c))).join('')}"`;
}

/** An owner: `@` for the origin, else relative to it, each special character escaped with `\`. */
function ownerToken(name: string, origin: string): string {
  if (name === origin) return '@';
  const relative = origin !== '' && name.endsWith(`.${origin}`) ? name.slice(0, -(origin.length + 1)) : `${name}.`;
  const escaped = Array.from(relative, (c) => (SPECIAL.test(c) ? `\\${c}` : escapeControl(c))).join('');
  return escaped === '@' || escaped.startsWith('$') ? `\\${escaped}` : escaped;
}

/**
 * Writes record sets as a zone file for `origin`: `$ORIGIN`, then one line per record (owner
 * relative to the origin, explicit TTL, class IN, type, data tokens quoted where needed), in
 * the order given. parseZoneFile reads it back as the same record sets.
 */
export function formatZoneFile(origin: string, recordSets: readonly ZoneRecordSetInput[]): string {
  const zone = canonical(origin);
  const lines = [`$ORIGIN ${zone}.`];
  for (const set of recordSets) {
    const owner = ownerToken(set.name, zone);
    for (const record of set.records) lines.push([owner, String(set.ttl), 'IN', set.type.toUpperCase(), ...record.rdata.map(dataToken)].join(' '));
  }
  return `${lines.join('\n')}\n`;
}
