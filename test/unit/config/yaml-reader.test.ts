import { describe, expect, it } from 'vitest';
import type { SourceNode } from '../../../src/config/source-node.js';
import { readSourceFile } from '../../../src/config/source-tree.js';
import { createStackBudget, MAX_STACK_VALUES } from '../../../src/config/stack-limits.js';
import { slicesParsed } from '../../../src/config/yaml-events.js';

/**
 * The one reader of stacks (js-yaml's events, yaml-reader.ts): YAML in full, each node with its
 * place. Diagnostics of invalid stacks are held by invalid-stacks.test.ts and stack-limits.test.ts.
 */

const ENV = { REGION: '76', EDGEFORM_API_KEY: 'test$key-123' };

function read(text: string, env: Record<string, string> = ENV) {
  return readSourceFile('stack.yaml', text, env);
}

/** `line:column` of a node's start. */
const at = (node: SourceNode | undefined) => node && `${node.range.start.line}:${node.range.start.column}`;

describe('the stack reader', () => {
  it("expands aliases to their anchor's value, placed at the alias, and reads anchors on block scalars", () => {
    const file = read('base: &tags {env: prod, team: edge}\nlist: &l [1, 2]\ntext: &t |\n  two\n  lines\nuse:\n  tags: *tags\n  list: *l\n  text: *t\n');
    expect(file.diagnostics).toEqual([]);
    const use = file.root!.entries!.get('use')!;
    expect(use.value).toEqual({ tags: { env: 'prod', team: 'edge' }, list: [1, 2], text: 'two\nlines\n' });
    expect(at(use.entries!.get('tags'))).toBe('7:9');
    expect(at(use.entries!.get('tags')!.entries!.get('env'))).toBe('1:19');
    expect(at(file.root!.entries!.get('text'))).toBe('3:10');
  });

  it('reads a redefined anchor as the latest definition before the alias', () => {
    expect(read('a: &x 1\nb: *x\nc: &x 2\nd: *x\n').root!.value).toEqual({ a: 1, b: 1, c: 2, d: 2 });
  });

  it('reads the core tags and the core schema as YAML 1.2 does', () => {
    const file = read('a: !!str 1\nb: !!int "2"\nc: !<tag:yaml.org,2002:str> true\nd: 0x1F\ne: 1e400\nf: yes\ng: ~\nh: .inf\ni: !!str\n');
    expect(file.diagnostics).toEqual([]);
    expect(file.root!.value).toEqual({ a: '1', b: 2, c: 'true', d: 31, e: Infinity, f: 'yes', g: null, h: Infinity, i: '' });
  });

  it('reads flow collections and scalars over several lines, and places them', () => {
    const file = read('a: [1,\n  2, {b: c,\n  d: e}]\nf: "one\n  two"\ng: plain\n  continued\n');
    expect(file.diagnostics).toEqual([]);
    expect(file.root!.value).toEqual({ a: [1, 2, { b: 'c', d: 'e' }], f: 'one two', g: 'plain continued' });
    const a = file.root!.entries!.get('a')!;
    expect(a.range).toMatchObject({ start: { line: 1, column: 4 }, end: { line: 3, column: 9 } });
    expect(at(a.items![2]!.entries!.get('d'))).toBe('3:6');
    expect(file.root!.entries!.get('f')!.range).toMatchObject({ start: { line: 4, column: 4 }, end: { line: 5, column: 7 } });
  });

  it('ends a block collection after the line its last entry ends on', () => {
    const file = read('a:\n  b: 1\n  c:\n    - x\n    - y\nd: 2\n');
    expect(file.root!.entries!.get('a')!.range).toMatchObject({ start: { line: 2, column: 3 }, end: { line: 6, column: 1 } });
    expect(file.root!.entries!.get('a')!.entries!.get('c')!.range).toMatchObject({ start: { line: 4, column: 5 }, end: { line: 6, column: 1 } });
  });

  it('expands ${env:NAME} in aliased values too, and reports an unset one where it is written', () => {
    const file = read('a: &r ${env:REGION}\nb: *r\nc: &m ${env:MISSING}\n');
    expect(file.root!.entries!.get('b')!.value).toBe('76');
    expect(file.root!.entries!.get('b')!.envReference).toBe('REGION');
    expect(file.diagnostics.map((d) => `${d.code} ${at({ range: d.range! } as SourceNode)}`)).toEqual(['unset-env 3:7']);
  });

  it('counts every value an alias expands against the budget, once per use', () => {
    const budget = createStackBudget();
    readSourceFile('stack.yaml', 'a: &x [1, 2, 3]\nb: *x\nc: *x\n', {}, budget);
    // root, a, [1, 2, 3] (4), b, *x, its 4, c, *x, its 4
    expect(MAX_STACK_VALUES - budget.values).toBe(1 + 1 + 4 + (1 + 1 + 4) * 2);
  });

  it('reads a large resources: mapping in slices, as it reads the whole', () => {
    const blocks = Array.from({ length: 400 }, (_, i) => `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n    tags: { env: prod, idx: "${i}" }\n`);
    const text = `version: 1\nresources:\n${blocks.join('')}checks: {}\n`;
    const before = slicesParsed.count;
    const sliced = readSourceFile('stack.yaml', text, ENV, createStackBudget(), { from: 0, bytes: 1_000 });
    expect(slicesParsed.count - before).toBeGreaterThan(10);
    const whole = readSourceFile('stack.yaml', text, ENV, createStackBudget(), { from: Number.POSITIVE_INFINITY, bytes: 0 });
    expect(sliced.diagnostics).toEqual([]);
    expect(sliced.root!.value).toEqual(whole.root!.value);
    const ranges = (file: typeof sliced) => [...file.root!.entries!.get('resources')!.entries!.values()].map((n) => [n.keyRange, n.range, n.entries!.get('tags')!.range]);
    expect(ranges(sliced)).toEqual(ranges(whole));
  });

  it('places a syntax error in a large mapping read in slices, or around it, where the whole text places it', () => {
    const blocks = Array.from({ length: 200 }, (_, i) => `  ip_${i}:\n    type: cloud_floating_ip\n    floating_ip_id: "${i}"\n`);
    const inSlice = [...blocks];
    inSlice[150] = '  ip_150:\n    type: "unterminated\n';
    const texts = [
      `version: 1\nresources:\n${inSlice.join('')}`,
      `version: 1\nresources:\n${blocks.join('')}checks: [1,\n`,
      `version: 1\n\tbad: 1\nresources:\n${blocks.join('')}`,
    ];
    for (const text of texts) {
      const sliced = readSourceFile('stack.yaml', text, {}, createStackBudget(), { from: 0, bytes: 500 });
      const whole = readSourceFile('stack.yaml', text, {}, createStackBudget(), { from: Number.POSITIVE_INFINITY, bytes: 0 });
      expect(whole.diagnostics.map((d) => d.code)).toEqual(['yaml-syntax']);
      expect(sliced.diagnostics).toEqual(whole.diagnostics);
    }
  });

  it('says to quote an unquoted ${...} in a flow collection, where js-yaml reports a missed comma', () => {
    const cases: Array<[string, string, string]> = [
      ['ids: [${cloud_security_group.web.id}]\n', '${cloud_security_group.web.id}', '1:8'],
      ['ids: [a, ${cloud_volume.b.id}, c]\n', '${cloud_volume.b.id}', '1:11'],
      ['urls: [http://${cloud_floating_ip.ip.floating_ip_address}:8080/]\n', 'http://${cloud_floating_ip.ip.floating_ip_address}:8080/', '1:16'],
      ['tags: { a: ${env:REGION} }\n', '${env:REGION}', '1:13'],
    ];
    for (const [text, value, place] of cases) {
      const [diagnostic, ...others] = read(text).diagnostics;
      expect(others).toEqual([]);
      expect(diagnostic!.summary).toBe(`invalid YAML: missed comma between flow collection entries (an unquoted \${...} in [ ] or { }: write "${value}")`);
      expect(diagnostic!.detail).toMatch(/quote every value that holds one/);
      expect(`${diagnostic!.range!.start.line}:${diagnostic!.range!.start.column}`).toBe(place);
    }
    const other = read('ids: [a b {c]\n').diagnostics[0]!;
    expect(other.summary).toMatch(/^invalid YAML: /);
    expect(other.summary).not.toMatch(/unquoted/);
  });

  it('masks a secret written under an alias once, where it is written', () => {
    const file = read('a: &k "test$key-123"\nb: *k\n');
    expect(file.diagnostics.map((d) => d.code)).toEqual(['secret-in-stack', 'secret-in-stack']);
    expect(file.text).not.toContain('test$key-123');
  });
});
