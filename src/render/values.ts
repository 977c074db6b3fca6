/*
 * Platform values (tag keys and values, names, task and error messages) are untrusted text. A
 * terminal obeys control characters in them: ESC starts sequences that recolour, move the
 * cursor, set the window title or write the clipboard (OSC 52); C1 controls (U+0080–U+009F) do
 * the same on some terminals; bidi controls reorder what is shown (Trojan Source). So no view
 * writes them raw: each is shown as a visible escape in the JSON style (`\u001b`, `\n`).
 */

/** Characters never written raw: C0 controls, DEL, C1 controls, Unicode line/paragraph separators, bidi controls. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;
/** The same, but a line feed passes (for messages edgeform itself writes on several lines). */
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;
/** The same, but line feed and tab pass, and a colour (SGR) sequence is matched as a whole. */
const UNSAFE_OUTPUT = /(\u001b\[[0-9;]*m)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;

const SHORT_ESCAPES: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/** The visible escape of one unsafe character, as JSON writes it: `\n`, `\u001b`, `\u202e`. */
function escapeChar(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A value as the plan shows it: strings quoted, everything else as compact JSON, on one line,
 * with no raw control or bidi character (JSON escapes C0; DEL, C1 and bidi controls are escaped
 * the same way, so the result is still JSON and parses to the same value).
 */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  return JSON.stringify(value).replace(UNSAFE, escapeChar);
}

/**
 * Untrusted text shown bare (a tag key in a field path, a task id, one line of a multi-line
 * value): every control and bidi character escaped, line feeds included, so it stays one line.
 */
export function formatName(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * A message that may carry platform text (an error, a check result, a progress note): control
 * and bidi characters escaped, line feeds kept (edgeform's own messages use them; the API layer
 * already flattens the platform's messages to one line).
 */
export function formatMessage(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, escapeChar);
}

/**
 * Untrusted text as a Markdown code span, where nothing is interpreted: no HTML, link, mention
 * or emphasis. The fence is one backtick longer than the longest run inside, so the text cannot
 * close it; in a table cell `|` is escaped (GFM reads `\|` as a pipe even inside code).
 */
export function markdownCode(text: string, options: { inTable?: boolean } = {}): string {
  let body = formatName(text);
  // A table row is split at every pipe not preceded by an odd number of backslashes.
  if (options.inTable) body = body.replace(/(\\*)\|/g, (_m, slashes: string) => `${slashes}${slashes.length % 2 === 0 ? '\\' : ''}|`);
  if (body === '') return '` `';
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * The last line of defence at the output boundary, for text no view escaped (diagnostics,
 * error messages, help): every control and bidi character escaped except line feeds and tabs.
 * With `color`, colour sequences (`ESC [ … m`, what kleur writes) pass; platform values never
 * bring one, because the views escape them first. Without colour no ESC is legitimate at all.
 * JSON output stays valid and equal: raw characters only occur inside its strings, and `\uXXXX`
 * is the JSON escape of the same character.
 */
export function escapeTerminalOutput(text: string, options: { color: boolean }): string {
  return text.replace(UNSAFE_OUTPUT, (match, sgr: string | undefined) => {
    if (sgr === undefined) return escapeChar(match);
    return options.color ? sgr : `${escapeChar(must(sgr[0], 'sgr[0]'))}${sgr.slice(1)}`;
  });
}
import { must } from '../errors.js';
