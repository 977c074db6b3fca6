import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';

interface Expected {
  severity: string;
  code: string;
  file: string | null;
  line: number | null;
  column: number | null;
  summary: string;
}

const ROOT = 'test/fixtures/invalid';
const cases = readdirSync(ROOT).sort();

describe('invalid stacks (test/fixtures/invalid/<case>: stack.yaml or stack/, expected.json, optional env.json)', () => {
  it('has a corpus of at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%s: reports exactly the expected diagnostics', async (name) => {
    const dir = join(ROOT, name);
    const target = existsSync(join(dir, 'stack.yaml')) ? join(dir, 'stack.yaml') : join(dir, 'stack');
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected[];
    const env = existsSync(join(dir, 'env.json')) ? (JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as Record<string, string>) : {};
    const result = await loadStack(target, env);
    const actual: Expected[] = result.diagnostics.map((d) => ({
      severity: d.severity,
      code: d.code,
      file: d.range ? relative(dir, d.range.filename) : null,
      line: d.range?.start.line ?? null,
      column: d.range?.start.column ?? null,
      summary: d.summary,
    }));
    expect(actual).toEqual(expected);
    expect(expected.some((d) => d.severity === 'error')).toBe(true);
    expect(result.stack).toBeUndefined();
  });
});
