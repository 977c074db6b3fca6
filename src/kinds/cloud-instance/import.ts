import { ADDRESS_TAG, isOwnershipTag, STACK_TAG } from '../fields.js';
import { defineImport } from '../kind-list.js';
import { instanceList } from './list.js';
import { INSTANCE_NAME } from './schema.js';

/**
 * Importing instances: those of a project and region, each pinned by its id, with its flavor,
 * name, SSH key, the existing volumes attached to it and user tags (read-only and ownership tags left out); named after the instance. One that
 * an edgeform stack's ownership tags name is left out, named with that stack: it is that stack's.
 */
export const instanceImport = defineImport('cloud_instance', {
  scope: 'cloud',
  quotaUsage: [
    'vm_count_usage',
    'shared_vm_count_usage',
    'gpu_virtual_a100_count_usage',
    'gpu_virtual_h100_count_usage',
    'gpu_virtual_h200_count_usage',
    'gpu_virtual_l40s_count_usage',
  ],
  list: instanceList,
  itemId: (vm) => vm.id,
  attributes: (vm, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    instance_id: vm.id,
    flavor_id: vm.flavor.flavor_id,
    // A name the platform shows but a block could not declare (the create's rules are stricter) is left out.
    ...(INSTANCE_NAME.test(vm.name) ? { name: vm.name } : {}),
    ...(vm.ssh_key_name ? { ssh_key_name: vm.ssh_key_name } : {}),
    // The existing volumes it was given (not deleted with it), as the plan compares them; the boot one among them is not told apart.
    ...(vm.volumes.some((v) => !v.delete_on_termination) ? { volume_ids: vm.volumes.filter((v) => !v.delete_on_termination).map((v) => v.id) } : {}),
    tags: Object.fromEntries(vm.tags.filter((t) => !t.read_only && !isOwnershipTag(t.key)).map((t) => [t.key, t.value])),
  }),
  // An attached volume imported too is written as `${cloud_volume.NAME.id}` (item by item).
  refersTo: { volume_ids: 'cloud_volume' },
  blockName: (vm) => vm.name,
  facts: (vm) => [['name', vm.name]],
  ownedBy: (vm) => {
    const stack = vm.tags.find((t) => t.key === STACK_TAG)?.value;
    const address = vm.tags.find((t) => t.key === ADDRESS_TAG)?.value;
    return stack && address ? { stack, address } : undefined;
  },
});
