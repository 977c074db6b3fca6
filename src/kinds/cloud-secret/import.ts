import { defineImport } from '../kind-list.js';
import { secretList } from './list.js';

/** The environment variable an imported secret's private key is read from: `TLS_KEY_` and its name in upper case, other characters as `_`. */
export function keyVariable(name: string): string {
  return `TLS_KEY_${
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'SECRET'
  }`;
}

/**
 * Importing secrets: those of a project and region, each pinned by its id, with its name and
 * expiration. The platform never answers a secret's certificate nor its key: the block is written
 * with a `${env:...}` placeholder for the private key (never a value) and the import warns that
 * the variable must be set, and the certificate given, before the block can be created again.
 */
export const secretImport = defineImport('cloud_secret', {
  scope: 'cloud',
  quotaUsage: ['secret_count_usage'],
  list: secretList,
  itemId: (s) => s.id,
  attributes: (secret, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    certificate_id: secret.id,
    name: secret.name,
    private_key: `\${env:${keyVariable(secret.name)}}`,
    ...(secret.expiration === undefined ? {} : { expiration: secret.expiration === null ? null : secret.expiration }),
  }),
  blockName: (secret) => secret.name,
  facts: (secret) => [
    ['name', secret.name],
    ['private key', `not readable: set ${keyVariable(secret.name)} (the platform never answers a key)`],
  ],
});
