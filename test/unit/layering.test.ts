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
  config: { runtime: ['plan'] },
  plan: { runtime: ['config'], type: ['providers'] },
  providers: { runtime: ['api', 'plan', 'config'] },
  apply: { runtime: ['plan', 'providers'] },
  render: { runtime: ['config', 'plan', 'apply'] },
  emulator: { runtime: [] },
  cli: { runtime: ['api', 'config', 'plan', 'providers', 'apply', 'render', 'emulator'] },
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

  it('leaves formats and colour to the views: only src/render/colors.ts uses kleur, and no command looks at --format', () => {
    const kleurUsers: string[] = [];
    const formatSwitches: string[] = [];
    for (const file of files(SRC)) {
      const at = relative(SRC, file);
      const text = readFileSync(file, 'utf8');
      if (/from\s+'kleur'/.test(text) && at !== join('render', 'colors.ts')) kleurUsers.push(at);
      if (at.startsWith(`cli${'/'}`) && /\bformat\s*[!=]==|switch\s*\([^)]*format/.test(text)) formatSwitches.push(at);
    }
    expect(kleurUsers).toEqual([]);
    expect(formatSwitches).toEqual([]);
  });

  it('keeps the emulator services apart from the code that composes them', () => {
    // A service (src/emulator/services/<name>/) codes against the shared machinery (tasks,
    // clock, reply, ...) and may read another service; it never imports the modules that iterate
    // the registry, nor the registry. The shared machinery never imports a service. Every
    // service folder is in the registry.
    const EMULATOR = join(SRC, 'emulator');
    const COMPOSITION = ['index.ts', 'server.ts', 'store.ts', 'fixtures.ts', 'control.ts', 'services/index.ts'];
    const offenders: string[] = [];
    for (const file of files(EMULATOR)) {
      const from = relative(EMULATOR, file);
      const isService = from.startsWith('services/') && from !== 'services/index.ts';
      const isShared = !from.startsWith('services/') && !COMPOSITION.includes(from);
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?:type\s+)?[^;]*?from\s+'(\.[^']+)'/gms)) {
        const target = relative(EMULATOR, resolve(dirname(file), m[1]!)).replace(/\.js$/, '.ts');
        if (isService && COMPOSITION.includes(target)) offenders.push(`emulator/${from} imports ${m[1]} (a service must not depend on the composition)`);
        if (isShared && target.startsWith('services/')) offenders.push(`emulator/${from} imports ${m[1]} (shared machinery must not depend on a service)`);
      }
    }
    const registry = readFileSync(join(EMULATOR, 'services/index.ts'), 'utf8');
    for (const name of readdirSync(join(EMULATOR, 'services'))) {
      if (statSync(join(EMULATOR, 'services', name)).isDirectory() && !registry.includes(`from './${name}/index.js'`)) offenders.push(`emulator/services/${name}/ is not in the registry`);
    }
    expect(offenders).toEqual([]);
  });
});
