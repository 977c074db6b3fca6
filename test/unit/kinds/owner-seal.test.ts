import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { judgedOwner, ownershipPatch, ownershipTags } from '../../../src/kinds/cloud-owned.js';
import { createOwnerSeal, ownerSealFromEnv, UNKEYED } from '../../../src/kinds/owner-seal.js';
import type { LiveTag } from '../../../src/kinds/tags-merge-patch.js';

const KEY = 'k3y-for-owner-marks-0123456789';
const OLD = 'old-key-for-owner-marks-987654';
const subject = { type: 'cloud_floating_ip', stack: 'prod', address: 'cloud_floating_ip.web', identity: '1/76' };
const here = { project_id: 1, region_id: 76 };
const ref = (seal = createOwnerSeal(KEY)) => ({ address: 'cloud_floating_ip.web', stack: 'prod', seal });
const live = (tags: Record<string, string>): LiveTag[] => Object.entries(tags).map(([key, value]) => ({ key, value, read_only: false }));

describe('owner marks (EDGEFORM_OWNER_KEY)', () => {
  it('makes a short, versioned, deterministic mark that only the key makes', () => {
    const mark = createOwnerSeal(KEY).mark(subject)!;
    expect(mark).toMatch(/^v1\.[A-Za-z0-9_-]{22}$/);
    expect(createOwnerSeal(KEY).mark(subject)).toBe(mark);
    expect(createOwnerSeal(OLD).mark(subject)).not.toBe(mark);
    for (const field of ['type', 'stack', 'address', 'identity'] as const) {
      expect(createOwnerSeal(KEY).mark({ ...subject, [field]: `${subject[field]}x` }), field).not.toBe(mark);
    }
  });

  it('judges a mark: valid, made with the previous key, missing, or invalid (forged or copied)', () => {
    const seal = createOwnerSeal(KEY, OLD);
    expect(seal.judge(subject, seal.mark(subject))).toBe('valid');
    expect(seal.judge(subject, createOwnerSeal(OLD).mark(subject))).toBe('previous');
    expect(seal.judge(subject, undefined)).toBe('missing');
    expect(seal.judge(subject, '')).toBe('missing');
    expect(seal.judge(subject, 'v1.AAAAAAAAAAAAAAAAAAAAAA')).toBe('invalid');
    expect(seal.judge({ ...subject, identity: '1/77' }, seal.mark(subject))).toBe('invalid');
    expect(createOwnerSeal(KEY).judge(subject, createOwnerSeal(OLD).mark(subject))).toBe('invalid');
    expect(UNKEYED.judge(subject, 'anything')).toBeUndefined();
    expect(UNKEYED.mark(subject)).toBeUndefined();
  });

  it('never shows its key: not as a property, not when printed or serialised', () => {
    const seal = ownerSealFromEnv({ EDGEFORM_OWNER_KEY: KEY, EDGEFORM_OWNER_KEY_PREVIOUS: OLD });
    for (const text of [JSON.stringify(seal), inspect(seal, { depth: 10, showHidden: true }), String(Object.values(seal))]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(OLD);
    }
  });

  it('reads the key from the environment: none is unkeyed; a short key or a previous one alone is refused without showing it', () => {
    expect(ownerSealFromEnv({}).keyed).toBe(false);
    expect(ownerSealFromEnv({ EDGEFORM_OWNER_KEY: '   ' }).keyed).toBe(false);
    expect(ownerSealFromEnv({ EDGEFORM_OWNER_KEY: ` ${KEY}\n` }).mark(subject)).toBe(createOwnerSeal(KEY).mark(subject));
    expect(() => ownerSealFromEnv({ EDGEFORM_OWNER_KEY: 'short-key' })).toThrow(/^EDGEFORM_OWNER_KEY must be at least 16 characters/);
    expect(() => ownerSealFromEnv({ EDGEFORM_OWNER_KEY: 'short-key' })).not.toThrow(/short-key/);
    expect(() => ownerSealFromEnv({ EDGEFORM_OWNER_KEY: KEY, EDGEFORM_OWNER_KEY_PREVIOUS: 'tiny' })).toThrow(/^EDGEFORM_OWNER_KEY_PREVIOUS must be at least/);
    expect(() => ownerSealFromEnv({ EDGEFORM_OWNER_KEY_PREVIOUS: OLD })).toThrow(/EDGEFORM_OWNER_KEY_PREVIOUS is set without EDGEFORM_OWNER_KEY/);
  });
});

describe('cloud ownership tags with owner marks', () => {
  it('a create writes the mark beside the stack and address tags; unkeyed, the two tags as before', () => {
    const tags = ownershipTags('cloud_floating_ip', here, ref());
    expect(tags).toEqual({ 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web', 'edgeform-mark': createOwnerSeal(KEY).mark(subject) });
    expect(ownershipTags('cloud_floating_ip', here, { address: 'cloud_floating_ip.web', stack: 'prod' })).toEqual({
      'edgeform-stack': 'prod',
      'edgeform-address': 'cloud_floating_ip.web',
    });
  });

  it('a mark copied to another place, kind or address does not verify; forged tags without a mark are missing one', () => {
    const seal = createOwnerSeal(KEY);
    const tags = live(ownershipTags('cloud_floating_ip', here, ref(seal)));
    expect(judgedOwner(tags, 'cloud_floating_ip', here, seal)?.mark).toBe('valid');
    expect(judgedOwner(tags, 'cloud_floating_ip', { project_id: 1, region_id: 77 }, seal)?.mark).toBe('invalid');
    expect(judgedOwner(tags, 'cloud_volume', here, seal)?.mark).toBe('invalid');
    const readdressed = tags.map((t) => (t.key === 'edgeform-address' ? { ...t, value: 'cloud_floating_ip.other' } : t));
    expect(judgedOwner(readdressed, 'cloud_floating_ip', here, seal)?.mark).toBe('invalid');
    expect(judgedOwner(live({ 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web' }), 'cloud_floating_ip', here, seal)?.mark).toBe('missing');
    expect(judgedOwner(tags, 'cloud_floating_ip', here, undefined)).toEqual({ stack: 'prod', address: 'cloud_floating_ip.web' });
  });

  it('a claim re-makes a mark of the previous key or a missing one, moves rewrite it, and unkeyed moves drop the old one', () => {
    const old = createOwnerSeal(OLD);
    const rotating = createOwnerSeal(KEY, OLD);
    const oldTags = live(ownershipTags('cloud_floating_ip', here, ref(old)));
    expect(ownershipPatch(oldTags, 'cloud_floating_ip', here, ref(rotating))?.patch).toEqual({ 'edgeform-mark': rotating.mark(subject) });
    expect(ownershipPatch(live(ownershipTags('cloud_floating_ip', here, ref(rotating))), 'cloud_floating_ip', here, ref(rotating))).toBeUndefined();
    const moved = ownershipPatch(oldTags, 'cloud_floating_ip', here, { ...ref(rotating), address: 'cloud_floating_ip.api' });
    expect(moved?.patch).toEqual({
      'edgeform-stack': 'prod',
      'edgeform-address': 'cloud_floating_ip.api',
      'edgeform-mark': rotating.mark({ ...subject, address: 'cloud_floating_ip.api' }),
    });
    expect(ownershipPatch(oldTags, 'cloud_floating_ip', here, { address: 'cloud_floating_ip.api', stack: 'prod' })?.patch).toEqual({
      'edgeform-stack': 'prod',
      'edgeform-address': 'cloud_floating_ip.api',
      'edgeform-mark': null,
    });
    expect(ownershipPatch(oldTags, 'cloud_floating_ip', here, { address: 'cloud_floating_ip.web', stack: 'prod' })).toBeUndefined();
  });
});
