import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeResults, normalizeStackPath, type ResultFile } from '../../../src/plan/fleet-report.js';

const drift = (sources: string[], state: 'in-sync' | 'drifted' | 'error', extra: Record<string, unknown> = {}) => ({
  format_version: '1.0',
  stack: { sources, digest: 'd' },
  in_sync: state === 'in-sync',
  drifted:
    state === 'drifted'
      ? [{ address: 'cloud_floating_ip.ip', type: 'cloud_floating_ip', kind: 'changed', fields: [{ field: 'tags.env', stack: 'a', platform: 'b' }], message: 'm' }]
      : [],
  failing_checks: [],
  errors: state === 'error' ? [{ severity: 'error', code: 'plan-error', summary: 'reading failed', detail: null, address: 'cloud_floating_ip.ip', range: null }] : [],
  ...extra,
});
const file = (name: string, ...documents: unknown[]): ResultFile => ({ name, text: documents.map((d) => JSON.stringify(d)).join('\n') });
const UNKNOWN_FIELD = { severity: 'error', code: 'unknown-field', summary: 'x', range: { filename: 'stacks/bad.yaml', start: { line: 3, column: 5 } } };
const listing = (stacks: Array<{ path: string; valid?: boolean }>) => ({
  format_version: '1.0',
  root: 'stacks',
  stacks: stacks.map((s) => ({ path: s.path, name: null, valid: s.valid ?? true, diagnostics: s.valid === false ? [UNKNOWN_FIELD] : [] })),
});

describe('mergeResults: many stacks, one report', () => {
  it('joins a result to the listing by the stack path, however it was spelt, and a directory stack by the directory of its files', () => {
    const report = mergeResults([
      file('stacks.json', listing([{ path: './stacks/a.yaml' }, { path: 'stacks/multi/' }])),
      file('a.json', drift(['stacks//a.yaml'], 'in-sync')),
      file('multi.json', drift(['stacks/multi/compute.yaml', 'stacks/multi/network.yaml'], 'drifted')),
    ]);
    expect(report.stacks.map((s) => [s.path, s.status, s.sources])).toEqual([
      ['stacks/multi', 'differs', ['stacks.json', 'multi.json']],
      ['stacks/a.yaml', 'same', ['stacks.json', 'a.json']],
    ]);
    expect(report.exitCode).toBe(2);
  });

  it('makes a listed stack without a result an error, and an invalid listed stack an error with its diagnostics', () => {
    const report = mergeResults([file('stacks.json', listing([{ path: 'stacks/a.yaml' }, { path: 'stacks/bad.yaml', valid: false }]))]);
    expect(report.stacks.map((s) => [s.path, s.errors.map((e) => e.code)])).toEqual([
      ['stacks/a.yaml', ['missing-result']],
      ['stacks/bad.yaml', ['unknown-field']],
    ]);
    expect(report.exitCode).toBe(1);
  });

  it('counts one error once when two documents report it (the listing and the job both saw the invalid stack)', () => {
    const invalid = { format_version: '1.0', valid: false, diagnostics: [UNKNOWN_FIELD] };
    const report = mergeResults([file('stacks.json', listing([{ path: 'stacks/bad.yaml', valid: false }])), { name: 'bad.json', text: JSON.stringify(invalid) }]);
    // The diagnostics document names the stack by its errors' file: one entry, one error, both sources.
    expect(report.stacks).toEqual([
      expect.objectContaining({ path: 'stacks/bad.yaml', errors: [{ code: 'unknown-field', summary: 'x', where: 'stacks/bad.yaml:3:5' }], sources: ['stacks.json', 'bad.json'] }),
    ]);
  });

  it('keeps the exit code law: 1 when any stack errored, else 2 when any differs, else 0', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('in-sync' as const, 'drifted' as const, 'error' as const), { maxLength: 12 }), (states) => {
        const report = mergeResults(states.map((state, i) => file(`${i}.json`, drift([`stacks/s${i}.yaml`], state))));
        const expected = states.includes('error') ? 1 : states.includes('drifted') ? 2 : 0;
        expect(report.exitCode).toBe(expected);
        expect(report.summary).toEqual({
          stacks: states.length,
          errors: states.filter((s) => s === 'error').length,
          differ: states.filter((s) => s === 'drifted').length,
          same: states.filter((s) => s === 'in-sync').length,
        });
        const order = report.stacks.map((s) => s.status);
        expect(order).toEqual([...order].sort((a, b) => ['error', 'differs', 'same'].indexOf(a) - ['error', 'differs', 'same'].indexOf(b)));
      }),
      { numRuns: 100 },
    );
  });

  it('reads a document that does not fit its schema as no edgeform document, never a crash', () => {
    for (const text of ['null', '42', '"x"', '[]', '{"in_sync": true}', '{"stacks": "all"}', '{"resource_changes": [1], "format_version": "2.2"}']) {
      const report = mergeResults([{ name: 'x.json', text }]);
      expect(report.stacks).toEqual([expect.objectContaining({ path: 'x.json', status: 'error', errors: [expect.objectContaining({ code: 'unreadable-result' })] })]);
    }
  });
});

describe('normalizeStackPath', () => {
  it('spells a path one way: forward slashes, no ./, no trailing slash', () => {
    expect(['stacks/a.yaml', './stacks/a.yaml', 'stacks//a.yaml', 'stacks\\a.yaml', 'stacks/x/../a.yaml'].map(normalizeStackPath)).toEqual(Array(5).fill('stacks/a.yaml'));
    expect(['.', './', 'multi/'].map(normalizeStackPath)).toEqual(['.', '.', 'multi']);
  });
});
