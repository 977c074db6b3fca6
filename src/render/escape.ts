/**
 * Characters a terminal would act on instead of showing: C0 controls (but tab and newline),
 * DEL, C1 controls (0x9b is CSI, 0x9d is OSC), line and paragraph separators, bidirectional
 * overrides and isolates ("Trojan Source"), zero-width no-break space, and unpaired surrogates.
 * ESC itself is escaped, so no ANSI or OSC sequence from a stack reaches the terminal.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE_OR_NEWLINE = new RegExp(`\\n|${UNSAFE.source}`, 'g');

/** `\x1b` for a code unit below 0x100, `\u202e` above. */
function visibleEscape(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from a stack file made safe to print: every character a terminal would interpret
 * (see UNSAFE) becomes a visible escape such as `\x1b` or `\u202e`; tab stays. Newlines stay
 * only with `keepNewlines` (multi-line details); in a one-line summary they become `\x0a`.
 */
export function escapeControlChars(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines ? UNSAFE : UNSAFE_OR_NEWLINE, visibleEscape);
}

/** How many characters escapeControlChars(text) returns, without building it. */
export function escapedLength(text: string): number {
  let extra = 0;
  for (const match of text.matchAll(UNSAFE_OR_NEWLINE)) extra += visibleEscape(match[0]).length - match[0].length;
  return text.length + extra;
}

/** Shortens text longer than `max` characters to its first `max` and a `…` (never splitting a surrogate pair). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
