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
