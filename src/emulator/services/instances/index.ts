import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture, type Placement } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, positiveInt, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import type { Tag } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { deriveFlavor, ensureFlavor, type FlavorRecord } from './flavors.js';
import { finishCreate, finishDelete, type CreateState, type InstanceCreateEffect } from './create.js';
import { instanceRoutes } from './routes.js';

/** One address of an instance on a network. */
export type InstanceAddress =
  { addr: string; type: 'floating' } | { addr: string; type: 'fixed'; interface_name: string | null; subnet_id?: string | undefined; subnet_name?: string | undefined };

/** An instance as held in memory. */
export interface InstanceRecord extends Placement {
  id: string;
  name: string;
  status: string;
  vm_state: string;
  task_state: string | null;
  task_id: string | null;
  creator_task_id: string | null;
  /** The flavor the instance really has. */
  flavor_id: string;
  /** Flavors changeflavor accepts (the current flavor is listed too). */
  available_flavors: string[];
  tags: Tag[];
  /** What GET shows under `addresses`: a fixture's as given; a created instance's from its ports (addressesOf). */
  addresses: Record<string, InstanceAddress[]>;
  /** The ports a create attached (none for a fixture instance, whose addresses are given). */
  ports: InstancePort[];
  /** Security group names, as GET shows them. */
  security_groups: string[];
  /** The security groups a create named, by id. */
  security_group_ids: string[];
  ssh_key_name: string | null;
  /** The create's user_data (base64); GET never shows it. */
  user_data: string | null;
  instance_description: string | null;
  volumes: Array<{ id: string; delete_on_termination: boolean }>;
  created_at: number;
  next_task_error: string | null;
  /** After a resize: GET keeps showing `flavor_id` until emulator time `until` (read lag). */
  stale_flavor: { flavor_id: string; until: number } | null;
}

/** A port a create attached: its network, subnet, fixed address and floating IP. */
export interface InstancePort {
  port_id: string;
  type: 'external' | 'subnet' | 'any_subnet';
  network_id: string | null;
  network_name: string;
  subnet_id: string | null;
  subnet_name: string | null;
  interface_name: string | null;
  ip_address: string;
  /** The floating IP on the port: the existing one a create named (associated when it finishes), or the new one it made. */
  floating_ip_id: string | null;
  /** The create asked for a new floating IP on this port (made when it finishes). */
  new_floating_ip: boolean;
  security_groups: string[];
}

/** The instance service's slice of the state: the instances and the flavor catalogue. */
export interface InstanceSlice {
  readonly instances: Map<string, InstanceRecord>;
  readonly flavors: Map<string, FlavorRecord>;
}

/** What resize_vm does when it finishes. */
export type ResizeEffect = { type: 'resize_vm'; flavor_id: string; previous_status: string; read_lag_ms: number };

/** What delete_vm does when it finishes: removes the instance and, with it, these floating IPs and volumes; the rest is detached. */
export type InstanceDeleteEffect = { type: 'delete_vm'; floatings: string[]; volumes: string[] };

/** What an instance task does when it finishes. */
export type InstanceEffect = ResizeEffect | InstanceCreateEffect | InstanceDeleteEffect;

const flavorFixture = z.strictObject({
  flavor_id: z.string().min(1),
  flavor_name: z.string().optional(),
  vcpus: positiveInt.optional(),
  ram: positiveInt.optional(),
  architecture: z.string().default('x86_64'),
  os_type: z.string().default('LINUX'),
  disabled: z.boolean().default(false),
});

const instanceStatuses = [
  'ACTIVE',
  'BUILD',
  'DELETED',
  'ERROR',
  'HARD_REBOOT',
  'MIGRATING',
  'PASSWORD',
  'PAUSED',
  'REBOOT',
  'REBUILD',
  'RESCUE',
  'RESIZE',
  'REVERT_RESIZE',
  'SHELVED',
  'SHELVED_OFFLOADED',
  'SHUTOFF',
  'SOFT_DELETED',
  'SUSPENDED',
  'UNKNOWN',
  'VERIFY_RESIZE',
] as const;
const vmStates = ['active', 'building', 'deleted', 'error', 'paused', 'rescued', 'resized', 'shelved', 'shelved_offloaded', 'soft-deleted', 'stopped', 'suspended'] as const;

const addressFixture = z.union([
  z.strictObject({ addr: z.string(), type: z.literal('floating') }),
  z.strictObject({
    addr: z.string(),
    type: z.literal('fixed'),
    interface_name: z.string().nullable().default(null),
    subnet_id: z.string().optional(),
    subnet_name: z.string().optional(),
  }),
]);

const instanceFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  status: z.enum(instanceStatuses).default('ACTIVE'),
  vm_state: z.enum(vmStates).default('active'),
  flavor_id: z.string().min(1),
  available_flavors: z.array(z.string().min(1)).default([]),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  addresses: z.record(z.string(), z.array(addressFixture)).default({}),
  security_groups: z.array(z.string()).default(['default']),
  ssh_key_name: z.string().nullable().default(null),
  instance_description: z.string().nullable().default(null),
  volumes: z.array(z.strictObject({ id: z.string(), delete_on_termination: z.boolean().default(false) })).default([]),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const instanceTasks: TaskTarget<'instance', InstanceRecord, InstanceEffect, CreateState> = {
  kind: 'instance',
  find: (state, id) => state.instances.get(id),
  begin(vm, effect) {
    if (effect.type === 'resize_vm') {
      vm.status = 'RESIZE';
      vm.task_state = 'resize_prep';
    } else if (effect.type === 'delete_vm') vm.task_state = 'deleting';
  },
  finish(state, vm, task, ok) {
    const { effect } = task;
    if (effect.type === 'create_vm') return finishCreate(state, vm, task as typeof task & { effect: InstanceCreateEffect }, ok);
    if (effect.type === 'delete_vm') return finishDelete(state, vm, task as typeof task & { effect: InstanceDeleteEffect }, ok);
    vm.task_state = null;
    vm.status = effect.previous_status;
    if (!ok) return;
    if (effect.read_lag_ms > 0 && vm.flavor_id !== effect.flavor_id) {
      vm.stale_flavor = { flavor_id: vm.flavor_id, until: task.finish_at + effect.read_lag_ms };
    }
    vm.flavor_id = effect.flavor_id;
    state.recordMutation(task.finish_at, 'instance', vm.id, task.task_type, { flavor_id: vm.flavor_id }, task.id);
  },
};

/**
 * Cloud instances: list (limit/offset, filters), GET one, GET available_flavors, POST changeflavor (task resize_vm: status
 * RESIZE while it runs; GET may show the old flavor for the read lag after it finished).
 * Fixtures: `flavors` (the catalogue; flavors named `<family>-<vcpus>-<ram GiB>` are derived
 * when missing) and `instances`.
 */
export const instancesService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { flavors: listSection(flavorFixture), instances: listSection(instanceFixture) },
  fixtureIds: { instances: (x) => x.id },
  createState: (): InstanceSlice => ({ instances: new Map(), flavors: new Map() }),
  load(slice, { flavors, instances }, world) {
    slice.instances.clear();
    slice.flavors.clear();
    for (const flavor of flavors) {
      const derived = deriveFlavor(flavor.flavor_id);
      slice.flavors.set(flavor.flavor_id, {
        flavor_id: flavor.flavor_id,
        flavor_name: flavor.flavor_name ?? flavor.flavor_id,
        vcpus: flavor.vcpus ?? derived.vcpus,
        ram: flavor.ram ?? derived.ram,
        architecture: flavor.architecture,
        os_type: flavor.os_type,
        disabled: flavor.disabled,
      });
    }
    for (const x of instances) {
      const available = x.available_flavors.includes(x.flavor_id) ? [...x.available_flavors] : [x.flavor_id, ...x.available_flavors];
      for (const flavorId of available) ensureFlavor(slice, flavorId);
      slice.instances.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        status: x.status,
        vm_state: x.vm_state,
        task_state: null,
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        flavor_id: x.flavor_id,
        available_flavors: available,
        tags: fixtureTags(x.tags, x.read_only_tags),
        addresses: structuredClone(x.addresses) as Record<string, InstanceAddress[]>,
        ports: [],
        security_groups: [...x.security_groups],
        security_group_ids: [],
        ssh_key_name: x.ssh_key_name,
        user_data: null,
        instance_description: x.instance_description,
        volumes: x.volumes.map((v) => ({ ...v })),
        created_at: fixtureDate(x.created_at),
        next_task_error: x.next_task_error,
        stale_flavor: null,
      });
    }
  },
  dump: (state) => ({ instances: [...state.instances.values()], flavors: [...state.flavors.values()] }),
  routes: instanceRoutes,
  mutationKinds: ['instance'],
  taskTargets: [instanceTasks],
});
