import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHECK_KINDS, RESOURCE_KINDS } from '../../src/kinds/registry.js';

/**
 * The architecture of docs/architecture.md, enforced on the import graph of src/. The rules are
 * that document's table ("Folders and who may import whom"), read here, so the table and the
 * test cannot drift apart:
 *
 * - which layer may import which (`may import`), and which only with `import type` (`as types
 *   only`, erased at build time, so no runtime dependency);
 * - a `provider-free` layer never loads, through any chain of runtime imports, a module of a
 *   layer that is not (api/, a provider);
 * - a kind never imports another kind, and only the registry (schemas) and the provider table
 *   (providers) import a kind's folder;
 * - render/ does no I/O: no file, network, process or terminal module, no `process` or `console`.
 *
 * The checker is a pure function of the files' text, tested on synthetic trees that break each
 * rule, one for every pair of layers the table keeps apart (so it cannot pass by finding
 * nothing), and then run on src/, where it must find files in every layer and every kind folder.
 */

/** A layer's row of the rule table. */
interface LayerRule {
  name: string;
  /** Its modules under src/ (posix): exact paths (`*` one folder name) and folders (ending in `/`). */
  modules: string[];
  runtime: string[];
  type: string[];
  providerFree: boolean;
}

const ARCHITECTURE = fileURLToPath(new URL('../../docs/architecture.md', import.meta.url));

/** The rule table of docs/architecture.md: the rows of the table whose header starts `| layer | modules |`. */
function readRuleTable(markdown: string): LayerRule[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| layer | modules |'));
  if (header < 0) throw new Error('docs/architecture.md has no rule table (| layer | modules | ...)');
  const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  const rules: LayerRule[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length !== 6) throw new Error(`docs/architecture.md's rule table: a row of ${cells.length} cells, not 6: ${line}`);
    const [name, modules, , runtime, type, providerFree] = cells;
    const inSrc = names(modules ?? '').filter((m) => m.startsWith('src/'));
    // A layer outside src/ (cmd/) is not this test's: it reads src/.
    if (inSrc.length === 0) continue;
    rules.push({
      name: names(name ?? '')[0]!,
      modules: inSrc.map((m) => m.slice('src/'.length)),
      runtime: names(runtime ?? ''),
      type: names(type ?? ''),
      providerFree: providerFree === 'yes',
    });
  }
  return rules;
}

const RULES = readRuleTable(readFileSync(ARCHITECTURE, 'utf8'));
const RULE = new Map(RULES.map((r) => [r.name, r]));

/** Modules render/ must not import: they read or write files, the network, processes or the terminal. */
const IO_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|http2|tls|dgram|dns|child_process|cluster|readline|readline\/promises|tty|process|worker_threads)$|^undici$/;

function matches(pattern: string, path: string): boolean {
  if (pattern.endsWith('/')) return path.startsWith(pattern);
  const a = pattern.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((segment, i) => segment === '*' || segment === b[i]);
}

/** The layer of a module, from its path under src/ (posix separators): an exact entry of the table first, then the longest folder. */
function layerOf(path: string): string | undefined {
  const entries = RULES.flatMap((r) => r.modules.map((m) => ({ layer: r.name, m })));
  const exact = entries.find((e) => !e.m.endsWith('/') && matches(e.m, path));
  if (exact) return exact.layer;
  return entries.filter((e) => e.m.endsWith('/') && matches(e.m, path)).sort((x, y) => y.m.length - x.m.length)[0]?.layer;
}

/** The kind folder a module belongs to (`kinds/<kind>/...`), if any. */
function kindFolderOf(path: string): string | undefined {
  const [top, second, third] = path.split('/');
  return top === 'kinds' && third !== undefined ? second : undefined;
}

interface Import {
  /** The module specifier as written. */
  spec: string;
  /** Erased at build time: `import type`, only type-only specifiers, or a `typeof import()` type. */
  typeOnly: boolean;
}

/** Every import of a TypeScript module: declarations, re-exports, dynamic `import()` and import types. */
function importsOf(path: string, text: string): Import[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const onlyTypeSpecifiers = clause !== undefined && clause.name === undefined && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly);
      found.push({ spec: node.moduleSpecifier.text, typeOnly: clause?.isTypeOnly === true || onlyTypeSpecifiers });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      found.push({ spec: arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>', typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether a module's text uses the process or the console (I/O a view must leave to its caller). */
function usesProcessOrConsole(path: string, text: string): boolean {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && ['process', 'console'].includes(node.expression.text)) found = true;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What a run of the checker saw, and what it found wrong. */
interface LayeringReport {
  offenders: string[];
  /** Modules checked, per layer. */
  files: Partial<Record<string, number>>;
  /** Relative imports checked, per importing layer. */
  imports: Partial<Record<string, number>>;
  /** Kind folders seen under kinds/. */
  kindFolders: Set<string>;
}

/** Checks every rule on a tree of modules: path under src/ (posix) → text. Pure. */
function checkLayering(tree: ReadonlyMap<string, string>): LayeringReport {
  const report: LayeringReport = { offenders: [], files: {}, imports: {}, kindFolders: new Set() };
  const runtimeEdges = new Map<string, string[]>();
  for (const [path, text] of tree) {
    const from = layerOf(path);
    if (from === undefined) continue;
    report.files[from] = (report.files[from] ?? 0) + 1;
    const kind = kindFolderOf(path);
    if (kind !== undefined) report.kindFolders.add(kind);
    const edges: string[] = [];
    runtimeEdges.set(path, edges);
    for (const { spec, typeOnly } of importsOf(path, text)) {
      const shown = `${path} imports ${spec}${typeOnly ? ' (type)' : ''}`;
      if (from === 'render' && IO_MODULES.test(spec)) report.offenders.push(`${shown}: render does no I/O`);
      if (spec === '<computed>') report.offenders.push(`${shown}: an import must name its module`);
      if (!spec.startsWith('.')) continue;
      report.imports[from] = (report.imports[from] ?? 0) + 1;
      const target = posix.normalize(posix.join(posix.dirname(path), spec)).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) {
        report.offenders.push(`${shown}: outside src/`);
        continue;
      }
      if (!typeOnly) edges.push(target);
      const to = layerOf(target);
      const targetKind = kindFolderOf(target);
      if (targetKind !== undefined && kind !== undefined && targetKind !== kind) report.offenders.push(`${shown}: a kind never imports another kind`);
      if (targetKind !== undefined && kind === undefined && !['kinds/registry.ts', 'kinds/providers.ts', 'kinds/economics-table.ts'].includes(path)) {
        report.offenders.push(`${shown}: only the registry and the provider table import a kind's folder`);
      }
      if (to === from) continue;
      const rule = RULE.get(from)!;
      if (to !== undefined && (rule.runtime.includes(to) || (typeOnly && rule.type.includes(to)))) continue;
      report.offenders.push(`${shown}: ${from}/ may not import ${to ?? 'it'}${typeOnly ? '' : ' at runtime'}`);
    }
    if (from === 'render' && usesProcessOrConsole(path, text)) report.offenders.push(`${path} uses process or console: render does no I/O`);
  }
  // What each provider-free module loads, all the way down.
  for (const [path] of runtimeEdges) {
    const from = layerOf(path)!;
    if (!RULE.get(from)?.providerFree) continue;
    const cameFrom = new Map<string, string | null>([[path, null]]);
    const queue = [path];
    while (queue.length > 0) {
      const at = queue.shift()!;
      const layer = layerOf(at);
      if (layer !== undefined && !RULE.get(layer)!.providerFree) {
        const chain: string[] = [];
        for (let step: string | null | undefined = at; step; step = cameFrom.get(step)) chain.unshift(step);
        report.offenders.push(`${path} loads ${at} (${chain.join(' -> ')}): ${from}/ never loads api/ or a provider`);
        break;
      }
      for (const next of runtimeEdges.get(at) ?? []) {
        if (!cameFrom.has(next)) {
          cameFrom.set(next, at);
          queue.push(next);
        }
      }
    }
  }
  return report;
}

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

function readSrc(): Map<string, string> {
  return new Map([...files(SRC)].map((file) => [relative(SRC, file).split('\\').join('/'), readFileSync(file, 'utf8')]));
}

describe('layering', () => {
  it('keeps every layer of src/ to the imports the architecture allows', () => {
    const report = checkLayering(readSrc());
    expect(report.offenders).toEqual([]);
    // It checked something in every layer, so it cannot pass by finding nothing.
    for (const { name } of RULES) expect(report.files[name], `modules found in ${name}`).toBeGreaterThan(0);
    for (const layer of ['schemas', 'kinds', 'config', 'plan', 'apply', 'render', 'cli']) expect(report.imports[layer], `relative imports in ${layer}`).toBeGreaterThan(0);
    // Every registered kind has its folder, and every folder is a registered kind.
    const folders = Object.values({ ...RESOURCE_KINDS, ...CHECK_KINDS }).map((k) => k.type.replaceAll('_', '-'));
    expect([...report.kindFolders].sort()).toEqual(folders.sort());
  });

  describe('the checker', () => {
    const ok = new Map([
      ['kinds/registry.ts', "import { aKind } from './a/schema.js';"],
      ['kinds/providers.ts', "import { a } from './a/provider.js';"],
      ['kinds/a/schema.ts', "import { z } from 'zod';\nimport { id } from '../fields.js';"],
      ['kinds/fields.ts', "import { z } from 'zod';"],
      ['kinds/a/provider.ts', "import { apiPath } from '../../api/path.js';\nimport type { Stack } from '../../config/types.js';\nimport { readOrGone } from '../shared.js';"],
      ['kinds/shared.ts', "import { NotFoundError } from '../api/errors.js';"],
      ['api/path.ts', "import { EdgeformError } from '../errors.js';"],
      ['api/errors.ts', ''],
      ['config/types.ts', "import { CHECK_KINDS } from '../kinds/registry.js';"],
      [
        'plan/planner.ts',
        "import type { ResourceType } from '../kinds/registry.js';\nimport { type Stack } from '../config/types.js';\nimport { buildGraph } from '../model/graph.js';",
      ],
      ['model/graph.ts', "import { EdgeformError } from '../errors.js';"],
      ['render/plan-text.ts', "import kleur from 'kleur';\nimport type { Plan } from '../plan/types.js';"],
    ]);
    const offenders = (changes: Record<string, string>) => checkLayering(new Map([...ok, ...Object.entries(changes)])).offenders;

    it('finds nothing wrong in a tree that keeps every rule', () => {
      expect(offenders({})).toEqual([]);
    });

    it('reports a layer importing what its rule does not allow', () => {
      expect(offenders({ 'api/path.ts': "import { Plan } from '../plan/types.js';" })).toEqual(['api/path.ts imports ../plan/types.js: api/ may not import plan at runtime']);
    });

    it('reports a runtime import of what a layer may only import as a type', () => {
      expect(offenders({ 'kinds/shared.ts': "import { CHECK_KINDS } from '../config/types.js';" })).toEqual([
        'kinds/shared.ts imports ../config/types.js: kinds/ may not import config at runtime',
      ]);
    });

    it('reports config/ importing plan/: what both need lives in model/', () => {
      expect(offenders({ 'config/types.ts': "import type { Plan } from '../plan/types.js';" })).toEqual([
        'config/types.ts imports ../plan/types.js (type): config/ may not import plan',
      ]);
    });

    // One positive control per rule of the table: for every layer, a fabricated import of each
    // layer its row does not allow (at runtime, and as a type unless `as types only` allows it),
    // and for a provider-free layer, loading a provider through an allowed module.
    const sample = (layer: string): string => {
      const module = RULE.get(layer)!.modules[0]!;
      return module.endsWith('/') ? `${module}sample.ts` : module.replaceAll('*', 'a');
    };
    const importFrom = (from: string, to: string) =>
      posix
        .relative(posix.dirname(from), to)
        .replace(/^(?!\.)/, './')
        .replace(/\.ts$/, '.js');
    for (const rule of RULES) {
      for (const other of RULES) {
        if (other.name === rule.name || rule.runtime.includes(other.name)) continue;
        const [from, to] = [sample(rule.name), sample(other.name)];
        it(`refuses ${rule.name}/ importing ${other.name}/${rule.type.includes(other.name) ? ' at runtime' : ''} (${from} -> ${to})`, () => {
          const spec = importFrom(from, to);
          expect(offenders({ [from]: `import { x } from '${spec}';` })).toContain(`${from} imports ${spec}: ${rule.name}/ may not import ${other.name} at runtime`);
          const typed = offenders({ [from]: `import type { X } from '${spec}';` });
          if (rule.type.includes(other.name)) expect(typed.filter((o) => o.includes('may not import'))).toEqual([]);
          else expect(typed).toContain(`${from} imports ${spec} (type): ${rule.name}/ may not import ${other.name}`);
        });
      }
      if (rule.providerFree) {
        it(`refuses ${rule.name}/ loading a provider through a module it may import`, () => {
          const from = sample(rule.name);
          // The registry (provider-free) loading a provider stands for any such chain.
          const found = offenders({ [from]: `import { x } from '${importFrom(from, 'kinds/registry.ts')}';`, 'kinds/registry.ts': "import { a } from './a/provider.js';" });
          const chain = from === 'kinds/registry.ts' ? 'kinds/registry.ts -> kinds/a/provider.ts' : `${from} -> kinds/registry.ts -> kinds/a/provider.ts`;
          expect(found).toContain(`${from} loads kinds/a/provider.ts (${chain}): ${rule.name}/ never loads api/ or a provider`);
        });
      }
    }

    it('reads every layer of src/ from the table, with its rules', () => {
      expect(RULES.map((r) => r.name).sort()).toEqual(['api', 'apply', 'cli', 'config', 'emulator', 'kinds', 'model', 'plan', 'render', 'schemas', 'shared']);
      expect(RULE.get('config')!.runtime).not.toContain('plan');
      expect(RULE.get('apply')!.runtime).not.toContain('api');
      expect(layerOf('kinds/dns-zone/schema.ts')).toBe('schemas');
      expect(layerOf('kinds/dns-zone/provider.ts')).toBe('kinds');
      expect(layerOf('errors.ts')).toBe('shared');
    });

    it('reports config/ or plan/ loading a provider through the registry', () => {
      const found = offenders({ 'kinds/registry.ts': "import { aKind } from './a/schema.js';\nimport { a } from './a/provider.js';" });
      expect(found).toContain('kinds/registry.ts imports ./a/provider.js: schemas/ may not import kinds at runtime');
      expect(found).toContain('config/types.ts loads kinds/a/provider.ts (config/types.ts -> kinds/registry.ts -> kinds/a/provider.ts): config/ never loads api/ or a provider');
    });

    it('reports a kind importing another kind, even as a type', () => {
      expect(offenders({ 'kinds/b/provider.ts': "import type { Thing } from '../a/provider.js';" })).toEqual([
        'kinds/b/provider.ts imports ../a/provider.js (type): a kind never imports another kind',
      ]);
    });

    it("reports machinery importing a kind's folder instead of going through the registry", () => {
      expect(offenders({ 'kinds/shared.ts': "import { a } from './a/provider.js';" })).toEqual([
        "kinds/shared.ts imports ./a/provider.js: only the registry and the provider table import a kind's folder",
      ]);
    });

    it('reports render/ doing I/O', () => {
      expect(offenders({ 'render/plan-text.ts': "import { writeFileSync } from 'node:fs';" })).toEqual(['render/plan-text.ts imports node:fs: render does no I/O']);
      expect(offenders({ 'render/plan-text.ts': "import { stdout } from 'process';" })).toEqual(['render/plan-text.ts imports process: render does no I/O']);
      expect(offenders({ 'render/plan-text.ts': 'export const show = (s: string) => process.stdout.write(s);' })).toEqual([
        'render/plan-text.ts uses process or console: render does no I/O',
      ]);
    });

    it('sees dynamic imports, re-exports and import types', () => {
      expect(offenders({ 'config/types.ts': "export const load = () => import('../kinds/a/provider.js');" })).toEqual([
        "config/types.ts imports ../kinds/a/provider.js: only the registry and the provider table import a kind's folder",
        'config/types.ts imports ../kinds/a/provider.js: config/ may not import kinds at runtime',
        'config/types.ts loads kinds/a/provider.ts (config/types.ts -> kinds/a/provider.ts): config/ never loads api/ or a provider',
      ]);
      expect(offenders({ 'api/path.ts': "export { x } from '../plan/x.js';" })).toEqual(['api/path.ts imports ../plan/x.js: api/ may not import plan at runtime']);
      expect(offenders({ 'api/path.ts': "export type X = typeof import('../plan/x.js');" })).toEqual(['api/path.ts imports ../plan/x.js (type): api/ may not import plan']);
    });
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
      if (statSync(join(EMULATOR, 'services', name)).isDirectory() && !registry.includes(`from './${name}/index.js'`))
        offenders.push(`emulator/services/${name}/ is not in the registry`);
    }
    expect(offenders).toEqual([]);
  });
});
