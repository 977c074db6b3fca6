import type { KindEconomics } from '../economics.js';

/** Creating an SSH key takes one `keypair_count` of the account (a global quota). The platform has no pricing route for it: not priced. */
export const sshKeyEconomics: KindEconomics<'cloud_ssh_key'> = {
  quota: (change) => (change.action === 'create' ? [{ address: change.address, scope: 'global', counter: 'keypair_count', amount: 1 }] : []),
};
