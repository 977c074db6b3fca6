import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Writes files (relative name → text) into a fresh temporary directory and returns its path. */
export function writeStackFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeform-stack-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
