import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { exactEndReads, readPlainYaml } from '../../../src/config/plain-yaml.js';
import { createStackBudget } from '../../../src/config/stack-limits.js';
import { DEFAULT_SLICING, slicesParsed } from '../../../src/config/yaml-events.js';
import { document, ENV, expectSameReading, firstDifference, RUNS, seen, SLICINGS, yamlFiles } from '../../helpers/plain-yaml.js';

/**
 * The fast reading (js-yaml's events, plain-yaml.ts) must build exactly what the yaml
 * library's reading builds, or leave the file to it: values, ranges of every node and key,
 * flags, diagnostics and the masked text. Compared over the repository's stacks, generated
 * YAML and the shapes below; over mutated YAML in plain-yaml-mutated.test.ts.
 * Shrinking is off (endOnFailure): the generated texts shrink slowly; the counterexample is printed whole.
 */

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

  it('reads a stack with hundreds of blocks the fast way', () => {
    // 300 blocks, not the 2,000 this test once read: nothing in plain-yaml.ts or yaml-events.ts
    // counts blocks, the default slicing starts at 512 KB (which neither reaches, and which the
    // next test covers), and in slices of 40 characters (SLICINGS) 300 blocks are already
    // hundreds of slices, each joined to the next as 2,000 would be; the yaml library's reading
    // of each is what made this test take seconds.
    const blocks = Array.from({ length: 300 }, (_, i) => `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n    tags: { env: prod, idx: "${i}" }\n`);
    expect(expectSameReading(`version: 1\nresources:\n${blocks.join('')}`)).toBe(true);
  });

  it('reads the resources of a large stack a slice at a time, as the whole file would read', () => {
    // Over 512 KB, where the default slicing starts, in 1,800 blocks rather than 7,000 of a few
    // lines: a comment of 250 characters in each makes the bytes (which decide the slices)
    // without the nodes (which the readings and their comparison cost); the slices still cut
    // between entries, each of hundreds of blocks.
    const note = `    # ${'n'.repeat(250)}\n`;
    const blocks = Array.from({ length: 1_800 }, (_, i) => `  ip_${i}:\n${note}    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n    tags: { env: prod, idx: "${i}" }\n`);
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
