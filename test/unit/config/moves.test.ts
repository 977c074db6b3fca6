import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';

async function load(text: string) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), { OLD: 'cloud_floating_ip.old' });
}
const stack = (top: string, blocks: string) => `version: 1
${top}
defaults: { project_id: 1, region_id: 76 }
resources:
${blocks}`;
const fip = (name: string, extra = '') => `  ${name}:
    type: cloud_floating_ip
${extra}`;
const errors = (diagnostics: readonly { severity: string; summary: string; range?: { start: { line: number; column: number } } }[]) =>
  diagnostics.filter((d) => d.severity === 'error').map((d) => [d.summary, d.range?.start.line, d.range?.start.column]);

describe('moved_from and renamed_from, validated offline', () => {
  it('resolves moved_from (with and without the old stack) and renamed_from onto each block, and both enter the digest', async () => {
    const text = stack(
      'name: prod\nrenamed_from: old',
      fip('a', '    moved_from: cloud_floating_ip.was_a\n') + fip('b', '    moved_from: legacy/cloud_floating_ip.b\n') + fip('c'),
    );
    const { stack: loaded, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(loaded!.renamedFrom).toBe('old');
    expect(loaded!.resources.map((b) => [b.address, b.movedFrom?.stack, b.movedFrom?.address])).toEqual([
      ['cloud_floating_ip.a', 'old', 'cloud_floating_ip.was_a'],
      ['cloud_floating_ip.b', 'legacy', 'cloud_floating_ip.b'],
      ['cloud_floating_ip.c', 'old', 'cloud_floating_ip.c'],
    ]);
    expect(loaded!.resources[0]!.attributes).not.toHaveProperty('moved_from');
    const plain = await load(stack('name: prod', fip('a') + fip('b') + fip('c')));
    expect(loaded!.digest).not.toBe(plain.stack!.digest);
  });

  it('refuses bad syntax, another type, a kind without ownership tags, and ${env:...}, each at the value', async () => {
    const text = stack(
      'name: prod',
      fip('a', '    moved_from: not an address\n') +
        fip('b', '    moved_from: cloud_instance.b\n') +
        fip('c', '    moved_from: ${env:OLD}\n') +
        `  app:\n    type: fastedge_app\n    app_id: 1\n    moved_from: fastedge_app.old\n`,
    );
    expect(errors((await load(text)).diagnostics)).toEqual([
      [expect.stringContaining('moved_from must be an old address'), 7, 17],
      ['moved_from names a cloud_instance, but this block is a cloud_floating_ip: a resource keeps its type when renamed', 10, 17],
      [expect.stringContaining('moved_from must be an old address'), 13, 17],
      [expect.stringContaining('moved_from is only for kinds whose resources record their owner'), 17, 5],
    ]);
  });

  it("refuses a move without the stack's name, from the block itself, from a declared address, and two blocks moving from one address", async () => {
    expect(errors((await load(stack('', fip('a', `    floating_ip_id: ${FIP}\n    moved_from: other/cloud_floating_ip.a\n`)))).diagnostics)).toEqual([
      [expect.stringContaining("moved_from needs the stack's name"), 8, 17],
    ]);
    const text = stack(
      'name: prod',
      fip('a', '    moved_from: cloud_floating_ip.a\n') +
        fip('b', '    moved_from: cloud_floating_ip.a\n') +
        fip('c', '    moved_from: cloud_floating_ip.gone\n') +
        fip('d', '    moved_from: prod/cloud_floating_ip.gone\n'),
    );
    expect(errors((await load(text)).diagnostics)).toEqual([
      ["moved_from names the block's own address prod/cloud_floating_ip.a", 7, 17],
      ['moved_from names cloud_floating_ip.a, which a block of this stack still declares', 10, 17],
      ['cloud_floating_ip.d and cloud_floating_ip.c both move from prod/cloud_floating_ip.gone', 16, 17],
    ]);
  });

  it('refuses renamed_from without name: or equal to it', async () => {
    expect(errors((await load(stack('renamed_from: old', fip('a', `    floating_ip_id: ${FIP}\n`)))).diagnostics)).toEqual([["renamed_from needs the stack's new name", 2, 1]]);
    expect(errors((await load(stack('name: prod\nrenamed_from: prod', fip('a')))).diagnostics)).toEqual([['renamed_from names the stack\'s own name "prod"', 3, 15]]);
  });
});
