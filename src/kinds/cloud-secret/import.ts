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
 * expiration. The platform never answers a secret's certificate nor its key, so the block has
 * neither (an adopted secret needs none): its comment says which `${env:...}` reference to add,
 * with the certificate, before the block could create the secret again. (The stack writer writes
 * every value from the platform as data, so a `${env:...}` written as a value would read back as
 * that literal text, not as a reference.)
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
    ...(secret.expiration === undefined ? {} : { expiration: secret.expiration === null ? null : secret.expiration }),
  }),
  blockName: (secret) => secret.name,
  facts: (secret) => [
    ['name', secret.name],
    ['private key', `not readable (the platform never answers one): to create it again, add private_key: \${env:${keyVariable(secret.name)}} and the certificate`],
  ],
});
