/**
 * Keeping secrets (the API key) out of everything edgeform prints or writes.
 *
 * A platform may echo the key back in many shapes: whole, cut short, URL-encoded, JSON-escaped,
 * HTML-escaped (`&#36;`, `&#x24;`, `&dollar;` for `$`), base64 or base64url (of the key or of
 * the `APIKey <key>` header value), or wrapped over lines. Redaction therefore looks for every
 * run of at least {@link MIN_FRAGMENT_LENGTH} characters of the key or of one of those forms,
 * extends each run as far as it goes, and replaces it with {@link REDACTED}:
 *
 * - Needles: the key and its canonical forms (URL-encoded, JSON-escaped, HTML-escaped in
 *   decimal, hex and named references, base64 and base64url of the key and of `APIKey <key>`),
 *   plus the base64 of the key as it reads at each of the three byte alignments it can have
 *   inside a longer base64 text (so the key is found in the base64 of any text containing it).
 * - Two passes over the text: as written, and a decoded view (HTML character references,
 *   `%XX`, `\uXXXX`/`\xXX`/`\"`/`\\`/`\/`, and line breaks with the blanks around them
 *   removed), whose matches map back to the original characters. The decoded view catches the
 *   variants no list of forms can enumerate (`&#X24;`, `%2f` vs `%2F`, mixed styles, a key wrapped
 *   over two lines).
 * - Matching is a q-gram filter: only every (m − q + 1)-th position of the text is looked up (a
 *   4-character hash in a typed-array hash table of the needles' 4-grams); each hit is verified
 *   and extended character by character, once per run (a later sample inside a run already
 *   found is skipped). Any run of m ≥ 8 matching characters contains a sampled 4-gram, so
 *   nothing is missed, and the cost is linear in the text, however many keys it holds.
 *
 * False positives: a platform key is `<id>$<64 hex>`. Runs of 8 characters from the 64 hex
 * digits do not occur in ordinary output by chance (about 57 · 16⁻⁸ ≈ 1.3·10⁻⁸ per 8-character
 * window of hex text). The token id before the `$` is not secret (the platform lists it) and a
 * run made only of its digits could be any number in the output (a project id, a timestamp), so
 * a match lying entirely within that id is not redacted; `12345$ab` (id, `$`, two secret digits)
 * is, as it cannot occur by chance. Keys shorter than {@link MIN_SECRET_LENGTH} are not searched
 * for; keys shorter than {@link MIN_FRAGMENT_LENGTH} only as a whole.
 *
 * What stays: fewer than 8 consecutive characters of the key (at the edges of a match, between
 * escapes of an exotic key that itself contains escape-like text) and the 1–3 base64 characters
 * that mix the key's first or last bytes with the text around it.
 */
import { API_KEY_ENV, LOCK_URL_ENV, OWNER_KEY_ENV, OWNER_KEY_PREVIOUS_ENV } from '../env.js';

/** Secrets shorter than this are never searched for: no platform key is that short. */
export const MIN_SECRET_LENGTH = 6;

/** The shortest run of a secret's characters (or of an encoded form) that counts as a leak. */
export const MIN_FRAGMENT_LENGTH = 8;

/** The replacement shown wherever a secret would have been printed. */
export const REDACTED = '[REDACTED]';

/** Replaces every trace of a fixed set of secrets in a text (see the module comment). */
export type Redactor = (text: string) => string;

/** A string to look for; runs must reach past `publicPrefix` characters and be `minRun` long. */
interface Needle {
  text: string;
  minRun: number;
  publicPrefix: number;
}

const Q = 4;

/**
 * Builds a redactor for these secrets: the needles and their index are computed once, so the
 * returned function costs one linear scan per text (plus one of the decoded view).
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const needles = dedupeNeedles(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(needlesOf));
  if (needles.length === 0) return (text) => text;
  const minRun = Math.min(...needles.map((n) => n.minRun));
  const q = Math.min(Q, minRun);
  const step = minRun - q + 1;
  const index = gramIndex(needles, q);

  const scan = (text: string): number[] => {
    const spans: number[] = [];
    const n = text.length;
    // The runs verified so far, by needle and diagonal (text position − needle position), with
    // their ends: a later sample on the same diagonal inside a run would find the same maximal
    // run again. So an occurrence of the key costs one verification per needle and alignment
    // (a periodic key aligns in several ways), not one per sample. Runs the scan has passed are
    // dropped now and then, so the map stays small.
    const verified = new Map<number, number>();
    const K = needles.length;
    // The stretch of text covered by the last spans kept (they overlap).
    let coveredFrom = -1;
    let coveredTo = -1;
    for (let p = 0; p + q <= n; p += step) {
      const slot = index.find(gramHash(text, p, q));
      if (slot < 0) continue;
      for (let c = index.starts[slot]!, end = index.starts[slot + 1]!; c < end; c += 2) {
        const k = index.entries[c]!;
        const j = index.entries[c + 1]!;
        const run = (p - j) * K + k;
        if (p < (verified.get(run) ?? -1)) continue;
        const needle = needles[k]!;
        const t = needle.text;
        let r = 0;
        while (p + r < n && j + r < t.length && text.charCodeAt(p + r) === t.charCodeAt(j + r)) r++;
        if (r < q) continue; // a hash collision: runs left of p are found from their own samples
        let l = 0;
        while (p - l > 0 && j - l > 0 && text.charCodeAt(p - l - 1) === t.charCodeAt(j - l - 1)) l++;
        if (verified.size >= 1024) for (const [key, ends] of verified) if (ends <= p) verified.delete(key);
        verified.set(run, p + r);
        if (l + r < needle.minRun || j + r <= needle.publicPrefix) continue;
        // Needles sharing these characters (the key in several escapings, or at several
        // alignments) find spans already covered: only a span that adds to the covered stretch
        // is kept, so the list grows with the keys found, not with the needles. The stretch
        // joins overlapping spans only, not touching ones: in the decoded view, two touching
        // spans map back to two spans with the removed characters (a line break) between
        // them, where one span across them covers those too.
        const from = p - l;
        const to = p + r;
        if (from >= coveredFrom && to <= coveredTo) continue;
        spans.push(from, to);
        if (from < coveredTo && to > coveredFrom) {
          coveredFrom = Math.min(coveredFrom, from);
          coveredTo = Math.max(coveredTo, to);
        } else {
          coveredFrom = from;
          coveredTo = to;
        }
      }
    }
    return spans;
  };

  return (text) => {
    if (text.length < minRun) return text;
    const spans = scan(text);
    const view = decodedView(text);
    if (view !== null) {
      const found = scan(view.text);
      for (let i = 0; i < found.length; i += 2) spans.push(view.originalStart(found[i]!), view.originalEnd(found[i + 1]! - 1));
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  };
}

/**
 * The needles' q-grams in an open-addressing hash table of typed arrays, built in two passes
 * with no allocation per gram: `find(h)` is the slot of q-gram hash `h` (or −1), and
 * `entries[starts[slot] .. starts[slot + 1])` its occurrences as pairs (needle, position).
 */
interface GramIndex {
  find(h: number): number;
  starts: Int32Array;
  entries: Int32Array;
}

function gramIndex(needles: readonly Needle[], q: number): GramIndex {
  let grams = 0;
  for (const needle of needles) grams += Math.max(0, needle.text.length - q + 1);
  let bits = 4;
  while (1 << bits < grams * 2) bits++;
  const size = 1 << bits;
  const mask = size - 1;
  const shift = 32 - bits;
  const hashes = new Int32Array(size);
  const used = new Uint8Array(size);
  const counts = new Int32Array(size + 1);
  const slotOf = new Int32Array(grams);

  const probe = (h: number): number => {
    let slot = Math.imul(h, 0x9e3779b1) >>> shift;
    while (used[slot] === 1 && hashes[slot] !== (h | 0)) slot = (slot + 1) & mask;
    return slot;
  };
  let g = 0;
  for (const needle of needles) {
    for (let j = 0; j + q <= needle.text.length; j++) {
      const h = gramHash(needle.text, j, q);
      const slot = probe(h);
      used[slot] = 1;
      hashes[slot] = h | 0;
      counts[slot]!++;
      slotOf[g++] = slot;
    }
  }
  const starts = new Int32Array(size + 1);
  for (let s = 0; s < size; s++) starts[s + 1] = starts[s]! + 2 * counts[s]!;
  const fill = starts.slice(0, size);
  const entries = new Int32Array(2 * grams);
  g = 0;
  needles.forEach((needle, k) => {
    for (let j = 0; j + q <= needle.text.length; j++) {
      const slot = slotOf[g++]!;
      const at = fill[slot]!;
      entries[at] = k;
      entries[at + 1] = j;
      fill[slot] = at + 2;
    }
  });
  return {
    find: (h) => {
      const slot = probe(h);
      return used[slot] === 1 ? slot : -1;
    },
    starts,
    entries,
  };
}

const cache = new Map<string, Redactor>();

/**
 * Replaces every trace of each secret in `text` (the key, its fragments of 8 or more characters,
 * and its encoded forms; see the module comment) with [REDACTED]. Matching is literal, never a
 * RegExp built from the key. Redactors are cached per set of secrets.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const id = secrets.join('\u0000');
  let redactor = cache.get(id);
  if (redactor === undefined) {
    if (cache.size >= 8) cache.clear();
    redactor = createRedactor(secrets);
    cache.set(id, redactor);
  }
  return redactor(text);
}

/**
 * The secrets edgeform knows about in an environment: the API key (trimmed, as it is sent), the
 * owner keys (EDGEFORM_OWNER_KEY, and the previous one while rotating), and the password of the
 * lock database's URL (EDGEFORM_LOCK_URL, as written and URL-decoded), those set.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const keys = [API_KEY_ENV, OWNER_KEY_ENV, OWNER_KEY_PREVIOUS_ENV].flatMap((name) => {
    const value = env[name]?.trim();
    return value ? [value] : [];
  });
  return [...keys, ...urlPasswords(env[LOCK_URL_ENV])];
}

/** The password of a connection URL, as written and decoded; none when it has none. Read loosely: a URL no parser takes may still hold one. */
function urlPasswords(url: string | undefined): string[] {
  if (!url) return [];
  let password: string | undefined;
  try {
    password = new URL(url).password;
  } catch {
    password = /^[a-z][\w+.-]*:\/\/[^:/@]*:(.+)@[^@]*$/i.exec(url.trim())?.[1];
  }
  if (!password) return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // not URL-encoded: as written
  }
  return decoded === password ? [password] : [password, decoded];
}

/** The key, its canonical encoded forms, and its base64 at the three byte alignments. */
function needlesOf(secret: string): Needle[] {
  const idLength = /^\d+(?=\$)/.exec(secret)?.[0].length ?? 0;
  const minRun = Math.min(MIN_FRAGMENT_LENGTH, secret.length);
  // Encodings leave digits alone, so the id stays a prefix of the same length.
  const textual = [secret, urlEncoded(secret), JSON.stringify(secret).slice(1, -1), ...htmlEscapedForms(secret)];
  const needles: Needle[] = textual
    .filter((t) => t !== '')
    .map((t) => ({ text: t, minRun: t === secret ? minRun : Math.min(MIN_FRAGMENT_LENGTH, t.length), publicPrefix: idLength }));

  const bytes = Buffer.from(secret, 'utf8');
  const header = Buffer.from(`APIKey ${secret}`, 'utf8');
  const base64Chars = (prefixBytes: number) => Math.floor((prefixBytes * 4) / 3);
  const encoded: { b64: string; publicPrefix: number }[] = [
    { b64: bytes.toString('base64'), publicPrefix: base64Chars(idLength) },
    { b64: header.toString('base64'), publicPrefix: base64Chars(7 + idLength) },
  ];
  // Inside the base64 of a longer text the key may start at any byte offset; the characters
  // that encode whole 3-byte groups of the key are the same for every offset ≡ a (mod 3).
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole > 0) encoded.push({ b64: bytes.subarray(skip, skip + whole).toString('base64'), publicPrefix: base64Chars(Math.max(0, idLength - skip)) });
  }
  for (const { b64, publicPrefix } of encoded) {
    for (const text of [b64, b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')]) {
      if (text.length >= MIN_FRAGMENT_LENGTH) needles.push({ text, minRun: MIN_FRAGMENT_LENGTH, publicPrefix });
    }
  }
  return needles;
}

function dedupeNeedles(needles: Needle[]): Needle[] {
  const seen = new Map<string, Needle>();
  for (const n of needles) {
    const had = seen.get(n.text);
    if (had === undefined) seen.set(n.text, n);
    else seen.set(n.text, { text: n.text, minRun: Math.min(had.minRun, n.minRun), publicPrefix: Math.min(had.publicPrefix, n.publicPrefix) });
  }
  return [...seen.values()];
}

function urlEncoded(secret: string): string {
  try {
    return encodeURIComponent(secret);
  } catch {
    return ''; // a lone surrogate: no URL can carry it
  }
}

/** HTML5 names of the ASCII characters that have one (both directions use this table). */
const NAMED_REFERENCES: Record<string, string> = {
  excl: '!',
  quot: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  equals: '=',
  gt: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  bsol: '\\',
  rsqb: ']',
  Hat: '^',
  lowbar: '_',
  grave: '`',
  lcub: '{',
  verbar: '|',
  rcub: '}',
  nbsp: '\u00a0',
};
const NAME_OF = new Map(Object.entries(NAMED_REFERENCES).map(([name, char]) => [char, name]));

/**
 * The key as HTML escapers write it: `&<>"'` escaped (most template engines), those and `$`,
 * or every character but letters and digits (OWASP-style encoders); each in decimal, hex and
 * named style.
 */
function htmlEscapedForms(secret: string): string[] {
  const styles = [
    (c: string) => `&#${c.codePointAt(0)};`,
    (c: string) => `&#x${c.codePointAt(0)!.toString(16)};`,
    (c: string) => (NAME_OF.has(c) ? `&${NAME_OF.get(c)};` : `&#${c.codePointAt(0)};`),
  ];
  return styles.flatMap((style) => [/[&<>"']/g, /[&<>"'$]/g, /[^A-Za-z0-9]/gu].map((chars) => secret.replace(chars, style)));
}

/** A hash of `q` characters at `p` (low bytes packed; collisions are caught by verification). */
function gramHash(s: string, p: number, q: number): number {
  let h = 0;
  for (let i = 0; i < q; i++) h = ((h << 8) | (s.charCodeAt(p + i) & 0xff)) >>> 0;
  return h;
}

/** Sorts, merges (overlapping or touching) and replaces spans given as flat [start, end, ...]. */
function replaceSpans(text: string, flat: number[]): string {
  const spans: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) spans.push([flat[i]!, flat[i + 1]!]);
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    parts.push(text.slice(at, start), REDACTED);
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** A decoded copy of a text and the way back from its positions to the original's. */
interface DecodedView {
  text: string;
  /** Original index of the first character that became view character `i`. */
  originalStart(i: number): number;
  /** Original index just after the characters that became view character `i`. */
  originalEnd(i: number): number;
}

const TOKEN_START = /[&%\\\r\n]/;
const HTML_REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/y;
const PERCENT = /%([0-9a-fA-F]{2})/y;
const BACKSLASH = /\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(["\\/']))/y;
const BLANK = (c: number) => c === 0x20 || c === 0x09;

/**
 * The text with character references, percent-escapes and backslash escapes decoded and line
 * breaks (with the blanks around them) removed; null when there is nothing to decode. The
 * mapping is kept sparse: one entry per decoded token, so plain text costs nothing.
 */
function decodedView(text: string): DecodedView | null {
  if (!TOKEN_START.test(text)) return null;
  const parts: string[] = [];
  // Tokens as [viewIndex, originalStart, originalLength, viewLength]; between them view and
  // original advance together.
  const tokens: number[] = [];
  let view = 0;
  let plainFrom = 0;
  let i = 0;
  const n = text.length;
  const emit = (start: number, end: number, decoded: string) => {
    if (plainFrom < start) {
      parts.push(text.slice(plainFrom, start));
      view += start - plainFrom;
    }
    tokens.push(view, start, end - start, decoded.length);
    parts.push(decoded);
    view += decoded.length;
    plainFrom = end;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) {
      let start = i;
      while (start > plainFrom && BLANK(text.charCodeAt(start - 1))) start--;
      let end = i;
      while (end < n && (text.charCodeAt(end) === 0x0a || text.charCodeAt(end) === 0x0d || BLANK(text.charCodeAt(end)))) end++;
      emit(start, end, '');
      i = end;
      continue;
    }
    const decoded = c === 0x26 ? htmlReference(text, i) : c === 0x25 ? percentEscape(text, i) : c === 0x5c ? backslashEscape(text, i) : null;
    if (decoded !== null) {
      emit(i, i + decoded.length, decoded.value);
      i += decoded.length;
    } else {
      i++;
    }
  }
  if (tokens.length === 0) return null;
  parts.push(text.slice(plainFrom));
  const decodedText = parts.join('');

  // The last token at or before view index v (binary search over the token list).
  const tokenAt = (v: number): number => {
    let lo = 0;
    let hi = tokens.length / 4 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid * 4]! <= v) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  };
  const locate = (v: number): { start: number; end: number } => {
    // The last token starting at or before v either covers v or is followed by plain text up
    // to v (an empty token at v, a removed line break, is followed by v itself).
    const k = tokenAt(v);
    if (k < 0) return { start: v, end: v + 1 };
    const [tv, ts, tl, vl] = [tokens[k * 4]!, tokens[k * 4 + 1]!, tokens[k * 4 + 2]!, tokens[k * 4 + 3]!];
    if (v < tv + vl) return { start: ts, end: ts + tl }; // inside a decoded token: the whole token
    const o = ts + tl + (v - tv - vl);
    return { start: o, end: o + 1 };
  };
  return { text: decodedText, originalStart: (v) => locate(v).start, originalEnd: (v) => locate(v).end };
}

function htmlReference(text: string, at: number): { value: string; length: number } | null {
  HTML_REFERENCE.lastIndex = at;
  const m = HTML_REFERENCE.exec(text);
  if (m === null) return null;
  if (m[3] !== undefined) {
    const char = NAMED_REFERENCES[m[3]];
    return char !== undefined && m[4] === ';' ? { value: char, length: m[0].length } : null;
  }
  const code = m[1] !== undefined ? Number.parseInt(m[1], 10) : Number.parseInt(m[2]!, 16);
  return code <= 0x10ffff ? { value: String.fromCodePoint(code), length: m[0].length } : null;
}

function percentEscape(text: string, at: number): { value: string; length: number } | null {
  PERCENT.lastIndex = at;
  const m = PERCENT.exec(text);
  return m === null ? null : { value: String.fromCharCode(Number.parseInt(m[1]!, 16)), length: 3 };
}

function backslashEscape(text: string, at: number): { value: string; length: number } | null {
  BACKSLASH.lastIndex = at;
  const m = BACKSLASH.exec(text);
  if (m === null) return null;
  const value = m[1] !== undefined ? String.fromCharCode(Number.parseInt(m[1], 16)) : m[2] !== undefined ? String.fromCharCode(Number.parseInt(m[2], 16)) : m[3]!;
  return { value, length: m[0].length };
}
