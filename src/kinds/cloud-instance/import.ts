import { defineImport } from '../kind-list.js';
import { instanceList } from './list.js';

/** Importing instances: those of a project and region, each pinned by its id, with its flavor; named after the instance. */
export const instanceImport = defineImport('cloud_instance', {
  scope: 'cloud',
  list: instanceList,
  itemId: (vm) => vm.id,
  attributes: (vm, s) => ({ project_id: s.project_id, region_id: s.region_id, instance_id: vm.id, flavor_id: vm.flavor.flavor_id }),
  blockName: (vm) => vm.name,
  facts: (vm) => [['name', vm.name]],
});
