import { defineImport } from '../kind-list.js';
import { sshKeyList } from './list.js';

/**
 * Importing SSH keys: those of a project (keys belong to no region), each pinned by its id, with
 * its name and public key. SSH keys carry no tags, so none is left out as another stack's.
 */
export const sshKeyImport = defineImport('cloud_ssh_key', {
  scope: 'project',
  quotaUsage: ['keypair_count_usage'],
  list: sshKeyList,
  itemId: (key) => key.id,
  attributes: (key, s) => ({ project_id: s.project_id, ssh_key_id: key.id, name: key.name, public_key: key.public_key }),
  blockName: (key) => key.name,
  facts: (key) => [
    ['name', key.name],
    ['fingerprint', key.fingerprint],
  ],
});
