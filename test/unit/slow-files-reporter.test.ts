import { describe, expect, it } from 'vitest';
import { SLOWEST_LISTED, slowFilesReport } from '../reporters/slow-files.js';

describe('the slow-files reporter', () => {
  it('lists the slowest files of every run, slowest first, at most SLOWEST_LISTED of them', () => {
    const files = Array.from({ length: 14 }, (_, i) => ({ file: `test/unit/f${i}.test.ts`, ms: (i + 1) * 100, e2e: false }));
    const report = slowFilesReport(files);
    expect(report).toContain(`Slowest test files (${SLOWEST_LISTED} of 14):`);
    expect(report).toContain('     1.4 s  test/unit/f13.test.ts');
    expect(report.indexOf('f13.test.ts')).toBeLessThan(report.indexOf('f12.test.ts'));
    expect(report).toContain('f4.test.ts');
    expect(report).not.toContain('f3.test.ts');
    expect(report).not.toContain('Warning');
  });

  it('warns of each unit or integration file over 10 s, never of an e2e file', () => {
    const report = slowFilesReport([
      { file: 'test/e2e/demo.test.ts', ms: 40_000, e2e: true },
      { file: 'test/integration/cli/a.test.ts', ms: 12_500, e2e: false },
      { file: 'test/unit/b.test.ts', ms: 9_000, e2e: false },
    ]);
    expect(report).toContain('    40.0 s  test/e2e/demo.test.ts  (e2e)');
    const warning = report.slice(report.indexOf('Warning'));
    expect(warning).toContain('Warning: 1 test file(s) over 10 s');
    expect(warning).toContain('test/integration/cli/a.test.ts');
    expect(warning).not.toContain('demo.test.ts');
    expect(warning).not.toContain('b.test.ts');
  });

  it('says nothing for a run without files', () => {
    expect(slowFilesReport([])).toBe('');
  });
});
