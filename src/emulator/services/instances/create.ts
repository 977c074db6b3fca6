import { cloudError, cloudObjectBody, cloudCreateTags, madeNow, type CloudScope } from '../../cloud-common.js';
import type { Created, TaskStart } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN, isPlainObject } from '../../format.js';
import { fail } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { contains, nthHost, parseNetwork } from '../../cidr.js';
import type { FloatingIpSlice } from '../floating-ips/index.js';
import { checkImage, type ImageSlice } from '../images/index.js';
import type { NetworkSlice, SubnetRecord } from '../networks/index.js';
import type { SecurityGroupSlice } from '../security-groups/index.js';
import type { SshKeySlice } from '../ssh-keys/index.js';
import type { VolumeSlice } from '../volumes/index.js';
import type { CoreState } from '../../core-state.js';
import type { TaskRecord } from '../../tasks.js';
import { userTagMap } from '../../tags.js';
import { freeAddress } from '../floating-ips/addresses.js';
import type { InstanceDeleteEffect, InstanceRecord, InstanceSlice, InstancePort } from './index.js';

/**
 * Instance create and delete read what an instance is made of besides the instances: the
 * networks and subnets of its interfaces, its floating IPs, volumes, security groups and key pair.
 */
export type CreateState = InstanceSlice & FloatingIpSlice & NetworkSlice & VolumeSlice & SecurityGroupSlice & SshKeySlice & ImageSlice;
type Ctx = RouteContext<CreateState>;

/** The name pattern of an instance and of a volume it creates (CreateInstanceSerializerV2). */
export const INSTANCE_NAME = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/;
const VOLUME_SOURCES = ['new-volume', 'image', 'snapshot', 'apptemplate', 'existing-volume'] as const;
const VOLUME_TYPES = ['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'];
const INTERFACE_TYPES = ['external', 'subnet', 'any_subnet', 'reserved_fixed_ip'] as const;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The network every `external` interface is on, as addresses name it. */
export const EXTERNAL_NETWORK = 'public';

/** A volume of a create request, checked: made by the create (new, from an image) or an existing one attached. */
export type RequestedVolume =
  | {
      source: 'new-volume' | 'image';
      id: string;
      name: string | null;
      size: number | null;
      image_id: string | null;
      type_name: string;
      boot_index: number | null;
      delete_on_termination: boolean;
      tags: Record<string, string>;
    }
  | { source: 'existing-volume'; id: string; boot_index: number | null; delete_on_termination: boolean };

/** An interface of a create request, checked. */
export interface RequestedInterface {
  type: 'external' | 'subnet' | 'any_subnet';
  network_id: string | null;
  subnet_id: string | null;
  interface_name: string | null;
  ip_address: string | null;
  floating_ip: { source: 'new' } | { source: 'existing'; existing_floating_id: string } | null;
  security_groups: string[];
}

/** What instance create makes once its task finishes (the record exists, BUILD, from the POST on). */
export interface InstanceCreateEffect {
  type: 'create_vm';
  [field: string]: unknown;
}

function bad(ctx: Ctx, message: string): never {
  fail(cloudError(400, message, ctx.requestId));
}

function optionalString(ctx: Ctx, value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') bad(ctx, `${field}: Input should be a valid string`);
  return value;
}

function optionalUuid(ctx: Ctx, value: unknown, field: string): string | null {
  const text = optionalString(ctx, value, field);
  if (text !== null && !UUID_PATTERN.test(text)) bad(ctx, `${field}: Input should be a valid UUID, got "${text}"`);
  return text;
}

function requiredUuid(ctx: Ctx, value: unknown, field: string): string {
  if (value === undefined) bad(ctx, `${field}: Field required`);
  return optionalUuid(ctx, value, field) ?? bad(ctx, `${field}: Input should be a valid UUID`);
}

function optionalInt(ctx: Ctx, value: unknown, field: string, min?: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) bad(ctx, `${field}: Input should be a valid integer`);
  if (min !== undefined && value < min) bad(ctx, `${field}: Input should be greater than or equal to ${min}`);
  return value;
}

function optionalBoolean(ctx: Ctx, value: unknown, field: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') bad(ctx, `${field}: Input should be a valid boolean`);
  return value;
}

function objectAt(ctx: Ctx, value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) bad(ctx, `${field}: Input should be a valid dictionary or object`);
  return value;
}

function arrayAt(ctx: Ctx, value: unknown, field: string, minItems: number): unknown[] {
  if (value === undefined) bad(ctx, `${field}: Field required`);
  if (!Array.isArray(value)) bad(ctx, `${field}: Input should be a valid list`);
  if (value.length < minItems) bad(ctx, `${field}: List should have at least ${minItems} item after validation, not ${value.length}`);
  return value;
}

/** A `[{id}]` list of security groups (MandatoryIdSerializerPydantic), as ids. */
function securityGroupIds(ctx: Ctx, value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  return arrayAt(ctx, value, field, 0).map((item, i) => requiredUuid(ctx, objectAt(ctx, item, `${field}.${i}`).id, `${field}.${i}.id`));
}

function readVolume(ctx: Ctx, value: unknown, i: number, seed: string): RequestedVolume {
  const field = `volumes.${i}`;
  const v = objectAt(ctx, value, field);
  const source = v.source;
  if (typeof source !== 'string' || !(VOLUME_SOURCES as readonly string[]).includes(source))
    bad(ctx, `${field}: Input tag '${String(source)}' found using 'source' does not match any of the expected tags: ${VOLUME_SOURCES.map((s) => `'${s}'`).join(', ')}`);
  if (v.attachment_tag !== undefined && (typeof v.attachment_tag !== 'string' || !/^[^,/]{1,60}$/.test(v.attachment_tag)))
    bad(ctx, `${field}.attachment_tag: String should match pattern '^[^,/]{1,60}$'`);
  const boot_index = optionalInt(ctx, v.boot_index, `${field}.boot_index`);
  const delete_on_termination = optionalBoolean(ctx, v.delete_on_termination, `${field}.delete_on_termination`) ?? false;
  if (source === 'existing-volume') return { source, id: requiredUuid(ctx, v.volume_id, `${field}.volume_id`), boot_index, delete_on_termination };
  if (source === 'snapshot' || source === 'apptemplate')
    bad(ctx, `${field}.source: the emulator creates volumes only from scratch (new-volume), from an image (image) or attaches an existing one (existing-volume)`);
  const image_id = source === 'image' ? requiredUuid(ctx, v.image_id, `${field}.image_id`) : null;
  const size = optionalInt(ctx, v.size, `${field}.size`, 1);
  if (source === 'new-volume' && size === null) bad(ctx, `${field}.size: Field required`);
  const name = optionalString(ctx, v.name, `${field}.name`);
  if (name !== null && !INSTANCE_NAME.test(name)) bad(ctx, `${field}.name: String should match pattern '${INSTANCE_NAME.source}'`);
  const type_name = optionalString(ctx, v.type_name, `${field}.type_name`) ?? 'standard';
  if (!VOLUME_TYPES.includes(type_name)) bad(ctx, `${field}.type_name: Input should be ${VOLUME_TYPES.map((t) => `'${t}'`).join(', ')}`);
  const tags = v.tags === undefined ? {} : cloudCreateTags(ctx, v.tags);
  return {
    source: source as 'new-volume' | 'image',
    id: stableUuid(`${seed}/volume/${i}`),
    name,
    size: size ?? (source === 'image' ? 10 : null),
    image_id,
    type_name,
    boot_index,
    delete_on_termination,
    tags,
  };
}

function readInterface(ctx: Ctx, value: unknown, i: number): RequestedInterface {
  const field = `interfaces.${i}`;
  const x = objectAt(ctx, value, field);
  const type = x.type;
  if (typeof type !== 'string' || !(INTERFACE_TYPES as readonly string[]).includes(type))
    bad(ctx, `${field}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${INTERFACE_TYPES.map((t) => `'${t}'`).join(', ')}`);
  if (type === 'reserved_fixed_ip') bad(ctx, `${field}.type: the emulator attaches external, subnet and any_subnet interfaces`);
  const interface_name = optionalString(ctx, x.interface_name, `${field}.interface_name`);
  if (interface_name !== null && interface_name.length > 37) bad(ctx, `${field}.interface_name: String should have at most 37 characters`);
  const security_groups = securityGroupIds(ctx, x.security_groups, `${field}.security_groups`);
  if (type === 'external') return { type, network_id: null, subnet_id: null, interface_name, ip_address: null, floating_ip: null, security_groups };
  const network_id = requiredUuid(ctx, x.network_id, `${field}.network_id`);
  const subnet_id = type === 'subnet' ? requiredUuid(ctx, x.subnet_id, `${field}.subnet_id`) : null;
  const ip_address = type === 'any_subnet' ? optionalString(ctx, x.ip_address, `${field}.ip_address`) : null;
  let floating_ip: RequestedInterface['floating_ip'] = null;
  if (x.floating_ip !== undefined) {
    const fip = objectAt(ctx, x.floating_ip, `${field}.floating_ip`);
    if (fip.source === 'new') floating_ip = { source: 'new' };
    else if (fip.source === 'existing')
      floating_ip = { source: 'existing', existing_floating_id: requiredUuid(ctx, fip.existing_floating_id, `${field}.floating_ip.existing_floating_id`) };
    else bad(ctx, `${field}.floating_ip: Input tag '${String(fip.source)}' found using 'source' does not match any of the expected tags: 'new', 'existing'`);
  }
  return { type: type as 'subnet' | 'any_subnet', network_id, subnet_id, interface_name, ip_address, floating_ip, security_groups };
}

/** The checked body of an instance create (CreateInstanceSerializerV2), in the vendor's order of checks. */
export interface CreateRequest {
  flavor: string;
  name: string | null;
  volumes: RequestedVolume[];
  interfaces: RequestedInterface[];
  security_groups: string[];
  ssh_key_name: string | null;
  user_data: string | null;
  tags: Record<string, string>;
  body: Record<string, unknown>;
}

/** Reads and checks an instance create's body; 400 ValidationError naming the first field that does not fit. */
export function readCreateRequest(ctx: Ctx, seed: string): CreateRequest {
  const body = cloudObjectBody(ctx);
  if (body.flavor === undefined) bad(ctx, 'flavor: Field required');
  if (typeof body.flavor !== 'string' || body.flavor === '') bad(ctx, 'flavor: Input should be a valid string');
  const interfaces = arrayAt(ctx, body.interfaces, 'interfaces', 1).map((x, i) => readInterface(ctx, x, i));
  const volumes = arrayAt(ctx, body.volumes, 'volumes', 1).map((v, i) => readVolume(ctx, v, i, seed));
  const name = optionalString(ctx, body.name, 'name');
  if (name !== null && !INSTANCE_NAME.test(name)) bad(ctx, `name: String should match pattern '${INSTANCE_NAME.source}'`);
  const template = optionalString(ctx, body.name_template, 'name_template');
  for (const field of ['password', 'username'] as const) optionalString(ctx, body[field], field);
  const security_groups = securityGroupIds(ctx, body.security_groups, 'security_groups');
  const ssh_key_name = optionalString(ctx, body.ssh_key_name, 'ssh_key_name');
  const user_data = optionalString(ctx, body.user_data, 'user_data');
  if (user_data !== null && !BASE64.test(user_data)) bad(ctx, 'user_data: must be a string in base64 format');
  optionalUuid(ctx, body.servergroup_id, 'servergroup_id');
  const tags = body.tags === undefined ? {} : cloudCreateTags(ctx, body.tags);
  const ids = volumes.map((v) => v.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) bad(ctx, `volumes: volume ${twice} is named more than once`);
  return { flavor: body.flavor, name: name ?? template, volumes, interfaces, security_groups, ssh_key_name, user_data, tags, body };
}

/** The first address after `prefix` (a /16's first two octets and a dot, e.g. `10.0.`) that no instance shows and `taken` does not hold. */
export function nextFixedAddress(state: InstanceSlice, prefix: string, taken: readonly string[] = []): string {
  const used = new Set([...taken, ...[...state.instances.values()].flatMap((vm) => Object.values(vm.addresses).flatMap((list) => list.map((a) => a.addr)))]);
  for (let n = 2; n < 65_534; n++) {
    const addr = `${prefix}${n >> 8}.${n & 0xff}`;
    if ((n & 0xff) !== 0 && (n & 0xff) !== 255 && !used.has(addr)) return addr;
  }
  throw new Error(`no address left in ${prefix}0.0/16`);
}

/**
 * The addresses an instance shows (InstanceSerializer `addresses`): per network name, each port's
 * fixed address and, after it, its floating IP's address.
 */
export function addressesOf(vm: Pick<InstanceRecord, 'ports'>, state: FloatingIpSlice): InstanceRecord['addresses'] {
  const addresses: InstanceRecord['addresses'] = {};
  for (const port of vm.ports) {
    const list = (addresses[port.network_name] ??= []);
    list.push({
      addr: port.ip_address,
      type: 'fixed',
      interface_name: port.interface_name,
      ...(port.subnet_id ? { subnet_id: port.subnet_id, subnet_name: port.subnet_name ?? port.subnet_id } : {}),
    });
    const fip = port.floating_ip_id ? state.floatingIps.get(port.floating_ip_id) : undefined;
    if (fip?.floating_ip_address) list.push({ addr: fip.floating_ip_address, type: 'floating' });
  }
  return addresses;
}

/** A new id per create since the last reset (counted by its tasks), never one a deleted instance had. */
export function newInstanceId(ctx: Ctx, { projectId, regionId }: CloudScope): string {
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_vm').length;
  let id = stableUuid(`created-instance/${projectId}/${regionId}/${n}`);
  while (ctx.state.instances.has(id)) id = stableUuid(`created-instance/${projectId}/${regionId}/${++n}`);
  return id;
}

/** Whether a record is in the scope's project and region. */
const placed = (record: { project_id: number; region_id: number }, { projectId, regionId }: CloudScope) => record.project_id === projectId && record.region_id === regionId;

/** The first address of a subnet (after its gateway) that no instance's port holds and `taken` does not. */
function subnetAddress(ctx: Ctx, subnet: SubnetRecord, taken: readonly string[]): string {
  const network = parseNetwork(subnet.cidr);
  if ('error' in network) throw new Error(`subnet ${subnet.id} has CIDR ${subnet.cidr}: ${network.error}`);
  const used = new Set([...taken, ...(subnet.gateway_ip === null ? [] : [subnet.gateway_ip])]);
  for (const vm of ctx.state.instances.values()) for (const port of vm.ports) if (port.subnet_id === subnet.id) used.add(port.ip_address);
  for (let n = 1; ; n++) {
    const address = nthHost(network, n);
    if (address === undefined) fail(cloudError(409, `Subnet ${subnet.id} has no free IP address left`, ctx.requestId, 'IpAddressGenerationFailure'));
    if (!used.has(address)) return address;
  }
}

/**
 * The ports of a create's interfaces: a port each, with its network, subnet and fixed address (the
 * first free one of the subnet after its gateway; `external`: the public network). A network or
 * subnet the place does not hold → 404; a subnet of another network, or a network without a
 * subnet for `any_subnet` → 400; an `ip_address` outside the subnet → 400.
 */
export function portsOf(ctx: Ctx, scope: CloudScope, instanceId: string, interfaces: readonly RequestedInterface[]): InstancePort[] {
  const ports: InstancePort[] = [];
  const taken = () => ports.map((p) => p.ip_address);
  for (const [i, x] of interfaces.entries()) {
    const base = {
      port_id: stableUuid(`${instanceId}/port/${i}`),
      type: x.type,
      interface_name: x.interface_name,
      floating_ip_id: x.floating_ip?.source === 'existing' ? x.floating_ip.existing_floating_id : null,
      new_floating_ip: x.floating_ip?.source === 'new',
      security_groups: x.security_groups,
    };
    if (x.type === 'external') {
      ports.push({ ...base, network_id: null, network_name: EXTERNAL_NETWORK, subnet_id: null, subnet_name: null, ip_address: nextFixedAddress(ctx.state, '100.64.', taken()) });
      continue;
    }
    const network = ctx.state.networks.get(x.network_id ?? '');
    if (!network || !placed(network, scope)) fail(cloudError(404, `Network ${x.network_id} not found`, ctx.requestId));
    let subnet: SubnetRecord | undefined;
    if (x.type === 'subnet') {
      subnet = ctx.state.subnets.get(x.subnet_id ?? '');
      if (!subnet || !placed(subnet, scope)) fail(cloudError(404, `Subnet ${x.subnet_id} not found`, ctx.requestId));
      if (subnet.network_id !== network.id) bad(ctx, `interfaces.${i}.subnet_id: subnet ${subnet.id} is not in network ${network.id}`);
    } else {
      subnet =
        [...ctx.state.subnets.values()].find((s) => s.network_id === network.id && s.ip_version === 4) ?? [...ctx.state.subnets.values()].find((s) => s.network_id === network.id);
      if (!subnet) bad(ctx, `interfaces.${i}.network_id: network ${network.id} has no subnet to take an address from`);
    }
    const parsed = parseNetwork(subnet.cidr);
    if (x.ip_address !== null && ('error' in parsed || !contains(parsed, x.ip_address)))
      bad(ctx, `interfaces.${i}.ip_address: ${x.ip_address} is not in subnet ${subnet.id} (${subnet.cidr})`);
    ports.push({
      ...base,
      network_id: network.id,
      network_name: network.name,
      subnet_id: subnet.id,
      subnet_name: subnet.name,
      ip_address: x.ip_address ?? subnetAddress(ctx, subnet, taken()),
    });
  }
  return ports;
}

/**
 * Checks what a create names besides its interfaces, in the place: the images it boots from (404),
 * its existing volumes (404
 * unknown; 409 attached to an instance or locked by a task), security groups (404) and key pair
 * (404, by name in the project); answers the security groups' names, as the instance shows them.
 */
export function checkLinks(ctx: Ctx, scope: CloudScope, request: CreateRequest): string[] {
  for (const [i, v] of request.volumes.entries()) if (v.source === 'image' && v.image_id !== null) checkImage(ctx, scope, v.image_id, `volumes.${i}.image_id`);
  for (const v of request.volumes) {
    if (v.source !== 'existing-volume') continue;
    const volume = ctx.state.volumes.get(v.id);
    if (!volume || !placed(volume, scope)) fail(cloudError(404, `Volume ${v.id} not found`, ctx.requestId));
    const holders = [...ctx.state.instances.values()].filter((vm) => vm.volumes.some((x) => x.id === v.id));
    if (holders.length > 0)
      fail(cloudError(409, `Volume ${v.id} is attached to instance ${holders.map((vm) => `${vm.name} (${vm.id})`).join(', ')}; it must be available`, ctx.requestId));
    if (volume.task_id) fail(cloudError(409, `Volume ${v.id} is locked by task ${volume.task_id}; wait until the task finishes`, ctx.requestId));
  }
  const groupIds = [...new Set([...request.security_groups, ...request.interfaces.flatMap((x) => x.security_groups)])];
  const names = groupIds.map((id) => {
    const group = ctx.state.securityGroups.get(id);
    if (!group || !placed(group, scope)) fail(cloudError(404, `Security group ${id} not found`, ctx.requestId));
    return group.name;
  });
  if (request.ssh_key_name !== null && ![...ctx.state.sshKeys.values()].some((k) => k.project_id === scope.projectId && k.name === request.ssh_key_name)) {
    fail(cloudError(404, `SSH key ${request.ssh_key_name} not found`, ctx.requestId));
  }
  return names;
}

/**
 * The volumes a create makes (from an image or new), made at once in the volume service with it
 * (bootable when from an image), attached: the instance lists them.
 */
export function makeVolumes(ctx: Ctx, scope: CloudScope, request: CreateRequest, region: string): void {
  for (const v of request.volumes) {
    if (v.source === 'existing-volume') continue;
    ctx.state.volumes.set(v.id, {
      id: v.id,
      project_id: scope.projectId,
      region_id: scope.regionId,
      region,
      name: v.name ?? `volume-${v.id.slice(0, 8)}`,
      size: v.size ?? 10,
      volume_type: v.type_name,
      status: 'available',
      bootable: v.source === 'image',
      volume_image_metadata: v.image_id === null ? null : { image_id: v.image_id },
      snapshot_ids: [],
      tags: Object.entries(v.tags).map(([key, value]) => ({ key, value, read_only: false })),
      ...madeNow(ctx.now),
    });
  }
}

/** Builds the instance of a checked create: BUILD until its create_vm task finishes (see InstanceCreateEffect). */
export function buildInstance(ctx: Ctx, scope: CloudScope, request: CreateRequest, id: string, region: string): Created<InstanceRecord> {
  const record: InstanceRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region,
    name: request.name ?? `instance-${id.slice(0, 8)}`,
    status: 'BUILD',
    vm_state: 'building',
    task_state: 'spawning',
    task_id: null,
    creator_task_id: null,
    flavor_id: request.flavor,
    available_flavors: [request.flavor],
    tags: Object.entries(request.tags).map(([key, value]) => ({ key, value, read_only: false })),
    addresses: {},
    ports: [],
    security_groups: [],
    security_group_ids: request.security_groups,
    ssh_key_name: request.ssh_key_name,
    user_data: request.user_data,
    instance_description: null,
    volumes: request.volumes.map((v) => ({ id: v.id, delete_on_termination: v.delete_on_termination })),
    created_at: ctx.now,
    next_task_error: null,
    stale_flavor: null,
  };
  return { record, task: createTask(request, record) };
}

function createTask(request: CreateRequest, vm: InstanceRecord): TaskStart {
  const made = request.volumes.filter((v) => v.source !== 'existing-volume').map((v) => v.id);
  return {
    type: 'create_vm',
    effect: { type: 'create_vm' },
    data: request.body,
    createdResources: { instances: [vm.id], volumes: made, ports: [] },
  };
}

function csv(ctx: Ctx, name: string): string[] {
  const text = ctx.query.get(name);
  if (text === null || text === '') return [];
  return text.split(',').map((part) => part.trim());
}

/**
 * The delete_vm task of `DELETE /cloud/v1/instances/{p}/{r}/{id}` and its query options: the
 * floating IPs deleted with it (`delete_floatings`: all of its own; `floatings`: those listed;
 * never both), the volumes deleted with it (`volumes`, besides those marked
 * delete_on_termination), reserved fixed IP ports (accepted, none held). Everything else it had
 * is detached and stays.
 */
export function deleteTask(ctx: Ctx, vm: InstanceRecord): TaskStart {
  const raw = ctx.query.get('delete_floatings');
  let deleteFloatings = false;
  if (raw !== null) {
    const value = { true: true, false: false, '1': true, '0': false }[raw.toLowerCase()];
    if (value === undefined) bad(ctx, `delete_floatings: Input should be a valid boolean, got "${raw}"`);
    deleteFloatings = value;
  }
  const floatings = csv(ctx, 'floatings');
  if (deleteFloatings && floatings.length > 0) bad(ctx, "delete_floatings: Can't be used with `floatings`");
  const volumes = csv(ctx, 'volumes');
  for (const [name, ids] of [
    ['floatings', floatings],
    ['volumes', volumes],
    ['reserved_fixed_ips', csv(ctx, 'reserved_fixed_ips')],
  ] as const) {
    for (const id of ids) if (!UUID_PATTERN.test(id)) bad(ctx, `${name}: "${id}" is not a valid UUID`);
  }
  const own = vm.ports.map((p) => p.floating_ip_id).filter((id): id is string => id !== null);
  const strange = floatings.find((id) => !own.includes(id));
  if (strange !== undefined) bad(ctx, `floatings: floating IP ${strange} is not assigned to instance ${vm.id}`);
  const volumeIds = vm.volumes.map((v) => v.id);
  const notAttached = volumes.find((id) => !volumeIds.includes(id));
  if (notAttached !== undefined) bad(ctx, `volumes: volume ${notAttached} is not attached to instance ${vm.id}`);
  const effect: InstanceDeleteEffect = {
    type: 'delete_vm',
    floatings: deleteFloatings ? own : floatings,
    volumes: vm.volumes.filter((v) => v.delete_on_termination || volumes.includes(v.id)).map((v) => v.id),
  };
  return { type: 'delete_vm', effect, data: Object.fromEntries(ctx.query) };
}

/**
 * Ends create_vm: a failed create removes the instance (nothing was attached); a finished one is
 * ACTIVE, its floating IPs associated with their ports (an existing one named by the create, a
 * new one made now from the pool) and its addresses shown.
 */
export function finishCreate(state: CoreState & CreateState, vm: InstanceRecord, task: TaskRecord<InstanceCreateEffect>, ok: boolean): void {
  if (!ok) {
    state.instances.delete(vm.id);
    for (const id of task.created_resources?.volumes ?? []) state.volumes.delete(id);
    return;
  }
  vm.status = 'ACTIVE';
  vm.vm_state = 'active';
  vm.task_state = null;
  for (const [i, port] of vm.ports.entries()) {
    if (port.new_floating_ip && port.floating_ip_id === null) {
      const address = freeAddress(state);
      if (address === null) continue;
      const id = stableUuid(`${vm.id}/floating-ip/${i}`);
      state.floatingIps.set(id, {
        id,
        project_id: vm.project_id,
        region_id: vm.region_id,
        region: vm.region,
        floating_ip_address: address,
        fixed_ip_address: null,
        port_id: null,
        router_id: null,
        status: 'DOWN',
        tags: [],
        task_id: null,
        creator_task_id: task.id,
        created_at: task.finish_at,
        updated_at: task.finish_at,
        instance_id: null,
        next_task_error: null,
      });
      port.floating_ip_id = id;
    }
    const fip = port.floating_ip_id === null ? undefined : state.floatingIps.get(port.floating_ip_id);
    if (!fip) continue;
    Object.assign(fip, { port_id: port.port_id, fixed_ip_address: port.ip_address, instance_id: vm.id, status: 'ACTIVE', updated_at: task.finish_at });
  }
  if (vm.security_groups.length === 0) vm.security_groups = ['default'];
  vm.addresses = addressesOf(vm, state);
  state.recordMutation(task.finish_at, 'instance', vm.id, 'create_vm', { name: vm.name, flavor_id: vm.flavor_id, tags: userTagMap(vm.tags) }, task.id);
}

/**
 * Ends delete_vm: the instance is gone, with the floating IPs and volumes the request named (and
 * those marked delete_on_termination); every other floating IP is disassociated and stays.
 */
export function finishDelete(state: CoreState & CreateState, vm: InstanceRecord, task: TaskRecord<InstanceDeleteEffect>, ok: boolean): void {
  vm.task_state = null;
  if (!ok) return;
  for (const fip of state.floatingIps.values()) {
    if (fip.instance_id !== vm.id && !vm.ports.some((p) => p.port_id === fip.port_id)) continue;
    if (task.effect.floatings.includes(fip.id)) state.floatingIps.delete(fip.id);
    else Object.assign(fip, { port_id: null, fixed_ip_address: null, instance_id: null, status: 'DOWN', updated_at: task.finish_at });
  }
  state.instances.delete(vm.id);
  for (const id of task.effect.volumes) state.volumes.delete(id);
  state.recordMutation(task.finish_at, 'instance', vm.id, 'delete_vm', {}, task.id);
}
