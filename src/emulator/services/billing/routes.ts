import { must } from '../../../errors.js';
import { cloudError, cloudObjectBody } from '../../cloud-common.js';
import { isPlainObject, parseDate } from '../../format.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { Tag } from '../../tags.js';
import { flavorSize } from '../instances/flavors.js';
import { hasExternalVip } from '../load-balancers/model.js';
import { accountQuotas, type Needs } from '../projects/routes.js';
import type { PriceList } from './index.js';

type Ctx = RouteContext<Needs>;

/** Hours in a billed month (the platform's `unit_size_month` for hourly resources: 730 on average; 744 for a 31-day month). */
export const HOURS_PER_MONTH = 730;

const round = (n: number, places = 5) => Math.round(n * 10 ** places) / 10 ** places;

/** A price answer (ItemPriceResponseSerializer) for an hourly price: every price null when the account's plan hides them or pricing fails. */
function itemPrice(list: PriceList, perHour: number): Record<string, unknown> {
  const shown = list.price_status === 'show';
  const withTax = (n: number) => round(n * (1 + list.tax_percent / 100));
  const discounted = (n: number) => n * (1 - list.discount_percent / 100);
  return {
    currency_code: shown ? list.currency_code : null,
    discount_percent: shown ? list.discount_percent : null,
    price_per_hour: shown ? withTax(discounted(perHour)) : null,
    price_per_month: shown ? withTax(discounted(perHour) * HOURS_PER_MONTH) : null,
    price_without_discount_per_month: shown ? withTax(perHour * HOURS_PER_MONTH) : null,
    price_status: list.price_status,
    tax_percent: list.tax_percent,
  };
}

/** The hourly price of a flavor: listed, else its vCPUs and RAM priced. */
function flavorPerHour(ctx: Ctx, flavorId: string): number {
  const list = ctx.state.priceList;
  const listed = list.flavor_per_hour[flavorId];
  if (listed !== undefined) return listed;
  const flavor = flavorSize(ctx.state, flavorId);
  return flavor.vcpus * list.vcpu_per_hour + (flavor.ram / 1024) * list.ram_gib_per_hour;
}

const VOLUME_SOURCES = ['image', 'new-volume', 'snapshot'] as const;
const INSTANCE_VOLUME_SOURCES = ['apptemplate', 'existing-volume', 'image', 'new-volume', 'snapshot'] as const;

/** A volume's hourly price from a pricing request's `size` and `type_name` (standard when null); 400 on a malformed one. */
function volumePerHour(ctx: Ctx, body: Record<string, unknown>, where: string, sources: readonly string[]): number {
  if (body.source === undefined) fail(cloudError(400, `${where}source: Field required`, ctx.requestId));
  if (typeof body.source !== 'string' || !sources.includes(body.source))
    fail(cloudError(400, `${where}source: Input should be ${sources.map((s) => `'${s}'`).join(', ')}`, ctx.requestId));
  const size = body.size ?? null;
  if (size !== null && (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 102400))
    fail(cloudError(400, `${where}size: Input should be a valid integer from 1 to 102400`, ctx.requestId));
  const type = body.type_name ?? null;
  const rates = ctx.state.priceList.volume_gib_per_hour;
  if (type !== null && (typeof type !== 'string' || rates[type] === undefined))
    fail(cloudError(400, `${where}type_name: Input should be one of ${Object.keys(rates).join(', ')}`, ctx.requestId));
  if (body.source === 'existing-volume') return 0;
  return (size ?? 0) * must(rates[type ?? 'standard'], "the volume type's rate");
}

/** POST /cloud/v1/pricing/{p}/{r}/floating_ips: `{count}` floating IPs' price. */
function floatingIpPrice(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  if (body.count === undefined) fail(cloudError(400, 'count: Field required', ctx.requestId));
  if (typeof body.count !== 'number' || !Number.isInteger(body.count) || body.count < 0) fail(cloudError(400, 'count: Input should be a valid integer', ctx.requestId));
  return jsonReply(200, itemPrice(ctx.state.priceList, body.count * ctx.state.priceList.floating_ip_per_hour));
}

/** POST /cloud/v1/pricing/{p}/{r}/volumes (VolumeOrSnapshotPricingRequestSerializer). */
function volumePrice(ctx: Ctx): Reply {
  return jsonReply(200, itemPrice(ctx.state.priceList, volumePerHour(ctx, cloudObjectBody(ctx), '', VOLUME_SOURCES)));
}

/** The instance count of a pricing or check_limits request: its `names` or `name_templates` (1 when neither). */
function instanceCount(ctx: Ctx, body: Record<string, unknown>): number {
  for (const key of ['names', 'name_templates']) {
    const value = body[key];
    if (value === undefined) continue;
    if (!Array.isArray(value)) fail(cloudError(400, `${key}: Input should be a valid list`, ctx.requestId));
    return Math.max(1, value.length);
  }
  return 1;
}

/** The new floating IPs a create's interfaces ask for (`floating_ip: {source: new}`). */
function newFloatingIps(ctx: Ctx, interfaces: unknown): number {
  if (!Array.isArray(interfaces)) fail(cloudError(400, 'interfaces: Input should be a valid list', ctx.requestId));
  return interfaces.filter((i) => isPlainObject(i) && isPlainObject(i.floating_ip) && i.floating_ip.source === 'new').length;
}

/** How many of a create's interfaces (already checked to be a list) are on the external network: each takes an external IP. */
function externalInterfaces(interfaces: unknown): number {
  return Array.isArray(interfaces) ? interfaces.filter((i) => isPlainObject(i) && i.type === 'external').length : 0;
}

function volumesOf(ctx: Ctx, body: Record<string, unknown>): Array<Record<string, unknown>> {
  const volumes = body.volumes ?? [];
  if (!Array.isArray(volumes) || !volumes.every(isPlainObject)) fail(cloudError(400, 'volumes: Input should be a valid list of objects', ctx.requestId));
  return volumes;
}

/** The totals every v2 price preview carries (instances, load balancers), and how its parts are priced: discounted, with tax, null when not shown. */
function previewPricing(list: PriceList) {
  const shown = list.price_status === 'show';
  const tax = (n: number) => round(n * (1 + list.tax_percent / 100));
  const off = (n: number) => n * (1 - list.discount_percent / 100);
  return {
    shown,
    part: (perHour: number, hours: number) => (shown ? tax(off(perHour) * hours) : null),
    totals: (perHour: number) => ({
      price_status: list.price_status,
      price_without_discount_per_month: shown ? tax(perHour * HOURS_PER_MONTH) : null,
      tax_percent: list.tax_percent,
      total_price_per_hour: shown ? tax(off(perHour)) : null,
      total_price_per_month: shown ? tax(off(perHour) * HOURS_PER_MONTH) : null,
    }),
  };
}

/** POST /cloud/v2/pricing/{p}/{r}/instances (InstancePricingPreviewV2ResponseSerializer): flavor, new floating IPs and volumes, per month and hour. */
function instancePreview(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  if (typeof body.flavor !== 'string') fail(cloudError(400, 'flavor: Field required', ctx.requestId));
  if (body.interfaces === undefined) fail(cloudError(400, 'interfaces: Field required', ctx.requestId));
  const count = instanceCount(ctx, body);
  const list = ctx.state.priceList;
  const flavor = flavorPerHour(ctx, body.flavor) * count;
  const fips = newFloatingIps(ctx, body.interfaces) * list.floating_ip_per_hour * count;
  const byType: Record<string, number> = {};
  volumesOf(ctx, body).forEach((v, i) => {
    const type = typeof v.type_name === 'string' ? v.type_name : 'standard';
    byType[type] = (byType[type] ?? 0) + volumePerHour(ctx, v, `volumes.${i}.`, INSTANCE_VOLUME_SOURCES) * count;
  });
  const { shown, part, totals } = previewPricing(list);
  const detail = (hours: number) =>
    shown
      ? {
          flavor: part(flavor, hours),
          floating_ip: part(fips, hours),
          external_ip: null,
          volumes: {
            cold: null,
            ssd_hiiops: null,
            ssd_lowlatency: null,
            standard: null,
            ultra: null,
            ...Object.fromEntries(Object.entries(byType).map(([t, n]) => [t, part(n, hours)])),
          },
        }
      : { flavor: null, floating_ip: null, external_ip: null, volumes: null };
  const total = flavor + fips + Object.values(byType).reduce((a, b) => a + b, 0);
  return jsonReply(200, {
    currency_code: shown ? list.currency_code : null,
    discount_percent: String(list.discount_percent),
    discount_details: [],
    per_gb: null,
    per_hour: detail(1),
    per_month: detail(HOURS_PER_MONTH),
    ...totals(total),
    vm_count: count,
  });
}

/** GET /cloud/v1/pricing/{p}/{r}/instances/{instance_id}: the current price of an instance's flavor; 404 when there is no such instance. */
function instancePrice(ctx: Ctx): Reply {
  const instance = ctx.state.instances.get(must(ctx.params.instance_id, 'ctx.params.instance_id'));
  if (!instance || instance.project_id !== Number(ctx.params.project_id) || instance.region_id !== Number(ctx.params.region_id))
    fail(cloudError(404, `Instance ${ctx.params.instance_id} not found`, ctx.requestId, 'NotFound'));
  return jsonReply(200, itemPrice(ctx.state.priceList, flavorPerHour(ctx, instance.flavor_id)));
}

/**
 * POST /cloud/v2/instances/{p}/{r}/check_limits (RegionalDiffQuotasSchema): only the quotas the
 * requested instances would exceed, each as `_limit`, `_requested` and `_usage`: instances, vCPUs,
 * RAM (MiB), new floating IPs, external IPs (an external interface each), and the volumes made
 * with them (count and GiB); `{}` when they fit.
 */
function checkInstanceLimits(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  if (typeof body.flavor !== 'string') fail(cloudError(400, 'flavor: Field required', ctx.requestId));
  const count = instanceCount(ctx, body);
  const flavor = flavorSize(ctx.state, body.flavor);
  const volumes = volumesOf(ctx, body).filter((v) => v.source !== 'existing-volume');
  const requested: Record<string, number> = {
    vm_count: count,
    cpu_count: flavor.vcpus * count,
    ram: flavor.ram * count,
    floating_count: body.interfaces === undefined ? 0 : newFloatingIps(ctx, body.interfaces) * count,
    external_ip_count: body.interfaces === undefined ? 0 : externalInterfaces(body.interfaces) * count,
    volume_count: volumes.length * count,
    volume_size: volumes.reduce((n, v) => n + (typeof v.size === 'number' ? v.size : 0), 0) * count,
  };
  return jsonReply(200, exceededQuotas(ctx, requested));
}

/** A balancer flavor of the region's catalogue, priced from the list (`flavor_per_hour`) or by its vCPUs and RAM; 400 for a flavor the region lacks. */
function balancerFlavorPerHour(ctx: Ctx, body: Record<string, unknown>): number {
  if (body.flavor === undefined) fail(cloudError(400, 'flavor: Field required', ctx.requestId));
  if (typeof body.flavor !== 'string') fail(cloudError(400, 'flavor: Input should be a valid string', ctx.requestId));
  if (!ctx.state.lbFlavors.has(body.flavor)) fail(cloudError(400, `flavor: ${body.flavor} is not a load balancer flavor of the region`, ctx.requestId));
  return lbFlavorPerHour(ctx, body.flavor);
}

/** What a balancer's VIP takes: an external IP when it is on no network of the client (neither `vip_network_id` nor `vip_port_id`), and whether a new floating IP is asked for. */
function balancerVip(ctx: Ctx, body: Record<string, unknown>): { externalIp: boolean; newFloatingIp: boolean } {
  for (const key of ['vip_network_id', 'vip_port_id', 'vip_subnet_id'])
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string') fail(cloudError(400, `${key}: Input should be a valid string`, ctx.requestId));
  const fip = body.floating_ip;
  if (fip !== undefined && (!isPlainObject(fip) || (fip.source !== 'new' && fip.source !== 'existing')))
    fail(cloudError(400, "floating_ip.source: Input should be 'new' or 'existing'", ctx.requestId));
  if (isPlainObject(fip) && fip.source === 'existing' && typeof fip.existing_floating_id !== 'string')
    fail(cloudError(400, 'floating_ip.existing_floating_id: Field required', ctx.requestId));
  const onClientNetwork = typeof body.vip_network_id === 'string' || typeof body.vip_port_id === 'string';
  return { externalIp: !onClientNetwork, newFloatingIp: isPlainObject(fip) && fip.source === 'new' };
}

/**
 * POST /cloud/v2/pricing/{p}/{r}/loadbalancers (LoadBalancerPricingPreviewResponseSerializer):
 * the flavor, the external IP of an external VIP and a new floating IP (an existing one is billed
 * as its own), per hour and month, every price null when the account's plan hides them.
 */
function balancerPreview(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  const flavorRate = balancerFlavorPerHour(ctx, body);
  const { externalIp, newFloatingIp } = balancerVip(ctx, body);
  const list = ctx.state.priceList;
  const parts = { external_ip: externalIp ? list.external_ip_per_hour : 0, flavor: flavorRate, floating_ip: newFloatingIp ? list.floating_ip_per_hour : 0 };
  const total = parts.external_ip + parts.flavor + parts.floating_ip;
  const { shown, part, totals } = previewPricing(list);
  const detail = (hours: number) => Object.fromEntries(Object.entries(parts).map(([k, n]) => [k, part(n, hours)]));
  return jsonReply(200, {
    currency_code: shown ? list.currency_code : null,
    discount_percent: shown ? list.discount_percent : null,
    per_hour: detail(1),
    per_month: detail(HOURS_PER_MONTH),
    ...totals(total),
  });
}

/** The quotas a request would exceed, as check_limits answers them (`_limit`, `_requested`, `_usage`); `{}` when it fits. */
function exceededQuotas(ctx: Ctx, requested: Record<string, number>): Record<string, number> {
  const region = Number(ctx.params.region_id);
  const quotas: Record<string, number> = accountQuotas(ctx).regional_quotas.find((q) => q.region_id === region) ?? {};
  const exceeded: Record<string, number> = {};
  for (const [name, n] of Object.entries(requested)) {
    const limit = quotas[`${name}_limit`];
    const usage = quotas[`${name}_usage`] ?? 0;
    if (n === 0 || limit === undefined || usage + n <= limit) continue;
    Object.assign(exceeded, { [`${name}_limit`]: limit, [`${name}_requested`]: n, [`${name}_usage`]: usage });
  }
  return exceeded;
}

/**
 * POST /cloud/v1/loadbalancers/{p}/{r}/check_limits (LoadbalancerQuotaSerializer): the quotas one
 * balancer would exceed: the balancer count, the external IP of a VIP on the external network and
 * a new floating IP.
 */
function checkBalancerLimits(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  const { externalIp, newFloatingIp } = balancerVip(ctx, body);
  return jsonReply(200, exceededQuotas(ctx, { loadbalancer_count: 1, external_ip_count: externalIp ? 1 : 0, floating_count: newFloatingIp ? 1 : 0 }));
}

/** A balancer flavor's price per hour: the list's `flavor_per_hour`, else by its vCPUs and RAM; 0 for a flavor the region's catalogue lacks. */
function lbFlavorPerHour(ctx: Ctx, name: string): number {
  const list = ctx.state.priceList;
  const flavor = ctx.state.lbFlavors.get(name);
  if (!flavor) return list.flavor_per_hour[name] ?? 0;
  return list.flavor_per_hour[flavor.flavor_id] ?? flavor.vcpus * list.vcpu_per_hour + (flavor.ram / 1024) * list.ram_gib_per_hour;
}

const REPORT_KEYS = new Set(['enable_last_day', 'projects', 'regions', 'response_format', 'rounding', 'schema_filter', 'tags', 'time_from', 'time_to', 'types']);
const DAY_MS = 86_400_000;

/** The tag conditions of a cost report request (TagsFilterSerializer): each `{key, value, strict}`, joined by OR (default) or AND. */
function readTagFilter(ctx: Ctx, value: unknown): ((tags: readonly Tag[]) => boolean) | undefined {
  if (value === undefined) return undefined;
  const bad = (what: string): never => fail(cloudError(400, `tags${what}`, ctx.requestId));
  if (!isPlainObject(value)) return bad(': Input should be a valid dictionary');
  const conditions = value.conditions;
  if (!Array.isArray(conditions) || conditions.length < 1 || conditions.length > 10) bad('.conditions: List should have 1 to 10 items');
  const type = value.condition_type ?? 'OR';
  if (type !== 'OR' && type !== 'AND') bad(".condition_type: Input should be 'AND' or 'OR'");
  const tests = (conditions as unknown[]).map((c, i): ((tags: readonly Tag[]) => boolean) => {
    if (!isPlainObject(c)) return bad(`.conditions.${i}: Input should be a valid dictionary`);
    for (const k of Object.keys(c)) if (!['key', 'value', 'strict'].includes(k)) bad(`.conditions.${i}.${k}: Extra inputs are not permitted`);
    for (const k of ['key', 'value'] as const) {
      const s = c[k];
      if (s !== undefined && (typeof s !== 'string' || s.length < 3 || s.length > (k === 'key' ? 128 : 256)))
        bad(`.conditions.${i}.${k}: String should have at least 3 characters`);
    }
    const strict = c.strict === true;
    const key = c.key as string | undefined;
    const wanted = c.value as string | undefined;
    return (tags: readonly Tag[]) =>
      tags.some((t) => (key === undefined || t.key === key) && (wanted === undefined || (strict ? t.value === wanted : t.value.toLowerCase().includes(wanted.toLowerCase()))));
  });
  return (tags) => (type === 'AND' ? tests.every((t) => t(tags)) : tests.some((t) => t(tags)));
}

function readIds(ctx: Ctx, value: unknown, name: string): number[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((n) => Number.isInteger(n))) fail(cloudError(400, `${name}: Input should be a valid list of integers`, ctx.requestId));
  return value as number[];
}

/**
 * POST /cloud/v1/cost_report/totals (CostReportTotalsResponseSerializer): what the floating IPs,
 * instances, volumes and load balancers (their flavor, and the external IP of an external VIP)
 * the emulator holds cost from `time_from`'s day to `time_to`'s day (that
 * day too with `enable_last_day`), priced by the price list for the minutes each existed in the
 * period (up to now), filtered by tags, regions, projects and types, totalled per type, region
 * and flavor or volume type. Resources deleted are no longer counted (the emulator keeps no
 * billing history). A period longer than 31 days is refused, as the platform does.
 */
function costTotals(ctx: Ctx): Reply {
  const body = cloudObjectBody(ctx);
  for (const key of Object.keys(body)) if (!REPORT_KEYS.has(key)) fail(cloudError(400, `${key}: Extra inputs are not permitted`, ctx.requestId));
  const [from, to] = (['time_from', 'time_to'] as const).map((k) => {
    if (body[k] === undefined) fail(cloudError(400, `${k}: Field required`, ctx.requestId));
    const at = typeof body[k] === 'string' ? parseDate(body[k]) : Number.NaN;
    if (Number.isNaN(at)) fail(cloudError(400, `${k}: Input should be a valid datetime`, ctx.requestId));
    return Math.floor(at / DAY_MS) * DAY_MS;
  }) as [number, number];
  const end = Math.min(ctx.now, to + (body.enable_last_day === true ? DAY_MS : 0));
  if (to < from) fail(cloudError(400, 'time_to: must not be before time_from', ctx.requestId));
  if (to - from > 31 * DAY_MS) fail(cloudError(400, 'Requested period should not exceed 31 days', ctx.requestId));
  const matches = readTagFilter(ctx, body.tags);
  const regions = readIds(ctx, body.regions, 'regions');
  const projects = readIds(ctx, body.projects, 'projects');
  const types =
    body.types === undefined
      ? undefined
      : Array.isArray(body.types)
        ? (body.types as unknown[]).map(String)
        : fail(cloudError(400, 'types: Input should be a valid list', ctx.requestId));
  const list = ctx.state.priceList;
  const shown = list.price_status === 'show';
  const totals = new Map<string, Record<string, unknown> & { billing_value: number; cost: number }>();
  const count = (
    type: string,
    r: { region_id: number; project_id: number; tags: Tag[]; created_at: number },
    perHour: number,
    extra: Record<string, string>,
    unit: string,
    scale: number,
  ) => {
    if ((regions && !regions.includes(r.region_id)) || (projects && !projects.includes(r.project_id)) || (types && !types.includes(type)) || (matches && !matches(r.tags))) return;
    const minutes = Math.max(0, end - Math.max(from, r.created_at)) / 60_000;
    if (minutes === 0) return;
    const key = JSON.stringify([type, r.region_id, extra]);
    const total = totals.get(key) ?? {
      type,
      region: r.region_id,
      region_id: r.region_id,
      ...extra,
      billing_metric_name: [type, ...Object.values(extra)].join('_'),
      billing_feature_name: null,
      billing_value_unit: unit,
      billing_value: 0,
      cost: 0,
      currency: shown ? list.currency_code : null,
      err: null,
    };
    total.billing_value += minutes * scale;
    total.cost += (minutes / 60) * perHour * (1 - list.discount_percent / 100) * (1 + list.tax_percent / 100);
    totals.set(key, total);
  };
  for (const fip of ctx.state.floatingIps.values()) count('floatingip', fip, list.floating_ip_per_hour, {}, 'minutes', 1);
  for (const vm of ctx.state.instances.values()) count('instance', vm, flavorPerHour(ctx, vm.flavor_id), { flavor: vm.flavor_id }, 'minutes', 1);
  for (const v of ctx.state.volumes.values()) count('volume', v, v.size * (list.volume_gib_per_hour[v.volume_type] ?? 0), { volume_type: v.volume_type }, 'gbminutes', v.size);
  for (const lb of ctx.state.loadBalancers.values()) {
    count('load_balancer', lb, lbFlavorPerHour(ctx, lb.flavor), { flavor: lb.flavor }, 'minutes', 1);
    // A VIP on the external network is billed as an external IP (TotalExternalIpWithCostSerializer).
    if (hasExternalVip(lb)) count('external_ip', lb, list.external_ip_per_hour, {}, 'minutes', 1);
  }
  const rounding = body.rounding !== false;
  const results = [...totals.values()].map((t) => ({ ...t, billing_value: round(t.billing_value), cost: shown ? (rounding ? round(t.cost) : t.cost) : null }));
  return jsonReply(200, { count: results.length, price_status: list.price_status, results });
}

/** The pricing previews, the instance and load balancer check_limits routes and the cost report totals. */
export const billingRoutes: ServiceRoute<Needs>[] = [
  { method: 'POST', pattern: '/cloud/v1/pricing/{project_id}/{region_id}/floating_ips', handler: floatingIpPrice },
  { method: 'POST', pattern: '/cloud/v1/pricing/{project_id}/{region_id}/volumes', handler: volumePrice },
  { method: 'POST', pattern: '/cloud/v2/pricing/{project_id}/{region_id}/instances', handler: instancePreview },
  { method: 'GET', pattern: '/cloud/v1/pricing/{project_id}/{region_id}/instances/{instance_id}', handler: instancePrice },
  { method: 'POST', pattern: '/cloud/v2/instances/{project_id}/{region_id}/check_limits', handler: checkInstanceLimits },
  { method: 'POST', pattern: '/cloud/v2/pricing/{project_id}/{region_id}/loadbalancers', handler: balancerPreview },
  { method: 'POST', pattern: '/cloud/v1/loadbalancers/{project_id}/{region_id}/check_limits', handler: checkBalancerLimits },
  { method: 'POST', pattern: '/cloud/v1/cost_report/totals', handler: costTotals },
];
