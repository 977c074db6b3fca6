import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStackText } from './decode-text.js';
import { addDiagnostics, type Diagnostic } from './diagnostics.js';
import { readSourceFile, type SourceFile } from './source-tree.js';
import { createStackBudget, MAX_STACK_BYTES } from './stack-limits.js';

/** Whether a file name is a stack file's, as a directory stack takes them: `*.yaml` or `*.yml`. */
export function isStackFileName(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

/** Environment variables as `${env:NAME}` sees them. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads a stack: one file, or every `*.yaml` / `*.yml` file directly inside a directory in
 * sorted order. File names stay as the user gave the path (a relative path stays relative).
 * A missing path, an unreadable file or a directory without stack files is a diagnostic; so
 * is anything that is not a regular file (a FIFO or /dev/zero would never end), a stack over
 * MAX_STACK_BYTES (refused before it is read), and a file that is not UTF-8 text.
 */
export async function readStackFiles(path: string, env: Env): Promise<{ files: SourceFile[]; diagnostics: Diagnostic[] }> {
  const problem = (code: string, summary: string, detail?: string) => ({
    files: [],
    diagnostics: [{ severity: 'error' as const, code, summary, ...(detail ? { detail } : {}) }],
  });
  let filenames: string[];
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      const entries = await readdir(path, { withFileTypes: true });
      filenames = entries
        .filter((e) => e.isFile() && isStackFileName(e.name))
        .map((e) => e.name)
        .sort()
        .map((name) => join(path, name));
      if (filenames.length === 0) return problem('no-stack-files', `no *.yaml or *.yml files in directory ${path}`);
    } else {
      filenames = [path];
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return problem('stack-not-found', `no such file or directory: ${path}`, 'Give the path of a stack file or of a directory of *.yaml files.');
    }
    return problem('stack-unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  const files: SourceFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const budget = createStackBudget();
  const fileError = (filename: string, code: string, summary: string, detail: string, at = { line: 1, column: 1 }): void => {
    diagnostics.push({ severity: 'error', code, summary, detail, range: { filename, start: at, end: at } });
  };
  for (const filename of filenames) {
    let bytes: Buffer;
    try {
      const info = await stat(filename);
      if (!info.isFile()) {
        diagnostics.push({
          severity: 'error',
          code: 'stack-unreadable',
          summary: `cannot read ${filename}: not a regular file`,
          detail: 'A stack is a YAML file or a directory of them.',
        });
        continue;
      }
      if (info.size > budget.bytes) {
        fileError(filename, 'stack-too-large', tooLarge(info.size), 'Split the stack, or remove what it does not need; this limit keeps edgeform within bounded memory.');
        break;
      }
      bytes = await readFile(filename);
    } catch (error) {
      diagnostics.push({ severity: 'error', code: 'stack-unreadable', summary: `cannot read ${filename}: ${(error as Error).message}` });
      continue;
    }
    budget.bytes -= bytes.length;
    const decoded = decodeStackText(bytes);
    if (!decoded.ok) {
      fileError(filename, 'not-utf8-text', decoded.summary, decoded.detail, decoded.position);
      continue;
    }
    const file = readSourceFile(filename, decoded.text, env, budget);
    files.push(file);
    addDiagnostics(diagnostics, file.diagnostics);
    // Let a signal (Ctrl-C) be handled between files.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { files, diagnostics };
}

function tooLarge(size: number): string {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  return `the stack is too large: this file brings it over ${mib(MAX_STACK_BYTES)} (the file has ${mib(size)})`;
}
