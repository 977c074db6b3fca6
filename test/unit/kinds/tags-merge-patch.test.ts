import { describe, expect, it } from 'vitest';
import { applyTagsPatch } from '../../../src/emulator/tags.js';
import { planTagsPatch, userTags, type LiveTag } from '../../../src/kinds/tags-merge-patch.js';
import { applyMergePatch, type Json } from '../../helpers/merge-patch.js';

const user = (key: string, value: string): LiveTag => ({ key, value, read_only: false });
const ro = (key: string, value: string): LiveTag => ({ key, value, read_only: true });

/**
 * What the platform does with a tags patch, twice over: by RFC 7386 on the user tags, and by
 * the emulator's own implementation. Both must agree and keep the read-only tags.
 */
function platformApply(live: LiveTag[], patch: Record<string, string | null> | null): Record<string, string> {
  const byRfc = patch === null ? {} : (applyMergePatch(userTags(live), patch) as Record<string, string>);
  const byEmulator = applyTagsPatch(live, patch);
  expect(userTags(byEmulator)).toEqual(byRfc);
  expect(byEmulator.filter((t) => t.read_only)).toEqual(live.filter((t) => t.read_only));
  return byRfc;
}

describe('applyMergePatch (RFC 7386)', () => {
  // The examples of RFC 7386 appendix A.
  const cases: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('merges %j with %j into %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('removes a live tag named __proto__ with a key of the patch, not by setting its prototype', () => {
    const plan = planTagsPatch([user('__proto__', 'x'), user('env', 'a')], { env: 'a' }, 'authoritative');
    expect(plan.changes).toEqual([{ path: ['tags', '__proto__'], op: 'remove', before: 'x' }]);
    expect(Object.keys(plan.patch!)).toEqual(['__proto__']);
    expect(JSON.stringify(plan.patch)).toBe('{"__proto__":null}');
    expect(Object.getPrototypeOf(plan.patch)).toBe(Object.prototype);
  });

  it('does not modify its inputs', () => {
    const target = { a: { b: 'c' } };
    applyMergePatch(target, { a: { b: null } });
    expect(target).toEqual({ a: { b: 'c' } });
  });
});

describe('planTagsPatch, authoritative policy', () => {
  const live = [user('env', 'staging'), user('team', 'edge'), user('owner', 'alice'), ro('managed-by', 'platform')];

  it('updates changed keys and removes unlisted user tags in one patch', () => {
    const plan = planTagsPatch(live, { env: 'prod', team: 'edge' }, 'authoritative');
    expect(plan.patch).toEqual({ env: 'prod', owner: null });
    expect(plan.changes).toEqual([
      { path: ['tags', 'env'], op: 'update', before: 'staging', after: 'prod' },
      { path: ['tags', 'owner'], op: 'remove', before: 'alice' },
    ]);
    expect(plan.unchanged).toBe(1);
    expect(plan.after).toEqual({ env: 'prod', team: 'edge' });
    expect(platformApply(live, plan.patch!)).toEqual(plan.after);
  });

  it('adds a new key without resending unchanged ones', () => {
    const plan = planTagsPatch(live, { env: 'staging', team: 'edge', owner: 'alice', tier: 'gold' }, 'authoritative');
    expect(plan.patch).toEqual({ tier: 'gold' });
    expect(plan.changes).toEqual([{ path: ['tags', 'tier'], op: 'add', after: 'gold' }]);
  });

  it('sends no patch when nothing differs', () => {
    const plan = planTagsPatch(live, { env: 'staging', team: 'edge', owner: 'alice' }, 'authoritative');
    expect(plan.patch).toBeUndefined();
    expect(plan.changes).toEqual([]);
    expect(plan.unchanged).toBe(3);
  });

  it('sends tags: null when every user tag goes (read-only tags are kept by the platform)', () => {
    const plan = planTagsPatch(live, {}, 'authoritative');
    expect(plan.patch).toBeNull();
    expect(plan.changes.map((c) => c.op)).toEqual(['remove', 'remove', 'remove']);
    expect(plan.after).toEqual({});
  });

  it('treats a null value like an unlisted key', () => {
    const plan = planTagsPatch(live, { env: 'staging', team: 'edge', owner: null }, 'authoritative');
    expect(plan.patch).toEqual({ owner: null });
  });

  it('replaces all tags with deletes and adds in the same request', () => {
    const plan = planTagsPatch([user('a', '1'), user('b', '2')], { c: '3' }, 'authoritative');
    expect(plan.patch).toEqual({ a: null, b: null, c: '3' });
  });

  it('sends no patch for an empty desired set when there are no user tags', () => {
    expect(planTagsPatch([ro('managed-by', 'platform')], {}, 'authoritative').patch).toBeUndefined();
  });

  it('reports a desired read-only key, even with the same value', () => {
    const plan = planTagsPatch(live, { env: 'staging', team: 'edge', owner: 'alice', 'managed-by': 'platform' }, 'authoritative');
    expect(plan.readOnlyKeys).toEqual(['managed-by']);
    expect(plan.patch).toBeUndefined();
  });
});

describe('planTagsPatch, merge policy', () => {
  const live = [user('env', 'prod'), user('cost-center', 'cc-17'), ro('managed-by', 'platform')];

  it('manages only listed keys and leaves unlisted tags alone', () => {
    const plan = planTagsPatch(live, { team: 'media', 'cost-center': null }, 'merge');
    expect(plan.patch).toEqual({ 'cost-center': null, team: 'media' });
    expect(plan.after).toEqual({ env: 'prod', team: 'media' });
    expect(plan.unchanged).toBe(1);
    expect(platformApply(live, plan.patch!)).toEqual(plan.after);
  });

  it('ignores a null for a key that is already absent', () => {
    expect(planTagsPatch(live, { gone: null }, 'merge').patch).toBeUndefined();
  });

  it('sends tags: null when explicit nulls remove every user tag', () => {
    expect(planTagsPatch(live, { env: null, 'cost-center': null }, 'merge').patch).toBeNull();
  });

  it('reports a read-only key listed with null (it cannot be removed)', () => {
    expect(planTagsPatch(live, { 'managed-by': null }, 'merge').readOnlyKeys).toEqual(['managed-by']);
  });
});

describe('planTagsPatch always converges', () => {
  // A small exhaustive check: for every live set and desired set over a few keys and values,
  // applying the planned patch the platform's way yields exactly the planned user tags.
  const keys = ['a', 'b', 'c'];
  const values = [undefined, 'x', 'y'] as const;
  const desiredValues = [undefined, null, 'x', 'y'] as const;
  function* combos<T>(choices: readonly T[], n: number): Generator<T[]> {
    if (n === 0) return yield [];
    for (const c of choices) for (const rest of combos(choices, n - 1)) yield [c, ...rest];
  }
  it('for every combination of three keys under both policies', () => {
    let checked = 0;
    for (const liveValues of combos(values, keys.length)) {
      const live = keys.flatMap((k, i) => (liveValues[i] === undefined ? [] : [user(k, liveValues[i]!)]));
      for (const want of combos(desiredValues, keys.length)) {
        const desired: Record<string, string | null> = {};
        keys.forEach((k, i) => {
          if (want[i] !== undefined) desired[k] = want[i]!;
        });
        for (const policy of ['authoritative', 'merge'] as const) {
          const plan = planTagsPatch(live, desired, policy);
          const result = plan.patch === undefined ? userTags(live) : platformApply(live, plan.patch);
          expect(result).toEqual(plan.after);
          if (plan.patch === undefined) expect(plan.changes).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBe(27 * 64 * 2);
  });
});

describe('planTagsPatch orders and bounds what it reads', () => {
  it('lists the changes and the resulting tags in code-unit order of their keys, whatever the order of the live and desired tags', () => {
    const live = [user('zeta', '1'), user('Beta', '1'), user('alpha', '1'), user('mid', '1')];
    const plan = planTagsPatch(live, { mid: '2', yak: 'new', alpha: null, Apple: 'new', zeta: '1', Beta: '1' }, 'merge');
    expect(plan.changes.map((c) => [c.path[1], c.op])).toEqual([
      ['Apple', 'add'],
      ['alpha', 'remove'],
      ['mid', 'update'],
      ['yak', 'add'],
    ]);
    expect(Object.keys(plan.after)).toEqual(['Apple', 'Beta', 'mid', 'yak', 'zeta']);
  });

  it('gives the user tags of a live list in code-unit order of their keys', () => {
    expect(Object.keys(userTags([user('b', '1'), user('B', '1'), user('a', '1'), ro('0', 'x')]))).toEqual(['B', 'a', 'b']);
  });

  it("never sets or removes edgeform's ownership tags, even when the desired tags name one", () => {
    const live = [user('edgeform-stack', 'prod'), user('env', 'a')];
    const plan = planTagsPatch(live, { 'edgeform-stack': 'other', 'edgeform-new': 'x', env: 'a' }, 'authoritative');
    expect(plan.patch).toBeUndefined();
    expect(plan.changes).toEqual([]);
    expect(plan.after).toEqual({ env: 'a' });
  });

  it("reads only the desired map's own keys, not what it inherits", () => {
    const desired = Object.create({ inherited: 'x' }) as Record<string, string>;
    desired.env = 'a';
    const plan = planTagsPatch([], desired, 'authoritative');
    expect(plan.after).toEqual({ env: 'a' });
    expect(plan.patch).toEqual({ env: 'a' });
  });
});
