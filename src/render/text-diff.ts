import { lazily } from '../lazily.js';

/** Loaded when a plan first shows a multi-line change. */
const diffLibrary = lazily<typeof import('diff')>('diff');

/** True when a change between two values is best shown as a unified diff of lines. */
export function isMultiline(before: unknown, after: unknown): boolean {
  return (typeof before === 'string' && before.includes('\n')) || (typeof after === 'string' && after.includes('\n'));
}

/** The hunks of a unified diff between two multi-line strings (no file headers). */
export function unifiedDiffLines(before: string, after: string): string[] {
  const patch = diffLibrary().structuredPatch('before', 'after', before, after, '', '', { context: 3 });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}

/**
 * A unified diff of a file's text before and after (`--- FILE`, `+++ FILE`, then the hunks; no
 * trailing newline), as `fmt --diff` prints it: `patch -p0` applies it. Empty when they are equal.
 */
export function unifiedFileDiff(file: string, before: string, after: string): string {
  if (before === after) return '';
  return [`--- ${file}`, `+++ ${file}`, ...unifiedDiffLines(before, after)].join('\n');
}

/**
 * The elements of two lists as a diff, in order: each element `same` (kept in place), `removed`
 * or `added`, elements compared by their JSON. For a list change best shown element by element.
 */
export function listDiff(before: readonly unknown[], after: readonly unknown[]): Array<{ op: 'same' | 'removed' | 'added'; value: unknown }> {
  const parts = diffLibrary().diffArrays(
    before.map((v) => JSON.stringify(v)),
    after.map((v) => JSON.stringify(v)),
  );
  const out: Array<{ op: 'same' | 'removed' | 'added'; value: unknown }> = [];
  for (const part of parts) {
    const op = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of part.value) out.push({ op, value: JSON.parse(text) as unknown });
  }
  return out;
}
