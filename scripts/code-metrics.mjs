#!/usr/bin/env node
// The code's shape, measured: what docs/architecture.md ("Code that reads one way") promises a
// maintainer, printed each CI run (.ci/run) and failing when a figure goes back past its goal.
//
//   node scripts/code-metrics.mjs            print every figure, exit 1 when one misses its goal
//   node scripts/code-metrics.mjs --ratchet  exit 1 only when a figure goes back past where the code
//                                            stands now (GOALS' `now`): what CI runs (.ci/run) while
//                                            the figures are on their way to their goals
//   node scripts/code-metrics.mjs --json     the same figures as one JSON document
//
// Figures (src/ and cmd/, generated modules left out, see GENERATED):
// - functions over 100 lines (function declarations, methods, arrows and function expressions,
//   from their first line to their last): goal 0; a module-building closure reads better as
//   plain functions over a state record;
// - imports from src/config/ into src/plan/: goal 0 (config never imports plan: what both need
//   lives below both);
// - non-null assertions (`x!`): goal at most NON_NULL_GOAL, half of the 297 counted before;
// - `as unknown as` and `as never` casts without a comment on their line or the line above
//   that says why: goal 0;
// - each kind folder's lines per file (printed, no goal: docs/architecture.md quotes them).
//
// It reads the files with the TypeScript parser (a devDependency), so it runs after `npm ci`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Modules written by a generator (scripts/generate-*.mjs): their shape is the generator's. */
export const GENERATED = new Set(['src/kinds/cdn-options-schema.ts', 'src/emulator/services/cdn/options-schema.ts']);

/**
 * The one table of the figures' limits. `goal`: issue 32's goal; a figure past it fails a plain
 * run. `now`: where the code stands (measured when it last came down); a figure past it fails a
 * --ratchet run (CI), so no change makes the code's shape worse while the goals are not all met.
 * Lower `now` whenever a change lowers its figure; at `goal` the two runs agree.
 */
export const GOALS = {
  longFunctions: { goal: 0, now: 0 },
  configImportsPlan: { goal: 0, now: 0 },
  nonNull: { goal: 148, now: 148 },
  unexplainedCasts: { goal: 0, now: 0 },
};

const LONG_FUNCTION_LINES = 100;

function sourceFiles() {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'cmd'], { cwd: root, encoding: 'utf8' });
  return listed
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !GENERATED.has(f))
    .sort();
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return '(anonymous)';
}

/** Whether a cast has a comment saying why, on its line or the line above. */
function explained(lines, line) {
  return [lines[line], lines[line - 1]].some((l) => l !== undefined && /\/\/|\/\*|\*\//.test(l));
}

export function measure(files = sourceFiles()) {
  const longFunctions = [];
  const configImportsPlan = [];
  const unexplainedCasts = [];
  let nonNull = 0;
  const kindSizes = new Map();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = text.split('\n');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const first = lineOf(node.getStart(source));
        const length = lineOf(node.end) - first + 1;
        if (length > LONG_FUNCTION_LINES) longFunctions.push({ at: `${file}:${first + 1}`, name: nameOf(node), lines: length });
      }
      if (ts.isNonNullExpression(node)) nonNull++;
      if (ts.isAsExpression(node)) {
        const never = node.type.kind === ts.SyntaxKind.NeverKeyword;
        const unknownAs = ts.isAsExpression(node.expression) && node.expression.type.kind === ts.SyntaxKind.UnknownKeyword;
        const line = lineOf(node.getStart(source));
        if ((never || unknownAs) && !explained(lines, line)) unexplainedCasts.push({ at: `${file}:${line + 1}`, cast: never ? 'as never' : 'as unknown as' });
      }
      if (file.startsWith('src/config/') && (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const target = join(dirname(file), node.moduleSpecifier.text);
        if (target.startsWith('src/plan/')) configImportsPlan.push({ at: `${file}:${lineOf(node.getStart(source)) + 1}`, imports: relative('src', target) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    const kind = /^src\/kinds\/([a-z0-9-]+)\/([^/]+)$/.exec(file);
    if (kind) {
      const sizes = kindSizes.get(kind[1]) ?? {};
      sizes[kind[2]] = text.endsWith('\n') ? lines.length - 1 : lines.length;
      kindSizes.set(kind[1], sizes);
    }
  }
  return {
    files: files.length,
    longFunctions,
    configImportsPlan,
    nonNull,
    unexplainedCasts,
    kindSizes: Object.fromEntries([...kindSizes].map(([kind, sizes]) => [kind, { ...sizes, total: Object.values(sizes).reduce((a, b) => a + b, 0) }])),
  };
}

/**
 * Each figure beside its limit (`goal`, or with `ratchet` where the code stands now, see GOALS),
 * and whether it misses it.
 */
export function judge(m, { ratchet = false, limits = GOALS } = {}) {
  const limit = (figure) => (ratchet ? limits[figure].now : limits[figure].goal);
  return [
    { figure: 'functions over 100 lines', value: m.longFunctions.length, goal: limit('longFunctions'), detail: m.longFunctions.map((f) => `${f.at} ${f.name} (${f.lines} lines)`) },
    {
      figure: 'imports from src/config/ into src/plan/',
      value: m.configImportsPlan.length,
      goal: limit('configImportsPlan'),
      detail: m.configImportsPlan.map((i) => `${i.at} ${i.imports}`),
    },
    { figure: 'non-null assertions (x!)', value: m.nonNull, goal: limit('nonNull'), detail: [] },
    {
      figure: '`as unknown as` / `as never` without a comment saying why',
      value: m.unexplainedCasts.length,
      goal: limit('unexplainedCasts'),
      detail: m.unexplainedCasts.map((c) => `${c.at} ${c.cast}`),
    },
  ].map((row) => ({ ...row, missed: row.value > row.goal }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = measure();
  const ratchet = process.argv.includes('--ratchet');
  const rows = judge(m, { ratchet });
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ ...m, goals: rows.map(({ detail: _, ...r }) => r) }, null, 2)}\n`);
  } else {
    console.log(`code metrics over ${m.files} modules of src/ and cmd/ (generated modules left out)`);
    for (const row of rows) {
      console.log(`${row.missed ? 'MISSED' : 'ok    '} ${row.figure}: ${row.value} (${ratchet ? 'now' : 'goal'}: at most ${row.goal})`);
      for (const line of row.detail) console.log(`         ${line}`);
    }
    console.log('\nkind folders, lines per file:');
    for (const [kind, sizes] of Object.entries(m.kindSizes)) {
      const { total, ...files } = sizes;
      console.log(
        `  ${kind.padEnd(36)} ${String(total).padStart(5)}  ${Object.entries(files)
          .map(([f, n]) => `${f} ${n}`)
          .join(', ')}`,
      );
    }
  }
  process.exitCode = rows.some((r) => r.missed) ? 1 : 0;
}
