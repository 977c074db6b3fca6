/** What the import tests share: a scratch directory, the fmt check of what import wrote, the blocks of a written stack. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { runCliInProcess } from './cli-in-process.js';

export const tempDir = () => mkdtempSync(join(tmpdir(), 'edgeform-import-'));

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
