import { apiPath } from '../../api/path.js';

// The key list is shared with the instance's create plan, which checks ssh_key_name against it.
export { sshKeyAnswer, sshKeyList, type SshKey, type SshKeyScope } from '../cloud-lists.js';

/** An SSH key's item path. */
export const sshKeyPath = (p: number, id: string | number) => apiPath`/cloud/v1/ssh_keys/${p}/${id}`;
