import { describe, expect, it } from 'vitest';
import { describeQuote, formatDifference, formatMoney, summarizeCost, type PriceQuote } from '../../../src/plan/cost.js';
import { costSummary } from '../../../src/render/cost-text.js';

const eur = (per_month: number | null, status: PriceQuote['status'] = 'show'): PriceQuote => ({
  status,
  currency: status === 'show' ? 'EUR' : null,
  per_month,
  without_discount_per_month: per_month,
  discount_percent: 0,
  tax_percent: 0,
});

describe('summarizeCost: totals per currency, and what is not priced', () => {
  it('keeps two decimals on a difference with float residue, and the digits of a small price', () => {
    expect(formatDifference(32.12 - 17.52)).toBe('+14.60');
    expect(formatMoney(0.0365)).toBe('0.0365');
    expect(formatMoney(29.2)).toBe('29.20');
  });

  it('totals before, after and the difference per currency', () => {
    const cost = summarizeCost(
      [
        { addresses: ['a'], type: 'cloud_volume', action: 'create', after: eur(1.46) },
        { addresses: ['b'], type: 'cloud_instance', action: 'update', before: eur(29.2), after: eur(58.4) },
        { addresses: ['c'], type: 'cloud_instance', action: 'create', after: { ...eur(10), currency: 'USD' } },
      ],
      ['cloud_network', 'cloud_network', 'dns_rrset'],
    );
    expect(cost.totals).toEqual([
      { currency: 'EUR', before: 29.2, after: 59.86, difference: 30.66 },
      { currency: 'USD', before: 0, after: 10, difference: 10 },
    ]);
    expect(cost.not_priced).toEqual(['cloud_network', 'dns_rrset']);
    expect(costSummary(cost)).toBe('Monthly cost of the changes: 29.20 → 59.86 EUR (+30.66); 0.00 → 10.00 USD (+10.00) (not priced: cloud_network, dns_rrset)');
  });

  it('never turns a hidden price, an error or a null price into 0', () => {
    const cost = summarizeCost(
      [
        { addresses: ['a'], type: 'cloud_volume', action: 'create', after: eur(null, 'hide') },
        { addresses: ['b'], type: 'cloud_volume', action: 'create', after: eur(null, 'error') },
        { addresses: ['c'], type: 'cloud_volume', action: 'create', after: eur(null) },
      ],
      [],
    );
    expect(cost).toMatchObject({ totals: [], hidden: true, unknown: 2 });
    expect(describeQuote(eur(null, 'hide'))).toBe("hidden by the account's plan");
    expect(describeQuote(eur(null))).toBe('price unknown');
    expect(costSummary(cost)).toBe("Monthly cost of the changes: no price shown (some prices hidden by the account's plan; 2 prices unknown)");
  });
});
