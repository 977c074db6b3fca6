import type { Diagnostic } from './diagnostics.js';
import { lineTable, type SourceNode } from './source-node.js';
import { createStackBudget, type StackBudget } from './stack-limits.js';
import type { Slicing } from './yaml-events.js';
import { readYaml } from './yaml-reader.js';

export type { SourceNode } from './source-node.js';

/** A parsed stack file: its text (for code frames), the root node, and what went wrong reading it. */
export interface SourceFile {
  filename: string;
  /** The file's text with secret values masked by `*` (same length, so positions hold): safe to print. */
  text: string;
  /** Undefined when the file is empty, has YAML syntax errors or crossed a limit. */
  root?: SourceNode;
  diagnostics: Diagnostic[];
  /** True when the YAML itself was broken or a limit stopped reading it (there is then no root). */
  syntaxErrors: boolean;
}

/**
 * Reads one stack file into a SourceNode tree with js-yaml (readYaml, yaml-reader.ts): positions
 * 1-based line:column; `${env:NAME}` expanded in string scalars; duplicate keys, secrets (and
 * any value that contains the API key of `env`), unset variables and unresolvable aliases
 * reported as diagnostics at their exact place; bounded by `budget` (shared by the files of a
 * stack, see stack-limits.ts). The one reader of stacks: loadStack and the read-back of
 * `import` (write-stack.ts) both read through it.
 *
 * A raw control character is an error at the first one; the file is still read (with each such
 * character standing in for itself), so the rest of its problems are reported too.
 */
export function readSourceFile(
  filename: string,
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  budget: StackBudget = createStackBudget(),
  slicing?: Slicing,
): SourceFile {
  const control = NON_PRINTABLE.exec(text);
  const substitution = control ? substituteControls(text) : undefined;
  const read = readYaml(filename, substitution?.text ?? text, env, budget, slicing, substitution?.restore);
  const diagnostics = read.diagnostics;
  if (control) {
    const code = control[0].charCodeAt(0);
    const shown = code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
    const at = lineTable(text).linePos(control.index);
    diagnostics.push({
      severity: 'error',
      code: 'invalid-character',
      summary: `the file holds the control character ${shown} here; YAML allows only printable characters`,
      detail:
        'Control characters (such as ESC, which starts terminal escape sequences) have no place in a stack; write them as escapes in a double-quoted string if you really mean them. Only the first one is reported.',
      range: { filename, start: { line: at.line, column: at.col }, end: { line: at.line, column: at.col + 1 } },
    });
  }
  return { filename, text: maskSpans(text, read.secretSpans), ...(read.root ? { root: read.root } : {}), diagnostics, syntaxErrors: read.stopped };
}

/** Characters the YAML spec does not allow in a stream (C0 but tab and line breaks, DEL, C1 but NEL, U+FFFE, U+FFFF). */
const NON_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;
const NON_PRINTABLE_ALL = new RegExp(NON_PRINTABLE.source, 'g');
/** The private-use characters that stand for control characters while a text holding them is read. */
const STAND_INS = /[\ue000-\ue1ff]/g;

/**
 * The text with each control character replaced by a private-use character of the same length
 * (U+E000 + its code, U+E1FE and U+E1FF for U+FFFE and U+FFFF), which js-yaml reads as text, and
 * the function that maps them back in what was read. A text that already holds such characters
 * is not changed (js-yaml then refuses the control character as a syntax error).
 */
function substituteControls(text: string): { text: string; restore: (value: string) => string } | undefined {
  if (/[\ue000-\ue1ff]/.test(text)) return undefined;
  const standIn = (c: string) => String.fromCharCode(0xe000 + (c.charCodeAt(0) & 0x1ff));
  const original = (c: string) => {
    const code = c.charCodeAt(0) - 0xe000;
    return String.fromCharCode(code >= 0x1fe ? 0xfe00 + code : code);
  };
  return { text: text.replace(NON_PRINTABLE_ALL, standIn), restore: (value) => (/[\ue000-\ue1ff]/.test(value) ? value.replace(STAND_INS, original) : value) };
}

/** The text with every span's characters (but line breaks) replaced by `*`; one pass, whatever the number of spans. */
/** The text with each span's characters (but line breaks) replaced by `*`: same length, so positions hold. */
export function maskSpans(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
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
