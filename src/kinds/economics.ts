import type { QuotaDemand } from '../plan/quota.js';
import type { ResourceChange } from '../plan/types.js';
import type { ResourceType } from './registry.js';

/**
 * A request to one of the platform's pricing routes (`/cloud/v1|v2/pricing/{p}/{r}/...`), and the
 * shape its answer has: `item` (ItemPriceResponseSerializer), `instance` (the v2 instance
 * preview, InstancePricingPreviewV2ResponseSerializer) or `loadbalancer` (the v2 balancer preview,
 * LoadBalancerPricingPreviewResponseSerializer).
 */
export interface PriceRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  answer: 'item' | 'instance' | 'loadbalancer';
  /**
   * The answer's external IP (`per_month.external_ip`) is left out of the price: a balancer whose
   * VIP is on a network the plan creates is priced without the network's id, which the preview
   * reads as an external VIP.
   */
  withoutExternalIp?: boolean;
  /**
   * Requests of one batch key are sent as one, the key's `count` summed into the body's `count`
   * (the floating IP creates of a place); the line then names every block of the batch.
   */
  batch?: { key: string };
}

/** How a change is priced: what the resource costs now (a resize, a replace) and after. */
export interface PriceAsk {
  before?: PriceRequest;
  after?: PriceRequest;
}

/** A quota check a flavor decides (vCPUs, RAM, GPUs): the vendor's check_limits route for a create, answered with the quotas it would exceed. */
export interface LimitsCheck {
  path: string;
  body: Record<string, unknown>;
  /** Checks of one key are sent as one, their `names` joined (instances of one flavor in one place). */
  key: string;
}

/**
 * What a kind tells plan about money and room, each from the planned change alone (pure): the
 * quota counters it takes, the check_limits request where a flavor decides, and the pricing
 * requests. A kind without an entry (or a field) is "not priced" / not counted.
 */
export interface KindEconomics<T extends ResourceType = ResourceType> {
  quota?(change: ResourceChange<T>): QuotaDemand[];
  checkLimits?(change: ResourceChange<T>): LimitsCheck | undefined;
  price?(change: ResourceChange<T>): PriceAsk | undefined;
}

/** A number the block gives (a reference known only after apply gives none). */
export function knownNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The place of a cloud block: `{project_id}/{region_id}`. */
export function cloudPlace(d: { project_id: number; region_id: number }): string {
  return `${d.project_id}/${d.region_id}`;
}
