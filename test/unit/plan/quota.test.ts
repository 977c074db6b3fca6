import { describe, expect, it } from 'vitest';
import { checkQuotas, sumDemands } from '../../../src/plan/quota.js';

describe('checkQuotas: the plan against limit less usage', () => {
  const quota = { global: { keypair_count_limit: 5, keypair_count_usage: 5 }, regional: new Map([[76, { floating_count_limit: 10, floating_count_usage: 8 }]]) };

  it('sums demands per counter and place, and refuses only what exceeds the room left', () => {
    const fits = checkQuotas(
      [
        { address: 'a', scope: 76, counter: 'floating_count', amount: 1 },
        { address: 'b', scope: 76, counter: 'floating_count', amount: 1 },
      ],
      quota,
    );
    expect(fits).toEqual([]);
    const over = checkQuotas(
      ['a', 'b', 'c'].map((address) => ({ address, scope: 76, counter: 'floating_count', amount: 1 })),
      quota,
    );
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ severity: 'error', code: 'quota-exceeded' });
    expect(over[0]!.summary).toBe('the plan needs 3 more floating IPs in region 76, but its quota floating_count_limit is 10 with 8 used: 1 missing');
    expect(over[0]!.detail).toContain('Requested by a, b, c');
    expect(over[0]!.detail).toContain('regional_limits: [{ region_id: 76, floating_count_limit: 11 }]');
  });

  it('checks global quotas, and leaves unchecked a counter or region the answer does not give', () => {
    const [keys] = checkQuotas([{ address: 'cloud_ssh_key.k', scope: 'global', counter: 'keypair_count', amount: 1 }], quota);
    expect(keys).toMatchObject({ address: 'cloud_ssh_key.k', summary: expect.stringContaining('in the account') });
    expect(keys!.detail).toContain('global_limits: { keypair_count_limit: 6 }');
    expect(checkQuotas([{ address: 'x', scope: 77, counter: 'floating_count', amount: 99 }], quota)).toEqual([]);
    expect(checkQuotas([{ address: 'x', scope: 76, counter: 'network_count', amount: 99 }], quota)).toEqual([]);
  });

  it('drops demands of nothing', () => {
    expect(sumDemands([{ address: 'x', scope: 76, counter: 'volume_size', amount: 0 }])).toEqual([]);
  });
});
