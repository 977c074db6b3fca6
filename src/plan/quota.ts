import type { Diagnostic } from '../config/diagnostics.js';

/**
 * What one planned change takes of a quota counter (`floating_count` in region 76, 1): counted
 * from the block alone, before anything is sent. A growth (a volume extended from 10 to 50 GiB)
 * takes the difference.
 */
export interface QuotaDemand {
  address: string;
  /** A region id for a regional quota (RegionalQuotasSerializer), `global` for the account's (GlobalQuotasSerializer). */
  scope: number | 'global';
  /** The quota's name without `_limit` / `_usage`: `floating_count`, `volume_size`, `keypair_count`. */
  counter: string;
  amount: number;
}

/** The account's quotas, limits and usage by name (`floating_count_limit`, `floating_count_usage`), as GET /cloud/v2/client_quotas gives them. */
export interface AccountQuota {
  global: Readonly<Record<string, number>> | undefined;
  regional: ReadonlyMap<number, Readonly<Record<string, number>>>;
}

/** What a counter's name means to a reader, for the error (`floating_count` → `floating IPs`). */
const COUNTER_NOUNS: Readonly<Record<string, string>> = {
  floating_count: 'floating IPs',
  network_count: 'networks',
  subnet_count: 'subnets',
  firewall_count: 'security groups',
  volume_count: 'volumes',
  volume_size: 'volume GiB',
  vm_count: 'instances',
  cpu_count: 'vCPUs',
  ram: 'RAM MiB',
  cluster_count: 'Kubernetes clusters',
  loadbalancer_count: 'load balancers',
  keypair_count: 'SSH keys',
};

/** The room a quota leaves: its limit less its usage, or undefined when the answer does not give the limit. */
export function quotaRoom(counts: Readonly<Record<string, number>> | undefined, counter: string): { limit: number; usage: number } | undefined {
  const limit = counts?.[`${counter}_limit`];
  if (limit === undefined) return undefined;
  return { limit, usage: counts?.[`${counter}_usage`] ?? 0 };
}

/** The demands summed per (scope, counter), in first-seen order, with the addresses that make them. */
export function sumDemands(demands: readonly QuotaDemand[]): Array<{ scope: number | 'global'; counter: string; amount: number; addresses: string[] }> {
  const sums = new Map<string, { scope: number | 'global'; counter: string; amount: number; addresses: string[] }>();
  for (const d of demands) {
    if (d.amount <= 0) continue;
    const key = `${d.scope}/${d.counter}`;
    const sum = sums.get(key) ?? { scope: d.scope, counter: d.counter, amount: 0, addresses: [] };
    sum.amount += d.amount;
    if (!sum.addresses.includes(d.address)) sum.addresses.push(d.address);
    sums.set(key, sum);
  }
  return [...sums.values()];
}

/** `cloud_floating_ip.a, cloud_floating_ip.b and 3 more`. */
function listAddresses(addresses: readonly string[]): string {
  const shown = addresses.slice(0, 3).join(', ');
  return addresses.length > 3 ? `${shown} and ${addresses.length - 3} more` : shown;
}

/**
 * The plan's demands held against the account's quotas: an error for each counter of a region
 * (or of the account) whose demand is more than its limit less its usage, naming the counter,
 * the limit, the usage, the request and what is missing, with the hint to ask for more
 * (a cloud_quota_limit_request block). A counter the answer does not give is not checked.
 */
export function checkQuotas(demands: readonly QuotaDemand[], quota: AccountQuota): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const sum of sumDemands(demands)) {
    const counts = sum.scope === 'global' ? quota.global : quota.regional.get(sum.scope);
    const room = quotaRoom(counts, sum.counter);
    if (room === undefined) continue;
    const free = Math.max(0, room.limit - room.usage);
    if (sum.amount <= free) continue;
    const where = sum.scope === 'global' ? 'the account' : `region ${sum.scope}`;
    const noun = COUNTER_NOUNS[sum.counter] ?? sum.counter;
    const limitKey = `${sum.counter}_limit`;
    problems.push({
      severity: 'error',
      code: 'quota-exceeded',
      summary: `the plan needs ${sum.amount} more ${noun} in ${where}, but its quota ${limitKey} is ${room.limit} with ${room.usage} used: ${sum.amount - free} missing`,
      detail:
        `Requested by ${listAddresses(sum.addresses)}. Nothing was sent. Ask for a higher limit with a cloud_quota_limit_request block ` +
        `(requested_limits: ${sum.scope === 'global' ? `global_limits: { ${limitKey}: ${room.usage + sum.amount} }` : `regional_limits: [{ region_id: ${sum.scope}, ${limitKey}: ${room.usage + sum.amount} }]`}), or plan fewer resources.`,
      ...(sum.addresses.length === 1 ? { address: sum.addresses[0]! } : {}),
    });
  }
  return problems;
}
