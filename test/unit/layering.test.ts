import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The architecture of docs/architecture.md, enforced: which folder of src/ may import which.
 * `type` lists folders that may only be imported with `import type` (no runtime dependency).
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const SHARED = ['errors.ts', 'version.ts', 'env.ts'];
const RULES: Record<string, { runtime: string[]; type?: string[] }> = {
  api: { runtime: [] },
  kinds: { runtime: ['api', 'plan', 'config'] },
  config: { runtime: ['plan', 'kinds'] },
  plan: { runtime: ['config', 'kinds'] },
  apply: { runtime: ['plan', 'kinds'] },
  render: { runtime: ['config', 'plan', 'apply'] },
  emulator: { runtime: [] },
  cli: { runtime: ['api', 'config', 'kinds', 'plan', 'apply', 'render', 'emulator'] },
};

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

describe('layering', () => {
  it('keeps every folder of src/ to the imports the architecture allows', () => {
    const offenders: string[] = [];
    for (const file of files(SRC)) {
      const from = relative(SRC, file).split('/')[0]!;
      if (!(from in RULES)) continue;
      const rule = RULES[from]!;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
        const spec = m[3]!;
        if (!spec.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
        if (target.startsWith('..')) {
          offenders.push(`${relative(SRC, file)} imports ${spec} (outside src/)`);
          continue;
        }
        const to = target.split('/')[0]!;
        if (to === from || SHARED.includes(target)) continue;
        const typeOnly = m[2] !== undefined;
        if (rule.runtime.includes(to) || (typeOnly && rule.type?.includes(to))) continue;
        offenders.push(`${relative(SRC, file)} imports ${spec}${typeOnly ? ' (type)' : ''}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
