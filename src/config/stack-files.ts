import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import { readSourceFile, type SourceFile } from './source-tree.js';

/** Environment variables as `${env:NAME}` sees them. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads a stack: one file, or every `*.yaml` / `*.yml` file directly inside a directory in
 * sorted order. File names stay as the user gave the path (a relative path stays relative).
 * A missing path, an unreadable file or a directory without stack files is a diagnostic.
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
        .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
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
  for (const filename of filenames) {
    let text: string;
    try {
      text = await readFile(filename, 'utf8');
    } catch (error) {
      diagnostics.push({ severity: 'error', code: 'stack-unreadable', summary: `cannot read ${filename}: ${(error as Error).message}` });
      continue;
    }
    const file = readSourceFile(filename, text, env);
    files.push(file);
    diagnostics.push(...file.diagnostics);
  }
  return { files, diagnostics };
}
