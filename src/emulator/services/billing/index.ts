import { must } from '../../../errors.js';
import { z } from 'zod';
import { CLOUD_PRODUCT } from '../../cloud-common.js';
import { int } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { billingRoutes } from './routes.js';

/** What the account's price answers say about their prices (PriceDisplayStatus). */
export const PRICE_STATUSES = ['show', 'hide', 'error'] as const;

/**
 * The emulator's price list: hourly prices (a month is 730 hours, as the platform bills), the
 * currency, tax and discount every price answer carries, and the status the account's plan gives
 * them (`hide`: the plan hides prices, every price null).
 */
export interface PriceList {
  currency_code: 'EUR' | 'USD' | 'AZN';
  price_status: (typeof PRICE_STATUSES)[number];
  tax_percent: number;
  discount_percent: number;
  floating_ip_per_hour: number;
  /** Per GiB and hour, by volume type. */
  volume_gib_per_hour: Record<string, number>;
  /** Per vCPU and hour, and per GiB of RAM and hour, for a flavor not listed in `flavor_per_hour`. */
  vcpu_per_hour: number;
  ram_gib_per_hour: number;
  flavor_per_hour: Record<string, number>;
  /** The external (public) IP of a balancer whose VIP is on the external network, per hour. */
  external_ip_per_hour: number;
}

/** Per region, the limits the account's quotas have (`floating_count_limit: 3`); an unlisted limit is the emulator's default. */
export interface QuotaLimits {
  global: Record<string, number>;
  regional: Map<number, Record<string, number>>;
}

/** The billing service's slice of the state: the price list and the quota limits set by fixtures (or a test). */
export interface BillingSlice {
  priceList: PriceList;
  quotaLimits: QuotaLimits;
}

const priceListFixture = z.strictObject({
  currency_code: z.enum(['EUR', 'USD', 'AZN']).default('EUR'),
  price_status: z.enum(PRICE_STATUSES).default('show'),
  tax_percent: z.number().min(0).default(0),
  discount_percent: z.number().min(0).max(100).default(0),
  floating_ip_per_hour: z.number().min(0).default(0.005),
  volume_gib_per_hour: z
    .record(z.string(), z.number().min(0))
    .default({ standard: 0.0001, ssd_hiiops: 0.0002, cold: 0.00005, ultra: 0.0004, ssd_lowlatency: 0.0003, ssd_local: 0.0002 }),
  vcpu_per_hour: z.number().min(0).default(0.01),
  ram_gib_per_hour: z.number().min(0).default(0.005),
  flavor_per_hour: z.record(z.string(), z.number().min(0)).default({}),
  external_ip_per_hour: z.number().min(0).default(0.004),
});

const quotaLimitsFixture = z.strictObject({
  global: z.record(z.string().regex(/_limit$/), int.min(0)).default({}),
  regional: z.array(z.record(z.string(), int.min(0)).refine((x) => typeof x.region_id === 'number', 'needs region_id')).default([]),
});

/** The default price list (every fixture field's default). */
export function defaultPriceList(): PriceList {
  return priceListFixture.parse({});
}

/**
 * Prices, quota checks and costs (cloud billing): the pricing previews (floating IPs, volumes,
 * instances v2, an instance's current price, load balancers v2), the instance and load balancer
 * check_limits routes, and the cost
 * report totals. Fixtures: `price_list` (see PriceList) and `quota_limits` (the limits
 * GET /cloud/v2/client_quotas reports, usage being counted from the world).
 */
export const billingService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { price_list: priceListFixture.default(priceListFixture.parse({})), quota_limits: quotaLimitsFixture.default({ global: {}, regional: [] }) },
  createState: (): BillingSlice => ({ priceList: defaultPriceList(), quotaLimits: { global: {}, regional: new Map() } }),
  load(slice, { price_list, quota_limits }) {
    slice.priceList = structuredClone(price_list);
    slice.quotaLimits = {
      global: { ...quota_limits.global },
      regional: new Map(quota_limits.regional.map(({ region_id, ...limits }) => [must(region_id, 'region_id'), limits])),
    };
  },
  dump: (state) => ({
    price_list: state.priceList,
    quota_limits: { global: state.quotaLimits.global, regional: [...state.quotaLimits.regional].map(([region_id, l]) => ({ region_id, ...l })) },
  }),
  routes: billingRoutes,
  mutationKinds: [],
  taskTargets: [],
});
