import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLines } from '../../../src/render/json-lines.js';

describe('jsonLines', () => {
  it('joins to exactly JSON.stringify(value, null, 2) and a line break, every chunk whole lines, whatever the depth and chunk size', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 200 }), (value, depth, chunkBytes) => {
        const chunks = [...jsonLines(value, { depth, chunkBytes })];
        expect(chunks.join('')).toBe(`${JSON.stringify(value, null, 2)}\n`);
        for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out undefined members and writes undefined elements as null, as JSON.stringify does', () => {
    const value = { a: undefined, b: [1, undefined, { c: undefined, d: 2 }], e: { toJSON: () => 'e' } };
    expect([...jsonLines(value, { depth: 3 })].join('')).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });

  it('hands out a list of many elements a chunk at a time, never as one string', () => {
    const value = { format_version: '2.2', resource_changes: Array.from({ length: 10_000 }, (_, i) => ({ address: `dns_rrset.main/h${i}.example.com/A`, action: 'create' })) };
    const chunks = [...jsonLines(value, { chunkBytes: 4096 })];
    expect(chunks.length).toBeGreaterThan(100);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(4096 + 200);
    expect(JSON.parse(chunks.join(''))).toEqual(value);
  });
});
