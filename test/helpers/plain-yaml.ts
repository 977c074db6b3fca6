import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { readPlainYaml } from '../../src/config/plain-yaml.js';
import type { SourceNode } from '../../src/config/source-node.js';
import { readSourceFile, readWithYamlLibrary, type SourceFile } from '../../src/config/source-tree.js';
import { createStackBudget } from '../../src/config/stack-limits.js';
import type { Slicing } from '../../src/config/yaml-events.js';

/**
 * What the tests of the fast YAML reading share (test/unit/config/plain-yaml.test.ts and
 * plain-yaml-mutated.test.ts): the comparison of the fast reading (js-yaml's events,
 * plain-yaml.ts) with the yaml library's, and the generator of YAML documents.
 */

/**
 * How many times over the generated and mutated cases run: PLAIN_YAML_RUNS=10 runs them ten
 * times over (21,000 cases); at 30 and more the vitest worker's heap, which grows about 75 MB a
 * thousand cases under fast-check's fc.gen() (the readers themselves keep nothing), runs out.
 */
export const RUNS = Number(process.env.PLAIN_YAML_RUNS ?? 1);

/** The environment the stacks are read with; the API key contains a `$`. */
export const ENV = { EDGEFORM_API_KEY: 'test$key-123', REGION: '76', EMPTY: '' };

/** Everything of a read file that anything downstream can see. */
export function seen(file: SourceFile): unknown {
  const node = (n: SourceNode | undefined): unknown =>
    n && {
      value: n.value,
      range: n.range,
      keyRange: n.keyRange,
      flags: [n.envReference, n.interpolated, n.failed, n.secret],
      entries: n.entries && [...n.entries].map(([k, c]) => [k, node(c)]),
      items: n.items?.map(node),
    };
  return { root: node(file.root), diagnostics: file.diagnostics, text: file.text, syntaxErrors: file.syntaxErrors };
}

/** The path and both values of the first difference of two JSON-like values, or undefined. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: ${JSON.stringify(a)} (fast) vs ${JSON.stringify(b)} (yaml)`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/** Every entry of a top-level block mapping a slice of its own, or a few lines each, whatever the file's size (see yaml-events.ts). */
export const SLICINGS: Slicing[] = [
  { from: 0, bytes: 0 },
  { from: 0, bytes: 40 },
];

/**
 * Reads `text` both ways, the fast one also in slices; true when the fast reading took it. A
 * slicing the fast reading declines is not read through readSourceFile again: that reading is
 * readWithYamlLibrary itself (source-tree.ts), so comparing it would compare the yaml library's
 * reading with itself, and the mutated texts, which the fast reading mostly declines, would
 * pay the yaml library four times over instead of once.
 */
export function expectSameReading(text: string): boolean {
  // The readers' own errors (the yaml library makes one per problem, js-yaml one per refusal)
  // become diagnostics or a fallback and their stack traces are never seen: not capturing them
  // saves a tenth of this file's time over the mutated texts.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let fast: boolean;
  let expected: unknown;
  const readings: Array<{ slicing: Slicing | undefined; read: unknown }> = [];
  try {
    fast = readPlainYaml('stack.yaml', text, ENV, createStackBudget()) !== undefined;
    expected = seen(readWithYamlLibrary('stack.yaml', text, ENV));
    for (const slicing of [undefined, ...SLICINGS]) {
      const taken = slicing === undefined ? fast : readPlainYaml('stack.yaml', text, ENV, createStackBudget(), slicing) !== undefined;
      if (taken) readings.push({ slicing, read: seen(readSourceFile('stack.yaml', text, ENV, createStackBudget(), slicing)) });
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
  for (const { slicing, read } of readings) {
    // Compared without expect, whose diff of two large trees can take minutes: the first difference is enough.
    const difference = firstDifference(read, expected);
    const how = slicing ? ` in slices of ${slicing.bytes} characters` : '';
    if (difference) throw new Error(`the fast reading${how} differs from the yaml library's at ${difference}\n--- text ---\n${text}`);
  }
  return fast;
}

/** Every YAML file under `dir`, but node_modules and the OpenAPI documents. */
export function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'openapi' ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

// --- generated YAML -------------------------------------------------------------------------

const KEYS = ['type', 'name', 'tags', 'env', 'project_id', 'a', 'b', 'password', '<<', '__proto__', '1', '0x10', 'true', 'key with spaces', 'ключ'];
const PLAIN = [
  '1',
  '-7',
  '+3',
  '0o17',
  '0x1F',
  '1.5',
  '.5',
  '1e3',
  '-1.5E-2',
  '.inf',
  '-.Inf',
  '.nan',
  'true',
  'False',
  'TRUE',
  'null',
  'Null',
  '~',
  'yes',
  'x',
  'a b',
  'v1.31.3',
  '01',
  '1_000',
  '0b101',
  '${env:REGION}',
  '${env:EMPTY}',
  'x${env:REGION}y',
  '$${env:REGION}',
  '${env:MISSING}',
  '${env:EDGEFORM_API_KEY}',
  '${oops}',
  'a:b',
  'https://x.test/a?b=c&d',
  '12345678901234567890',
  'test$key-123',
];
const QUOTED = ['', 'x', 'a "b"', "it's", '\\n', '\\u00e9', '\\ud800', 'line\\nnext', '#not comment', '${env:REGION}', 'test$key-123'];

const comment = (g: fc.GeneratorValue) => (g(fc.boolean) ? '' : ` # ${g(() => fc.constantFrom('c', 'a: b', '- x', '#', ''))}`);
const blankOrComment = (g: fc.GeneratorValue, indent: number) =>
  g(() =>
    fc.constantFrom(
      '',
      '',
      '',
      '\n',
      `${' '.repeat(indent)}# note\n`,
      `${' '.repeat(indent + 2)}# deeper\n`,
      '# top\n',
      `\n${' '.repeat(indent)}# after blank\n`,
      `${' '.repeat(Math.max(indent - 2, 0))}# shallower\n\n`,
    ),
  );

function scalar(g: fc.GeneratorValue, indent: number, blockOk: boolean): string {
  switch (g(() => fc.integer({ min: 0, max: blockOk ? 5 : 3 }))) {
    case 0:
    case 1:
      return g(() => fc.constantFrom(...PLAIN));
    case 2:
      return `"${g(() => fc.constantFrom(...QUOTED))}"`;
    case 3:
      return `'${g(() => fc.constantFrom('', 'x', "it''s", 'a "b"', '${env:REGION}'))}'`;
    default: {
      const header = `${g(() => fc.constantFrom('|', '>'))}${g(() => fc.constantFrom('', '-', '+'))}`;
      const pad = ' '.repeat(indent + 2);
      const lines: string[] = g(() => fc.array(fc.constantFrom('text', 'more text', '', '  indented', 'x: y'), { minLength: 1, maxLength: 4 }));
      if (lines[0] === '' || lines[0]!.startsWith(' ')) lines[0] = 'first';
      const trailing = g(() => fc.constantFrom('', '\n', '\n\n', `${pad}\n`));
      return `${header}${comment(g)}\n${lines.map((l) => (l === '' ? '' : pad + l)).join('\n')}\n${trailing}`.replace(/\n$/, '');
    }
  }
}

function flow(g: fc.GeneratorValue, depth: number): string {
  if (depth > 2 || g(fc.boolean)) {
    const s = scalar(g, 0, false);
    return s === '' ? 'x' : s;
  }
  const items = g(() => fc.integer({ min: 0, max: 3 }));
  if (g(fc.boolean)) return `[${Array.from({ length: items }, () => flow(g, depth + 1)).join(', ')}]`;
  return `{${Array.from({ length: items }, () => `${g(() => fc.constantFrom(...KEYS.slice(0, 7)))}: ${flow(g, depth + 1)}`).join(', ')}}`;
}

/** A block value after "key:" or "-", with its leading separator (" x" or "\n  a: 1"). */
function blockValue(g: fc.GeneratorValue, indent: number, depth: number): string {
  const choice = g(() => fc.integer({ min: 0, max: depth > 3 ? 2 : 5 }));
  if (choice === 0) return g(fc.boolean) ? '' : g(() => fc.constantFrom(' ', '  '));
  if (choice === 1) return ` ${scalar(g, indent, true)}`;
  if (choice === 2) return ` ${flow(g, 0)}`;
  const inner = indent + 2;
  return `${comment(g)}\n${block(g, inner, depth + 1)}`.replace(/\n$/, '');
}

/** A block mapping or sequence at `indent`, every line ended by a newline. */
function block(g: fc.GeneratorValue, indent: number, depth: number): string {
  const pad = ' '.repeat(indent);
  const count = g(() => fc.integer({ min: 1, max: 4 }));
  const seq = depth > 0 && g(() => fc.boolean());
  let out = '';
  for (let i = 0; i < count; i++) {
    out += blankOrComment(g, indent);
    if (seq) {
      out += `${pad}-${blockValue(g, indent, depth)}${comment(g)}\n`;
    } else {
      const key = g(() => fc.constantFrom(...KEYS));
      const quoted = g(() => fc.integer({ min: 0, max: 4 }));
      const shown = quoted === 0 ? `"${key}"` : quoted === 1 ? `'${key}'` : key;
      out += `${pad}${shown}:${blockValue(g, indent, depth)}${comment(g)}\n`;
    }
  }
  return out + blankOrComment(g, indent);
}

/** A generated YAML document of the shapes above. */
export const document = fc.gen().map((g) => `${g(() => fc.constantFrom('', '# head\n', '---\n', '\n'))}${block(g, 0, 0)}`);
