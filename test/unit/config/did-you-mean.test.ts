import { describe, expect, it } from 'vitest';
import { didYouMean, suggest } from '../../../src/config/did-you-mean.js';

describe('suggest', () => {
  const fields = ['project_id', 'region_id', 'floating_ip_id', 'tags', 'tags_policy', 'ensure'];

  it('suggests the closest field for a typo', () => {
    expect(suggest('tag_policy', fields)).toBe('tags_policy');
    expect(suggest('regoin_id', fields)).toBe('region_id');
  });

  it('ignores case when comparing, and returns the candidate as spelled', () => {
    expect(suggest('Project_ID', fields)).toBe('project_id');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(suggest('flavor', fields)).toBeUndefined();
    expect(suggest('x', [])).toBeUndefined();
  });

  it('formats a suffix for a summary, or nothing', () => {
    expect(didYouMean('ensur', fields)).toBe('; did you mean "ensure"?');
    expect(didYouMean('completely_different', fields)).toBe('');
  });
});
