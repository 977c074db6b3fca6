import {
  booleanQuery,
  cloudError,
  cloudObjectBody,
  cloudPages,
  cloudPlacement,
  enumQuery,
  hasTagValues,
  queryList,
  tagKeyValueFilter,
  type CloudScope,
  defineCloudCollection,
  patchTags,
} from '../../cloud-common.js';
import { formatOffsetDate, parseDate } from '../../format.js';
import { fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import { ensureFlavor, type FlavorRecord } from './flavors.js';
import { parseTagsPatch, readOnlyKeysTouched, type TagsPatch } from '../../tags.js';
import { INSTANCE_NAME, buildInstance, checkLinks, deleteTask, makeVolumes, newInstanceId, portsOf, readCreateRequest, type CreateState } from './create.js';
import type { InstanceRecord, InstanceSlice, ResizeEffect } from './index.js';

type Ctx = RouteContext<CreateState>;

const BASE = '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}';
/** The statuses the list's `status` filter accepts (InstanceStatusQuery). */
const STATUS_FILTERS = [
  'ACTIVE',
  'BUILD',
  'ERROR',
  'HARD_REBOOT',
  'MIGRATING',
  'PAUSED',
  'REBOOT',
  'REBUILD',
  'RESIZE',
  'REVERT_RESIZE',
  'SHELVED',
  'SHELVED_OFFLOADED',
  'SHUTOFF',
  'SOFT_DELETED',
  'SUSPENDED',
  'VERIFY_RESIZE',
] as const;
/** The list's `order_by` choices (InstancesOrderByChoices). */
const ORDER_BY = ['created.asc', 'created.desc', 'name.asc', 'name.desc', 'status.asc', 'status.desc'] as const;
/** Parameters of the list that only filter by state the emulator does not hold (DDoS, isolation, bare metal, change times): checked, then without effect. */
const BOOLEAN_PARAMS = [
  'available_floating',
  'include_ai',
  'include_baremetal',
  'include_k8s',
  'only_isolated',
  'only_with_fixed_external_ip',
  'with_ddos',
  'with_interfaces_name',
];

/** The flavor GET shows at `now`: the old one while a finished resize is still within its read lag. */
export function visibleFlavorId(vm: InstanceRecord, now: number): string {
  return vm.stale_flavor && now < vm.stale_flavor.until ? vm.stale_flavor.flavor_id : vm.flavor_id;
}

function renderFlavor(flavor: FlavorRecord): Record<string, unknown> {
  return {
    flavor_id: flavor.flavor_id,
    flavor_name: flavor.flavor_name,
    vcpus: flavor.vcpus,
    ram: flavor.ram,
    architecture: flavor.architecture,
    os_type: flavor.os_type,
    hardware_description: { vcpus: `${flavor.vcpus} vCPU`, ram: `${flavor.ram} MiB` },
  };
}

function renderCommon(vm: InstanceRecord): Record<string, unknown> {
  return {
    id: vm.id,
    name: vm.name,
    created_at: formatOffsetDate(vm.created_at),
    status: vm.status,
    vm_state: vm.vm_state,
    task_state: vm.task_state,
    task_id: vm.task_id,
    creator_task_id: vm.creator_task_id,
    instance_description: vm.instance_description,
    addresses: structuredClone(vm.addresses),
    security_groups: vm.security_groups.map((name) => ({ name })),
    ssh_key_name: vm.ssh_key_name,
    volumes: vm.volumes.map((v) => ({ ...v })),
    tags: vm.tags.map((t) => ({ ...t })),
    project_id: vm.project_id,
    region_id: vm.region_id,
    region: vm.region,
  };
}

/** An instance in the InstanceSerializer shape as GET shows it at `now`. */
export function renderInstance(state: InstanceSlice, vm: InstanceRecord, now: number): Record<string, unknown> {
  return {
    ...renderCommon(vm),
    flavor: renderFlavor(ensureFlavor(state, visibleFlavorId(vm, now))),
    blackhole_ports: [],
    ddos_profile: null,
    fixed_ip_assignments: [],
    instance_isolation: null,
  };
}

/** An instance in the InstanceInFloatingSerializer shape (the floating IP list's `instance`). */
export function renderInstanceInFloating(state: InstanceSlice, vm: InstanceRecord, now: number): Record<string, unknown> {
  const flavor = ensureFlavor(state, visibleFlavorId(vm, now));
  return {
    ...renderCommon(vm),
    creator_task_id: vm.creator_task_id ?? '',
    flavor: { flavor_id: flavor.flavor_id, flavor_name: flavor.flavor_name, vcpus: flavor.vcpus, ram: flavor.ram },
  };
}

/** The list's filters (InstanceCollectionSerializer's query), read in the vendor's order of checks. */
function readListQuery(ctx: Ctx) {
  for (const name of BOOLEAN_PARAMS) booleanQuery(ctx, name);
  for (const name of ['changes-before', 'changes-since']) {
    const text = ctx.query.get(name);
    if (text !== null && Number.isNaN(parseDate(text))) fail(cloudError(400, `${name}: Input should be a valid datetime, got "${text}"`, ctx.requestId));
  }
  enumQuery(ctx, 'protection_status', ['Active', 'Queued', 'Error']);
  enumQuery(ctx, 'type_ddos_profile', ['basic', 'advanced']);
  const status = enumQuery(ctx, 'status', STATUS_FILTERS);
  const orderBy = enumQuery(ctx, 'order_by', ORDER_BY) ?? 'created.desc';
  const uuidPart = ctx.query.get('uuid');
  if (uuidPart !== null && uuidPart.length > 36) fail(cloudError(400, 'uuid: String should have at most 36 characters', ctx.requestId));
  const [field, direction] = orderBy.split('.') as ['created' | 'name' | 'status', 'asc' | 'desc'];
  return {
    status,
    order: { field, sign: direction === 'asc' ? 1 : -1 },
    uuidPart,
    name: ctx.query.get('name')?.toLowerCase(),
    flavorId: ctx.query.get('flavor_id'),
    flavorPrefix: ctx.query.get('flavor_prefix'),
    excludeFlavorPrefix: ctx.query.get('exclude_flavor_prefix'),
    excludeSecgroup: ctx.query.get('exclude_secgroup'),
    ip: ctx.query.get('ip'),
    tagKeyValue: tagKeyValueFilter(ctx),
    tagValues: queryList(ctx.query, 'tag_value'),
  };
}

function matchesQuery(vm: InstanceRecord, q: ReturnType<typeof readListQuery>, now: number): boolean {
  const flavor = visibleFlavorId(vm, now);
  return (
    (q.status === undefined || vm.status === q.status) &&
    (q.name === undefined || vm.name.toLowerCase().includes(q.name)) &&
    (q.flavorId === null || flavor === q.flavorId) &&
    (q.flavorPrefix === null || flavor.startsWith(q.flavorPrefix)) &&
    (q.excludeFlavorPrefix === null || !flavor.startsWith(q.excludeFlavorPrefix)) &&
    (q.excludeSecgroup === null || !vm.security_groups.includes(q.excludeSecgroup)) &&
    (q.uuidPart === null || vm.id.includes(q.uuidPart.toLowerCase())) &&
    (q.ip === null || Object.values(vm.addresses).some((list) => list.some((a) => a.addr.includes(q.ip as string)))) &&
    (q.tagKeyValue === undefined || hasTagValues(vm.tags, q.tagKeyValue)) &&
    q.tagValues.every((v) => vm.tags.some((t) => t.value === v))
  );
}

/**
 * Cloud instances: the list (InstanceCollectionSerializer, `limit`/`offset` up to 1,000, newest
 * first unless `order_by` says otherwise, ties by id so pages are stable; filters name (part, any
 * case), flavor_id, flavor_prefix, exclude_flavor_prefix, status, uuid (part), ip (part of an
 * address), tag_key_value, tag_value (repeatable), exclude_secgroup; the DDoS, isolation,
 * bare-metal and change-time parameters are checked but change nothing), GET one, and POST
 * changeflavor (task resize_vm).
 */
export const instances = defineCloudCollection<CreateState, InstanceRecord, ReturnType<typeof readListQuery>, 'text'>({
  idSyntax: 'text',
  path: '/cloud/v1/instances/{project_id}/{region_id}',
  idParam: 'instance_id',
  noun: 'Instance',
  store: (ctx) => ctx.state.instances,
  kind: 'instance',
  list: {
    paging: cloudPages(),
    query: readListQuery,
    where: (vm, q, ctx) => matchesQuery(vm, q, ctx.now),
    order(a, b, { order: { field, sign } }) {
      const key = (vm: InstanceRecord): string | number => (field === 'created' ? vm.created_at : vm[field]);
      const [ka, kb] = [key(a), key(b)];
      return (ka < kb ? -1 : ka > kb ? 1 : 0) * sign || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    },
    render: (vm, ctx) => renderInstance(ctx.state, vm, ctx.now),
  },
  get: (vm, ctx) => renderInstance(ctx.state, vm, ctx.now),
  createPath: '/cloud/v2/instances/{project_id}/{region_id}',
  create: { build: createInstance },
  updates: [
    {
      // UpdateInstanceSerializer: a new name and a tags merge patch, at once.
      method: 'PATCH',
      change(ctx, vm, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const name = body.name;
        if (name !== undefined && (typeof name !== 'string' || !INSTANCE_NAME.test(name)))
          fail(cloudError(400, `name: String should match pattern '${INSTANCE_NAME.source}'`, ctx.requestId));
        let tags: TagsPatch | undefined;
        if ('tags' in body) {
          const parsed = parseTagsPatch(body.tags);
          if (!parsed.ok) fail(cloudError(400, parsed.message, ctx.requestId));
          const readOnly = readOnlyKeysTouched(vm.tags, parsed.patch);
          if (readOnly.length > 0) fail(cloudError(400, `tags: ${readOnly.map((k) => `"${k}"`).join(', ')} cannot be modified: read-only`, ctx.requestId));
          tags = parsed.patch;
        }
        checkLock();
        const changed: Record<string, unknown> = {};
        if (typeof name === 'string' && name !== vm.name) changed.name = vm.name = name;
        patchTags(vm, tags, changed);
        return changed;
      },
      answer: (vm, ctx) => jsonReply(200, renderInstance(ctx.state, vm, ctx.now)),
    },
    {
      method: 'POST',
      path: `${BASE}/changeflavor`,
      task(ctx, vm, _scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const flavorId = body.flavor_id;
        if (flavorId === undefined) fail(cloudError(400, 'flavor_id: Field required', ctx.requestId));
        if (typeof flavorId !== 'string' || flavorId === '') fail(cloudError(400, 'flavor_id: Input should be a valid string', ctx.requestId));
        checkLock();
        if (vm.status !== 'ACTIVE' && vm.status !== 'SHUTOFF')
          fail(cloudError(409, `Instance ${vm.id} is in status ${vm.status}; it can be resized only when ACTIVE or SHUTOFF`, ctx.requestId));
        if (!vm.available_flavors.includes(flavorId)) {
          fail(cloudError(400, `Flavor ${flavorId} is not available for instance ${vm.id}; available: ${vm.available_flavors.join(', ')}`, ctx.requestId));
        }
        if (flavorId === vm.flavor_id) fail(cloudError(400, `Instance ${vm.id} already has flavor ${flavorId}`, ctx.requestId));
        const effect: ResizeEffect = { type: 'resize_vm', flavor_id: flavorId, previous_status: vm.status, read_lag_ms: ctx.settings.readLagMs };
        return { type: 'resize_vm', effect, data: { flavor_id: flavorId } };
      },
    },
  ],
  delete: { task: (ctx, vm) => deleteTask(ctx, vm) },
});

/**
 * POST /cloud/v2/instances/{p}/{r} (CreateInstanceSerializerV2): the body checked, the flavor one
 * of the region's (not disabled), the networks, subnets, existing volumes (available), security
 * groups, key pair and existing floating IP (free) it names found in the same place; the instance
 * is made at once, BUILD and locked by its create_vm task, with the volumes it makes (attached),
 * which the task lists under created_resources once FINISHED (a failed create removes them).
 */
function createInstance(ctx: Ctx, scope: CloudScope) {
  const id = newInstanceId(ctx, scope);
  const request = readCreateRequest(ctx, `instance/${id}`);
  const flavor = ctx.state.flavors.get(request.flavor);
  if (!flavor || flavor.disabled) fail(cloudError(400, `flavor: Flavor ${request.flavor} is not available in region ${scope.regionId}`, ctx.requestId));
  const ports = portsOf(ctx, scope, id, request.interfaces);
  const groupNames = checkLinks(ctx, scope, request);
  for (const port of ports) {
    if (port.floating_ip_id === null) continue;
    const fip = ctx.state.floatingIps.get(port.floating_ip_id);
    if (!fip || fip.project_id !== scope.projectId || fip.region_id !== scope.regionId) fail(cloudError(404, `Floating IP ${port.floating_ip_id} not found`, ctx.requestId));
    if (fip.port_id !== null || fip.instance_id !== null) fail(cloudError(409, `Floating IP ${fip.id} is already assigned to a port`, ctx.requestId));
    if (fip.task_id) fail(cloudError(409, `Floating IP ${fip.id} is locked by task ${fip.task_id}; wait until the task finishes`, ctx.requestId));
  }
  const region = [...ctx.state.instances.values()].find((vm) => vm.region_id === scope.regionId)?.region ?? ctx.state.defaults.region;
  const created = buildInstance(ctx, scope, request, id, region);
  created.record.ports = ports;
  created.record.security_groups = groupNames;
  makeVolumes(ctx, scope, request, region);
  return created;
}

/** GET /cloud/v1/flavors/{p}/{r}: the region's flavors (InstanceFlavorExtendedV1CollectionSerializer), disabled ones only with `disabled=true`. */
function listRegionFlavors(ctx: Ctx): Reply {
  cloudPlacement(ctx);
  const withDisabled = booleanQuery(ctx, 'disabled') ?? false;
  for (const name of ['exclude_linux', 'exclude_windows']) booleanQuery(ctx, name);
  const withPrices = booleanQuery(ctx, 'include_prices') ?? false;
  const results = [...ctx.state.flavors.values()]
    .filter((f) => withDisabled || !f.disabled)
    .sort((a, b) => (a.flavor_id < b.flavor_id ? -1 : a.flavor_id > b.flavor_id ? 1 : 0))
    .map((f) => ({ ...flavorItem(f), ...(withPrices ? { currency_code: null, price_per_hour: null, price_per_month: null, price_status: null } : {}) }));
  return jsonReply(200, { count: results.length, results });
}

function flavorItem(f: FlavorRecord): Record<string, unknown> {
  return {
    flavor_id: f.flavor_id,
    flavor_name: f.flavor_name,
    vcpus: f.vcpus,
    ram: f.ram,
    disabled: f.disabled,
    os_type: f.os_type,
    architecture: f.architecture,
    hardware_description: { vcpus: `${f.vcpus} vCPU`, ram: `${f.ram} MiB` },
  };
}

function listAvailableFlavors(ctx: Ctx): Reply {
  const vm = instances.find(ctx);
  const withPrices = ctx.query.get('include_prices') === 'true';
  const results = vm.available_flavors.map((id) => {
    const f = ensureFlavor(ctx.state, id);
    const item: Record<string, unknown> = { ...flavorItem(f), capacity: null, reserved_capacity: null };
    if (withPrices) Object.assign(item, { currency_code: null, price_per_hour: null, price_per_month: null, price_status: null });
    return item;
  });
  return jsonReply(200, { count: results.length, results });
}

/** The instance routes: the collection's, GET available_flavors, and the region's flavors. */
export const instanceRoutes: ServiceRoute<CreateState>[] = [
  ...instances.routes,
  { method: 'GET', pattern: `${BASE}/available_flavors`, handler: listAvailableFlavors },
  { method: 'GET', pattern: '/cloud/v1/flavors/{project_id}/{region_id}', handler: listRegionFlavors },
];
