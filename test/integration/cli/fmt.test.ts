import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const UNORDERED = [
  '# yaml-language-server: $schema=../edgeform.schema.json',
  'resources:',
  '  vm:                        # the web server',
  '    flavor_id: g2-standard-4-8',
  '    # adopted by id',
  '    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
  '    type: cloud_instance',
  'version: 1',
  '',
].join('\n');
const ORDERED = [
  '# yaml-language-server: $schema=../edgeform.schema.json',
  'version: 1',
  'resources:',
  '  vm:                        # the web server',
  '    type: cloud_instance',
  '    # adopted by id',
  '    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
  '    flavor_id: g2-standard-4-8',
  '',
].join('\n');

describe('edgeform fmt', () => {
  it('--check lists the files that would change, writes nothing and exits 3', async () => {
    const dir = writeStackFiles({ 'a.yaml': UNORDERED, 'b.yaml': ORDERED });
    const result = await runCliInProcess(['fmt', '--check', dir]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(`${join(dir, 'a.yaml')}\n`);
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(UNORDERED);
  });

  it('--check exits 0 when every file is in canonical order', async () => {
    const dir = writeStackFiles({ 'b.yaml': ORDERED });
    const result = await runCliInProcess(['fmt', '--check', join(dir, 'b.yaml')]);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('rewrites files in canonical order keeping their comments, names them, and then has nothing left to do', async () => {
    const dir = writeStackFiles({ 'a.yaml': UNORDERED, 'b.yaml': ORDERED });
    const first = await runCliInProcess(['fmt', dir]);
    expect(first).toMatchObject({ code: 0, stdout: `${join(dir, 'a.yaml')}\n` });
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(ORDERED);
    expect(readFileSync(join(dir, 'b.yaml'), 'utf8')).toBe(ORDERED);
    const second = await runCliInProcess(['fmt', dir]);
    expect(second).toMatchObject({ code: 0, stdout: '' });
  });

  it('--diff prints a unified diff of what would change, writes nothing and exits 3 (0 when nothing would change)', async () => {
    const dir = writeStackFiles({ 'a.yaml': UNORDERED, 'b.yaml': ORDERED });
    const file = join(dir, 'a.yaml');
    const result = await runCliInProcess(['fmt', '--diff', dir]);
    expect(result.code).toBe(3);
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([`--- ${file}`, `+++ ${file}`, '@@ -1,8 +1,8 @@']);
    expect(result.stdout).toContain('\n+version: 1\n');
    expect(result.stdout).toContain('\n-version: 1\n');
    expect(result.stdout).toContain('\n-    type: cloud_instance\n');
    expect(result.stdout).not.toContain('b.yaml');
    expect(readFileSync(file, 'utf8')).toBe(UNORDERED);
    expect(await runCliInProcess(['fmt', '--diff', join(dir, 'b.yaml')])).toMatchObject({ code: 0, stdout: '' });
  });

  it('--recursive formats the stack files of every subdirectory, leaving node_modules and dot-directories alone', async () => {
    const dir = writeStackFiles({
      'top.yaml': UNORDERED,
      'stacks/prod/stack.yaml': UNORDERED,
      'stacks/dev.yml': UNORDERED,
      'stacks/notes.txt': UNORDERED,
      '.github/workflows/ci.yml': UNORDERED,
      'node_modules/pkg/x.yaml': UNORDERED,
    });
    const flat = await runCliInProcess(['fmt', '--check', dir]);
    expect(flat.stdout).toBe(`${join(dir, 'top.yaml')}\n`);
    const deep = await runCliInProcess(['fmt', '--recursive', dir]);
    expect(deep.code).toBe(0);
    expect(deep.stdout).toBe([join(dir, 'stacks/dev.yml'), join(dir, 'stacks/prod/stack.yaml'), join(dir, 'top.yaml'), ''].join('\n'));
    for (const name of ['top.yaml', 'stacks/prod/stack.yaml', 'stacks/dev.yml']) expect(readFileSync(join(dir, name), 'utf8')).toBe(ORDERED);
    for (const name of ['stacks/notes.txt', '.github/workflows/ci.yml', 'node_modules/pkg/x.yaml']) expect(readFileSync(join(dir, name), 'utf8')).toBe(UNORDERED);
  });

  it('--check --recursive finds every stack in examples/ already in canonical order', async () => {
    const result = await runCliInProcess(['fmt', '--check', '--recursive', 'examples']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('formats the current directory when no path is given', async () => {
    const dir = writeStackFiles({ 'stack.yml': UNORDERED });
    const result = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(result).toMatchObject({ code: 3, stdout: 'stack.yml\n' });
  });

  it('reports a file that is not YAML at its line and column and a missing path, exit 1, and still formats the rest', async () => {
    const dir = writeStackFiles({ 'a.yaml': UNORDERED, 'bad.yaml': 'version: 1\nresources: [\n' });
    const result = await runCliInProcess(['fmt', dir, join(dir, 'missing.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${join(dir, 'bad.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: error: not a YAML file edgeform can format`));
    expect(result.stderr).toContain(`${join(dir, 'missing.yaml')}: no such file or directory`);
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(ORDERED);
  });
});
