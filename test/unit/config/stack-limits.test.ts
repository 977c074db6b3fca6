import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeStackText } from '../../../src/config/decode-text.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { readSourceFile } from '../../../src/config/source-tree.js';
import { createStackBudget, MAX_ALIAS_COUNT, MAX_DEPTH, MAX_STACK_BYTES, MAX_STACK_VALUES, MAX_VALUE_LENGTH } from '../../../src/config/stack-limits.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const HEAD = 'version: 1\nresources:\n';

/** The diagnostics of one file as `code line:column`. */
function located(text: string, env: Record<string, string> = {}): string[] {
  return readSourceFile('stack.yaml', text, env).diagnostics.map((d) => `${d.code} ${d.range!.start.line}:${d.range!.start.column}`);
}

describe('the value budget: values counted as they are read', () => {
  it('counts scalars, keys, collections and each value an alias expands, and takes them from the budget', () => {
    const budget = createStackBudget();
    readSourceFile('stack.yaml', 'a: &x [1, {b: "c"}]\nd:\n  - *x\n  - |\n    text\n', {}, budget);
    // the root mapping, a, [, 1, {, b, "c", d, the list of d, *x (the alias) and its [, 1, {, b, "c", then |
    expect(MAX_STACK_VALUES - budget.values).toBe(16);
  });

  it('refuses more values than the budget, at the value that crossed it', () => {
    const budget = { ...createStackBudget(), values: 5 };
    const file = readSourceFile('stack.yaml', 'a: 1\nb: 2\nc: 3\n', {}, budget);
    expect(file.diagnostics.map((d) => `${d.code} ${d.range!.start.line}:${d.range!.start.column}`)).toEqual(['stack-too-large 3:1']);
    expect(file.syntaxErrors).toBe(true);
  });

  it("counts no indicator characters: a uuid's dashes and a URL's colons are no values", () => {
    const value = `${FIP}-${FIP}:https://x.test/a-b`;
    const budget = createStackBudget();
    const file = readSourceFile('stack.yaml', Array.from({ length: 2_000 }, (_, i) => `k${i}: ${value}`).join('\n'), {}, budget);
    expect(file.diagnostics).toEqual([]);
    expect(MAX_STACK_VALUES - budget.values).toBe(4_001);
  });

  it('refuses flow nesting deeper than MAX_DEPTH at the bracket that goes too deep', () => {
    expect(located(`a: ${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toEqual([`too-deep 1:${3 + MAX_DEPTH}`]);
  });

  it('refuses block nesting deeper than MAX_DEPTH, also when the levels share a line', () => {
    expect(located(`${'- '.repeat(100_000)}1\n`)).toEqual([`too-deep 1:${2 * MAX_DEPTH + 1}`]);
    const indented = Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}k${i}:\n`).join('');
    expect(located(indented)).toEqual([`too-deep ${MAX_DEPTH + 1}:${MAX_DEPTH + 1}`]);
  });

  it('counts no levels for comments, block scalar lines or lines of a flow collection', () => {
    const text = `a:\n${'  '.repeat(80)}# deep comment\nb: |\n${Array.from({ length: 80 }, (_, i) => `  ${' '.repeat(i)}text`).join('\n')}\nc: [\n${Array.from({ length: 80 }, (_, i) => ` ${' '.repeat(i)}${i},`).join('\n')}\n ]\n`;
    expect(located(text)).toEqual([]);
  });

  it('refuses a value longer than MAX_VALUE_LENGTH at the value', () => {
    const file = readSourceFile('stack.yaml', `a: 1\nb: "${'x'.repeat(MAX_VALUE_LENGTH)}"\n`, {});
    expect(file.diagnostics).toMatchObject([
      { code: 'value-too-long', summary: expect.stringMatching(/^this value is 1,048,578 characters long/), range: { start: { line: 2, column: 4 } } },
    ]);
  });
});

describe('readSourceFile: bounded reading', () => {
  it("stops an alias bomb with the alias limit (the yaml library's rule), at the alias, before it expands", () => {
    let text = `${HEAD}  ip:\n    type: cloud_floating_ip\n    tags:\n      l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
    for (let i = 1; i < 30; i++)
      text += `      l${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    const file = readSourceFile('stack.yaml', text, {});
    expect(file.diagnostics.map((d) => d.code)).toEqual(['too-many-aliases']);
    expect(file.diagnostics[0]!.range!.start).toEqual({ line: 10, column: 16 });
    expect(file.syntaxErrors).toBe(true);
  });

  it('stops a large anchor used many times when its expansion passes the value budget', () => {
    const list = `[${Array.from({ length: 1_000 }, (_, i) => `v${i}`).join(', ')}]`;
    const uses = Array.from({ length: 1_000 }, (_, i) => `  u${i}: *big\n`).join('');
    const file = readSourceFile('stack.yaml', `big: &big ${list}\nuses:\n${uses}`, {});
    expect(file.diagnostics.map((d) => `${d.code} ${d.range!.start.line}:${d.range!.start.column}`)).toEqual(['stack-too-large 251:9']);
  });

  it(`lets an anchor be used ${MAX_ALIAS_COUNT} times (a shared tag map in many resources)`, () => {
    const uses = Array.from({ length: 2_000 }, (_, i) => `  u${i}: *tags\n`).join('');
    expect(located(`tags: &tags {team: edge, env: prod}\nuses:\n${uses}`)).toEqual([]);
  });

  it('refuses nesting deeper than MAX_DEPTH in block style, at the node', () => {
    const text = Array.from({ length: MAX_DEPTH + 5 }, (_, i) => `${' '.repeat(i)}k${i}:\n`).join('');
    expect(located(text)).toEqual([`too-deep ${MAX_DEPTH + 1}:${MAX_DEPTH + 1}`]);
  });

  it('refuses nesting deeper than MAX_DEPTH that only aliases build, at the alias', () => {
    const half = MAX_DEPTH / 2 + 5;
    const text = `a: &a ${'['.repeat(half)}x${']'.repeat(half)}\nb: ${'['.repeat(half)}*a${']'.repeat(half)}\n`;
    expect(located(text)).toEqual([`too-deep 2:${4 + half}`]);
  });

  it('refuses the first raw control character of the file, where it is', () => {
    expect(located('a: 1\nb: x\u001b[2Jy\u0007\n')).toEqual(['invalid-character 2:5']);
  });

  it('refuses a string with an unpaired surrogate escape, in a value and in a key', () => {
    expect(located('a: "x\\ud800"\n"\\udc00": 1\nok: "\\ud83d\\ude00"\n')).toEqual(['invalid-value 1:4', 'invalid-key 2:1']);
  });

  it('refuses tags outside the core schema and merge keys, and accepts the core tags', () => {
    expect(located('a: !!str 1\nb: !!int "2"\nc: !!set {x}\nd: !Ref x\ne:\n  <<: {f: 1}\n"<<": quoted is a plain key\n')).toEqual([
      'unsupported-yaml 3:10',
      'unsupported-yaml 4:9',
      'unsupported-yaml 6:3',
    ]);
  });

  it('masks every span of a secret in a file with many of them, in one pass', () => {
    const key = 'test$edgeform-unit-key-42';
    const text = Array.from({ length: 3_000 }, (_, i) => `k${i}: "${key}"`).join('\n');
    const file = readSourceFile('stack.yaml', text, { EDGEFORM_API_KEY: key });
    expect(file.diagnostics).toHaveLength(3_000);
    expect(file.text).not.toContain(key);
    expect(file.text.length).toBe(text.length);
  });
});

describe('many errors', () => {
  it('reports 200,000 errors of one block (a spread of that many arguments overflows the call stack)', async () => {
    const dir = writeStackFiles({
      'stack.yaml': `version: 1\nchecks:\n  subs:\n    type: streaming_video_subtitles\n    video_id: 1\n    languages: [${Array(200_000).fill('1').join(', ')}]\n`,
    });
    const { diagnostics } = await loadStack(join(dir, 'stack.yaml'), {});
    expect(diagnostics).toHaveLength(200_000);
    expect(diagnostics[199_999]).toMatchObject({ code: 'invalid-type', summary: 'languages[199999] must be a string, not an integer' });
  });
});

describe('the API key in a stack value (EDGEFORM_API_KEY set)', () => {
  const key = 'test$0123456789abcdef';
  const ip = (tags: string) => `${HEAD}  ip:\n    type: cloud_floating_ip\n    project_id: 1\n    region_id: 76\n    floating_ip_id: ${FIP}\n    tags:\n${tags}`;

  it('is an error when a value equals the key through another variable, saying where it came from and never what it is', async () => {
    const dir = writeStackFiles({ 'stack.yaml': ip('      owner: ${env:OWNER}\n') });
    const { stack, diagnostics } = await loadStack(join(dir, 'stack.yaml'), { EDGEFORM_API_KEY: key, OWNER: key });
    expect(stack).toBeUndefined();
    expect(diagnostics).toMatchObject([{ code: 'secret-in-stack', range: { start: { line: 9, column: 14 } }, detail: expect.stringContaining('${env:OWNER}') }]);
    expect(JSON.stringify(diagnostics)).not.toContain(key);
  });

  it('is an error when a value contains the key', async () => {
    const dir = writeStackFiles({ 'stack.yaml': ip('      note: "by ${env:OWNER} for edge"\n') });
    const { diagnostics } = await loadStack(join(dir, 'stack.yaml'), { EDGEFORM_API_KEY: key, OWNER: key });
    expect(diagnostics.map((d) => d.code)).toEqual(['secret-in-stack']);
  });

  it('masks a key written into the file, so no code frame can show it', () => {
    const file = readSourceFile('stack.yaml', ip(`      owner: "${key}"\n`), { EDGEFORM_API_KEY: key });
    expect(file.diagnostics.map((d) => d.code)).toEqual(['secret-in-stack']);
    expect(file.text).not.toContain(key);
  });

  it('is no error without the key in the environment, or with a key too short to search for', () => {
    expect(located(ip('      owner: "abc"\n'), { EDGEFORM_API_KEY: 'ab' })).toEqual([]);
    expect(located(ip(`      owner: "${key}"\n`))).toEqual([]);
  });
});

describe('decodeStackText', () => {
  const text = 'version: 1\n';
  it('reads UTF-8 and drops a UTF-8 byte order mark', () => {
    expect(decodeStackText(Buffer.from(text))).toEqual({ ok: true, text });
    expect(decodeStackText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]))).toEqual({ ok: true, text });
  });

  it.each([
    ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['UTF-16BE', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
    ['UTF-32BE', Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x61])],
    ['UTF-16LE', Buffer.from(text, 'utf16le')],
    ['UTF-16BE', Buffer.from(text, 'utf16le').swap16()],
  ])('names %s', (encoding, bytes) => {
    expect(decodeStackText(bytes)).toMatchObject({ ok: false, encoding, summary: expect.stringContaining(encoding), position: { line: 1, column: 1 } });
  });

  it('places the first byte that is not UTF-8, after a genuine replacement character', () => {
    const bytes = Buffer.concat([Buffer.from('a: \uFFFDok\nb: caf'), Buffer.from([0xe9, 0x0a])]);
    expect(decodeStackText(bytes)).toMatchObject({ ok: false, encoding: 'invalid UTF-8', summary: expect.stringContaining('0xE9'), position: { line: 2, column: 7 } });
  });

  it('calls a file with NUL bytes that is not UTF-16 binary, at the first NUL', () => {
    expect(decodeStackText(Buffer.from('a: 1\nb: x\0\0y\n'))).toMatchObject({ ok: false, encoding: 'binary', position: { line: 2, column: 5 } });
  });
});

describe('readStackFiles: what is not read at all', () => {
  it(`refuses a stack over ${MAX_STACK_BYTES / 1024 / 1024} MiB before reading it`, async () => {
    const dir = writeStackFiles({});
    const file = join(dir, 'stack.yaml');
    writeFileSync(file, '');
    truncateSync(file, MAX_STACK_BYTES + 1); // sparse: nothing is written, and nothing may be read
    const { diagnostics, files } = await loadStack(file, {});
    expect(diagnostics).toMatchObject([{ code: 'stack-too-large', range: { filename: file, start: { line: 1, column: 1 } } }]);
    expect(files.size).toBe(0);
  });

  it('counts the bytes of a directory stack together', async () => {
    const half = `# ${'x'.repeat(MAX_VALUE_LENGTH - 10)}\n`.repeat(Math.ceil(MAX_STACK_BYTES / 2 / MAX_VALUE_LENGTH) + 1);
    const dir = writeStackFiles({ 'a.yaml': `version: 1\n${half}`, 'b.yaml': half });
    const { diagnostics } = await loadStack(dir, {});
    expect(diagnostics.map((d) => `${d.code} ${d.range?.filename}`)).toEqual([`stack-too-large ${join(dir, 'b.yaml')}`]);
  });

  it('refuses what is not a regular file (a device would never end)', async () => {
    const { diagnostics } = await loadStack('/dev/zero', {});
    expect(diagnostics).toMatchObject([{ code: 'stack-unreadable', summary: 'cannot read /dev/zero: not a regular file' }]);
  });
});
