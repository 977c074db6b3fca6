import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { exactEndReads, readPlainYaml } from '../../../src/config/plain-yaml.js';
import type { SourceNode } from '../../../src/config/source-node.js';
import { readSourceFile, readWithYamlLibrary, type SourceFile } from '../../../src/config/source-tree.js';
import { createStackBudget } from '../../../src/config/stack-limits.js';
import { DEFAULT_SLICING, slicesParsed, type Slicing } from '../../../src/config/yaml-events.js';

/**
 * The fast reading (js-yaml's events, plain-yaml.ts) must build exactly what the yaml
 * library's reading builds, or leave the file to it: values, ranges of every node and key,
 * flags, diagnostics and the masked text. Compared over the repository's stacks and over
 * generated and mutated YAML. PLAIN_YAML_RUNS=10 runs the generated cases ten times over (21,000
 * cases); at 30 and more the vitest worker's heap, which grows about 75 MB a thousand cases
 * under fast-check's fc.gen() (the readers themselves keep nothing), runs out.
 * Shrinking is off (endOnFailure): the generated texts shrink slowly; the counterexample is printed whole.
 */

const RUNS = Number(process.env.PLAIN_YAML_RUNS ?? 1);

const ENV = { EDGEFORM_API_KEY: 'test$key-123', REGION: '76', EMPTY: '' };

/** Everything of a read file that anything downstream can see. */
function seen(file: SourceFile): unknown {
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
function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
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
const SLICINGS: Slicing[] = [
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
function expectSameReading(text: string): boolean {
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

function yamlFiles(dir: string): string[] {
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

const document = fc.gen().map((g) => `${g(() => fc.constantFrom('', '# head\n', '---\n', '\n'))}${block(g, 0, 0)}`);

describe('plain-yaml: the fast reading builds what the yaml library builds', () => {
  it('over every stack and YAML file in the repository', () => {
    const files = yamlFiles('.').filter((f) => !f.includes('latin1'));
    expect(files.length).toBeGreaterThan(50);
    let fast = 0;
    for (const file of files) if (expectSameReading(readFileSync(file, 'utf8'))) fast += 1;
    // Valid stacks are plain YAML: most of these files take the fast reading.
    expect(fast).toBeGreaterThan(files.length / 2);
  });

  it('over generated YAML: styles, comments, blank lines, block scalars, empty values, secrets, interpolation', () => {
    let fast = 0;
    let runs = 0;
    fc.assert(
      fc.property(document, (text) => {
        runs += 1;
        if (expectSameReading(text)) fast += 1;
      }),
      { numRuns: 600 * RUNS, endOnFailure: true },
    );
    // The generator must exercise the fast reading, not only the fallback.
    expect(fast).toBeGreaterThan(runs / 3);
  });

  it('over mutated YAML: where js-yaml accepts what the yaml library refuses, the fast reading must not decide', () => {
    const edits = fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom('', ':', '-', ' ', '  ', '\n', '\t', '"', "'", '#', '[', ']', '{', '}', ',', '?', '|', '>', '&a', '*a', '!!str', '%', '---', '\r\n', '\r'),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(document, edits, (text, changes) => {
        let mutated = text;
        for (const [at, insert] of changes) {
          const i = at % (mutated.length + 1);
          const cut = insert === '' ? 1 : 0;
          mutated = mutated.slice(0, i) + insert + mutated.slice(i + cut);
        }
        expectSameReading(mutated);
      }),
      { numRuns: 1500 * RUNS, endOnFailure: true },
    );
  });

  it('reads a stack with thousands of blocks the fast way', () => {
    const blocks = Array.from({ length: 2000 }, (_, i) => `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n    tags: { env: prod, idx: "${i}" }\n`);
    expect(expectSameReading(`version: 1\nresources:\n${blocks.join('')}`)).toBe(true);
  });

  it('reads the resources of a large stack a slice at a time, as the whole file would read', () => {
    const blocks = Array.from({ length: 7000 }, (_, i) => `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n    tags: { env: prod, idx: "${i}" }\n`);
    const text = `version: 1\n# the blocks\nresources:   # all of them\n${blocks.join('')}\n# the end\nchecks: {}\n`;
    expect(text.length).toBeGreaterThan(DEFAULT_SLICING.from);
    // Compared with the fast reading of the whole file, which builds what the yaml library builds
    // for this shape of stack (the test above, 2,000 blocks, and the generated texts in slices of
    // every size): the yaml library's reading of 600 KB, and slices of 40 characters over them,
    // would cost ten times what this comparison does and check nothing more.
    const before = slicesParsed.count;
    const sliced = readPlainYaml('stack.yaml', text, ENV, createStackBudget());
    // The default slices: 256 KB each, the last shorter.
    expect(slicesParsed.count - before).toBe(Math.ceil(text.length / DEFAULT_SLICING.bytes));
    const whole = readPlainYaml('stack.yaml', text, ENV, createStackBudget(), { from: Number.POSITIVE_INFINITY, bytes: 0 });
    expect(sliced && whole).toBeDefined();
    const shown = (read: NonNullable<typeof whole>) => ({
      file: seen({ filename: 'stack.yaml', text, ...(read.root ? { root: read.root } : {}), diagnostics: read.diagnostics, syntaxErrors: false }),
      secretSpans: read.secretSpans,
    });
    expect(firstDifference(shown(sliced!), shown(whole!))).toBeUndefined();
  });

  it('leaves to the yaml library what an adversarial search found read differently: kept block scalars, document markers and directives, a byte order mark inside the text, keys over 1,024 characters', () => {
    const found = [
      'resources:\n  a: [1, 2]\n  b1: |\n    # n\n\n\n\n  d: ${env:REGION}\n  b9: |+\n \n  ',
      'resources:\n   h: x\n   b2: >-\n     t\n   g: |+\n  ',
      'resources:\n  b1: |+\n    - x\n    \n  d: v\n',
      'defaults:\n  a: >+\n    x:\n    resources:\n    ',
      '#\n   h: |+\n   ',
      '  ---\r\nflow: [1, 2]\r\nlist:\r\n- a\r\n- b\r\n',
      '  ---\r\n# top comment\r\n  1.0: x',
      '\n\uFEFFk: 1\n',
      '...\nk: 1\n',
      '# c\n\n...\n',
      '...\n...',
      '  %x\n---\nk: 1\n',
      `${'k'.repeat(1030)}: 1\n`,
      `{${'k'.repeat(1030)}: 1}\n`,
    ];
    for (const text of found) {
      expect(readPlainYaml('stack.yaml', text, ENV, createStackBudget()), JSON.stringify(text)).toBeUndefined();
      expectSameReading(text);
    }
  });

  it('leaves slices that do not read as the whole file to the yaml library', () => {
    // A quoted value over two lines, whose second line looks like a key: its first slice does not parse.
    const quoted = 'resources:\n  a:\n    note: "one\n  b: two"\n  c: 1\n';
    // A value of the mapping's own indentation: a slice that is not a mapping.
    const stray = 'resources:\n  a: 1\n  b\n';
    // Entries of two indentations: the whole file refuses them.
    const ragged = 'resources:\n  a: 1\n   b: 2\n  c: 3\n';
    for (const text of [quoted, stray, ragged]) {
      for (const slicing of SLICINGS) expect(readPlainYaml('stack.yaml', text, ENV, createStackBudget(), slicing), text).toBeUndefined();
      expectSameReading(text);
    }
  });

  it('loads a valid stack with block mappings without asking the yaml library for any range', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeform-plain-yaml-'));
    const blocks = Array.from(
      { length: 50 },
      (_, i) =>
        `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa4${String(i).padStart(2, '0')}\n    tags:\n      env: prod\n      idx: "${i}"\n`,
    );
    writeFileSync(join(dir, 'stack.yaml'), `version: 1\ndefaults:\n  project_id: 1\n  region_id: 76\nresources:\n${blocks.join('')}`);
    const before = exactEndReads.count;
    const loaded = await loadStack(join(dir, 'stack.yaml'), {});
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.stack?.resources).toHaveLength(50);
    expect(exactEndReads.count).toBe(before);
    // A plan error asks: then the range is the yaml library's.
    const block = loaded.stack!.resources[0]!;
    expect(block.fieldSources.tags!.range).toEqual({ filename: join(dir, 'stack.yaml'), start: { line: 10, column: 7 }, end: { line: 12, column: 1 } });
    expect(exactEndReads.count).toBe(before + 1);
  });

  it('leaves anchors, aliases, tags, directives and several documents to the yaml library', () => {
    for (const text of ['a: &x 1\nb: *x\n', 'a: !!str 1\n', '%YAML 1.2\n---\na: 1\n', 'a: 1\n---\nb: 2\n', '? [a]\n: 1\n', 'a: [\n  1\n]\n', '{a: }\n']) {
      expect(readPlainYaml('stack.yaml', text, ENV, createStackBudget()), text).toBeUndefined();
      expectSameReading(text);
    }
  });
});
