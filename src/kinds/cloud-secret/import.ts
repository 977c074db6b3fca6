import { defineImport } from '../kind-list.js';
import { secretList } from './list.js';

/**
 * Importing secrets: those of a project and region, each pinned by its id, with its name and
 * expiration. The platform never answers a secret's certificate nor its key: the block has no
 * certificate (an adopted secret needs none), and its `private_key` is an `${env:TLS_KEY_<BLOCK>}`
 * placeholder the stack writer makes up from the block name (letters, digits and `_` only), with
 * a warning naming the variable to set.
 */
export const secretImport = defineImport('cloud_secret', {
  scope: 'cloud',
  quotaUsage: ['secret_count_usage'],
  envPlaceholders: { private_key: 'TLS_KEY' },
  list: secretList,
  itemId: (s) => s.id,
  attributes: (secret, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    secret_id: secret.id,
    name: secret.name,
    ...(secret.expiration === undefined ? {} : { expiration: secret.expiration === null ? null : secret.expiration }),
  }),
  blockName: (secret) => secret.name,
  facts: (secret) => [['name', secret.name]],
});
