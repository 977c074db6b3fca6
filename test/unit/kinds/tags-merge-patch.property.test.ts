import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TagsPolicy } from '../../../src/kinds/fields.js';
import { applyTagsPatch } from '../../../src/emulator/tags.js';
import { planTagsPatch, userTags, type LiveTag, type TagsPatch } from '../../../src/kinds/tags-merge-patch.js';
import { applyMergePatch } from '../../helpers/merge-patch.js';

// Few keys and values, so that generated live and desired tags overlap often.
const key = fc.constantFrom('env', 'team', 'owner', 'tier', 'region', 'managed-by');
const value = fc.constantFrom('prod', 'staging', 'edge', 'gold');
const liveTags = fc.uniqueArray(fc.record({ key, value, read_only: fc.boolean() }), { selector: (t) => t.key, maxLength: 6 });
const desiredTags = fc.dictionary(key, fc.option(value, { nil: null }), { maxKeys: 6 });
const policy = fc.constantFrom<TagsPolicy>('authoritative', 'merge');
/** A tags patch as the PATCH body carries it: a flat merge patch, or null (every user tag goes). */
const tagsPatch = fc.option(fc.dictionary(key, fc.option(value, { nil: null }), { maxKeys: 6 }), { nil: null });

const readOnly = (live: readonly LiveTag[]) => live.filter((t) => t.read_only);
const readOnlyKeys = (live: readonly LiveTag[]) => new Set(readOnly(live).map((t) => t.key));

/** The user tags the stack asks for, by the policy's definition (DESIGN §4), read-only keys aside. */
function intended(live: readonly LiveTag[], desired: Record<string, string | null>, p: TagsPolicy): Record<string, string> {
  const result: Record<string, string> = p === 'merge' ? userTags(live) : {};
  for (const [k, v] of Object.entries(desired)) {
    if (readOnlyKeys(live).has(k)) continue;
    if (v === null) delete result[k];
    else result[k] = v;
  }
  return userTags(Object.entries(result).map(([k, v]) => ({ key: k, value: v, read_only: false })));
}

/** The platform's patch on the user tags, by RFC 7386 (the reference); `null` removes them all. */
const byRfc = (live: readonly LiveTag[], patch: TagsPatch) => (patch === null ? {} : (applyMergePatch(userTags(live), patch) as Record<string, string>));

describe('tags merge patch laws (property-based)', () => {
  it('the patch turns the live tags into the planned tags, which are what the stack asks for', () => {
    fc.assert(
      fc.property(liveTags, desiredTags, policy, (live, desired, p) => {
        const plan = planTagsPatch(live, desired, p);
        expect(plan.after).toEqual(intended(live, desired, p));
        const applied = plan.patch === undefined ? live : applyTagsPatch(live, plan.patch);
        expect(userTags(applied)).toEqual(plan.after);
      }),
    );
  });

  it('the emulator applies a tags patch as RFC 7386 does, and never touches read-only tags', () => {
    fc.assert(
      fc.property(liveTags, tagsPatch, (live, patch) => {
        // A patch naming a read-only key is refused by the platform (400); the emulator's
        // function is only called with patches that do not.
        fc.pre(patch === null || Object.keys(patch).every((k) => !readOnlyKeys(live).has(k)));
        const applied = applyTagsPatch(live, patch);
        expect(userTags(applied)).toEqual(byRfc(live, patch));
        expect(readOnly(applied)).toEqual(readOnly(live));
      }),
    );
  });

  it('the planned patch never names a read-only tag; asking for one is reported, whatever the value', () => {
    fc.assert(
      fc.property(liveTags, desiredTags, policy, (live, desired, p) => {
        const plan = planTagsPatch(live, desired, p);
        expect(new Set(plan.readOnlyKeys)).toEqual(new Set(Object.keys(desired).filter((k) => readOnlyKeys(live).has(k))));
        if (plan.patch) for (const k of Object.keys(plan.patch)) expect(readOnlyKeys(live).has(k)).toBe(false);
      }),
    );
  });

  it('applying a patch twice is applying it once (idempotence), so a resent patch is harmless', () => {
    fc.assert(
      fc.property(liveTags, tagsPatch, (live, patch) => {
        fc.pre(patch === null || Object.keys(patch).every((k) => !readOnlyKeys(live).has(k)));
        const once = applyTagsPatch(live, patch);
        expect(applyTagsPatch(once, patch)).toEqual(once);
        expect(applyMergePatch(byRfc(live, patch), patch ?? {})).toEqual(byRfc(live, patch));
      }),
    );
  });

  it('the patch from tags to themselves is no patch at all', () => {
    fc.assert(
      fc.property(liveTags, policy, (live, p) => {
        const plan = planTagsPatch(live, userTags(live), p);
        expect(plan.patch).toBeUndefined();
        expect(plan.changes).toEqual([]);
        expect(plan.unchanged).toBe(Object.keys(userTags(live)).length);
      }),
    );
  });

  it('planning again after the patch was applied finds nothing to do', () => {
    fc.assert(
      fc.property(liveTags, desiredTags, policy, (live, desired, p) => {
        const first = planTagsPatch(live, desired, p);
        fc.pre(first.patch !== undefined);
        const again = planTagsPatch(applyTagsPatch(live, first.patch!), desired, p);
        expect(again.patch).toBeUndefined();
        expect(again.changes).toEqual([]);
      }),
    );
  });

  it('the patch is the smallest: one entry per changed key, null only when every user tag goes', () => {
    fc.assert(
      fc.property(liveTags, desiredTags, policy, (live, desired, p) => {
        const plan = planTagsPatch(live, desired, p);
        const current = userTags(live);
        if (plan.patch === undefined) {
          expect(plan.after).toEqual(current);
          return;
        }
        expect(plan.changes.length).toBeGreaterThan(0);
        if (plan.patch === null) {
          expect(plan.after).toEqual({});
          expect(Object.keys(current).length).toBeGreaterThan(0);
          return;
        }
        expect(Object.keys(plan.after).length).toBeGreaterThan(0);
        expect(Object.keys(plan.patch).sort()).toEqual(plan.changes.map((c) => c.path[1]).sort());
        for (const [k, v] of Object.entries(plan.patch)) expect(v === null ? k in current : current[k] !== v).toBe(true);
      }),
    );
  });
});
