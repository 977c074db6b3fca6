/** What the import tests share: a scratch directory, the fmt check of what import wrote, the blocks of a written stack. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { runCliInProcess } from './cli-in-process.js';

export const tempDir = () => mkdtempSync(join(tmpdir(), 'edgeform-import-'));

/** Runs `edgeform import ARGS --out FILE` in-process into a new stack file; the file and the text written. The run must exit 0. */
export async function importTo(args: string[], env: Record<string, string>): Promise<{ file: string; text: string }> {
  const file = join(tempDir(), 'stack.yaml');
  const imported = await runCliInProcess(['import', ...args, '--out', file], { env });
  expect(imported.code, imported.stderr).toBe(0);
  return { file, text: readFileSync(file, 'utf8') };
}

/** `edgeform plan FILE --detailed-exitcode` exits 0 with "No changes": the stack (what import wrote) plans clean. */
export async function expectPlansClean(file: string, env: Record<string, string>): Promise<void> {
  const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain('No changes');
}

/** `edgeform fmt --check` on a stack import wrote: what import writes is already canonical. */
export async function expectFormatted(file: string): Promise<void> {
  const fmt = await runCliInProcess(['fmt', '--check', file]);
  expect(fmt.stdout + fmt.stderr).toBe('');
  expect(fmt.code).toBe(0);
}

/** What a stack block holds, parsed. */
export type Block = Record<string, unknown> & { type: string };

export function blocks(text: string): Record<string, Block> {
  return (parse(text) as { resources: Record<string, Block> }).resources;
}
