import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inShard, MAX_SHARDS, parseShard, shardOf } from '../../../src/config/shards.js';

/** Keys as stacks have them: paths under the root, `/`-separated, any characters. */
const keys = fc.uniqueArray(
  fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
  {
    maxLength: 60,
  },
);

describe('shards: a static matrix of N jobs covers every stack exactly once', () => {
  it('puts every stack in exactly one of the N shards, whatever the stacks and N', () => {
    fc.assert(
      fc.property(keys, fc.integer({ min: 1, max: 40 }), (stacks, count) => {
        const shards = Array.from({ length: count }, (_, i) => stacks.filter((key) => inShard(key, { index: i + 1, count })));
        expect(shards.flat().sort()).toEqual([...stacks].sort());
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a stack in its shard when other stacks come and go (its shard depends on its key alone)', () => {
    fc.assert(
      fc.property(keys, keys, fc.integer({ min: 1, max: 40 }), (before, added, count) => {
        const place = (stacks: string[]) => new Map(stacks.map((key) => [key, [...Array(count).keys()].find((i) => inShard(key, { index: i + 1, count }))]));
        const alone = place(before);
        const together = place([...added, ...before]);
        for (const key of before) expect(together.get(key)).toBe(alone.get(key));
      }),
      { numRuns: 100 },
    );
  });

  it('spreads stacks over the shards (no shard of 8 gets more than twice its share of 800 stacks)', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 800; i++) counts[shardOf(`stacks/service-${i}/prod.yaml`, 8) - 1]!++;
    expect(Math.max(...counts)).toBeLessThanOrEqual(200);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
  });

  it('parses I/N with 1 ≤ I ≤ N ≤ 1000, and nothing else', () => {
    expect(parseShard('2/8')).toEqual({ index: 2, count: 8 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    expect(parseShard(`${MAX_SHARDS}/${MAX_SHARDS}`)).toEqual({ index: MAX_SHARDS, count: MAX_SHARDS });
    for (const bad of ['0/4', '5/4', '1/0', '1/1001', '1', '1/2/3', 'a/b', '-1/4', '1.5/4', '']) expect(parseShard(bad)).toBeUndefined();
  });
});
