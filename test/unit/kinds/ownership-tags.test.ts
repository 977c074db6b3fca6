import { describe, expect, it } from 'vitest';
import { planTagsPatch, userTags, type LiveTag } from '../../../src/kinds/tags-merge-patch.js';

const live: LiveTag[] = [
  { key: 'edgeform-stack', value: 'prod', read_only: false },
  { key: 'edgeform-address', value: 'cloud_floating_ip.web', read_only: false },
  { key: 'env', value: 'dev', read_only: false },
  { key: 'managed-by', value: 'platform', read_only: true },
];

describe('the tags diff and edgeform ownership tags (edgeform-*)', () => {
  it('never removes them under the authoritative policy, nor shows or counts them', () => {
    const plan = planTagsPatch(live, { env: 'prod' }, 'authoritative');
    expect(plan.patch).toEqual({ env: 'prod' });
    expect(plan.changes).toEqual([{ path: ['tags', 'env'], op: 'update', before: 'dev', after: 'prod' }]);
    expect(plan.after).toEqual({ env: 'prod' });
    expect(plan.unchanged).toBe(0);
  });

  it('removes every other user tag key by key, never with tags: null (which would remove them too)', () => {
    expect(planTagsPatch(live, {}, 'authoritative').patch).toEqual({ env: null });
    expect(planTagsPatch(live, { env: null }, 'merge').patch).toEqual({ env: null });
  });

  it('still sends tags: null where no ownership tag is on the resource', () => {
    expect(planTagsPatch(live.slice(2), {}, 'authoritative').patch).toBeNull();
  });

  it('is a no-op when only the ownership tags are beside the declared ones', () => {
    expect(planTagsPatch(live, { env: 'dev' }, 'authoritative').patch).toBeUndefined();
  });

  it('leaves them out of the user tags a plan shows', () => {
    expect(userTags(live)).toEqual({ env: 'dev' });
  });
});
