import { createHash } from 'node:crypto';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange, SensitiveValue } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { ENV_REFERENCE } from '../fields.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import type { ProviderContext, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import { secretImport } from './import.js';
import { expirationInstant, secretAnswer, secretList, secretPath, type Secret } from './list.js';

type Desired = ResourceAttributes['cloud_secret'];

/** The create's payload: the v2 POST body (CreateSecretSerializerV2), its private key the `${env:NAME}` reference until it is sent. */
const createPayloadSchema = z.object({
  name: z.string(),
  payload: z.object({ certificate: z.string(), certificate_chain: z.string(), private_key: z.string() }),
  expiration: z.string().nullable().optional(),
});

const place = (d: Desired) => ({ project_id: d.project_id, region_id: d.region_id });

/** The one secret of the block's name in its project and region; two of one name are refused (AmbiguousIdentityError). */
function pickByName(d: Desired, secrets: readonly Secret[]): { item: Secret; foundBy: string } | null {
  const identity = `name ${JSON.stringify(d.name)}`;
  const item = onlyMatch(
    secrets.filter((s) => s.name === d.name),
    (s) => s.id,
    { type: 'cloud_secret', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const observe = (s: Secret) => ({ exists: true as const, state: { secret_id: s.id, name: s.name, expiration: s.expiration ?? null } });

const readOne = (ctx: ProviderContext, d: Desired, id: string) =>
  readOrGone(async () => (await ctx.api.get(secretPath(d.project_id, d.region_id, id), { schema: secretAnswer, signal: ctx.signal })).body);

const findByName = async (ctx: ProviderContext, d: Desired) => pickByName(d, await listAll(ctx, secretList, place(d), (s) => s.id));

const reads = defineListReads<'cloud_secret', Secret>({
  readOne: (ctx, d) => readOne(ctx, d, d.secret_id ?? ''),
  project: (_ctx, _d, s) => observe(s),
  hasId: (d) => d.secret_id !== undefined,
  find: (ctx, d) => findByName(ctx, d),
  findInList: { key: (d) => d.name, itemKey: (s) => s.name, pick: (d, matches) => pickByName(d, matches) },
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.secret_id ?? '',
    itemId: (s) => s.id,
    paging: secretList.paging,
    describe: ([d]) => `GET ${secretList.path(place(d))}`,
    fetchPage: (ctx, [d], page) => fetchListPage(ctx, secretList, place(d), page),
  },
});

/** How a plan shows PEM certificates: how many, and the SHA-256 of the text (the text itself is long and says nothing at a glance). */
export function describePem(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const count = (text.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
  return `${count} PEM certificate${count === 1 ? '' : 's'}, sha256 ${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/** The variable a private key's `${env:NAME}` reference names (the loader keeps nothing else there). */
function envName(reference: string): string {
  const name = ENV_REFERENCE.exec(reference)?.[1];
  if (name === undefined) throw new Error('a sensitive field holds no ${env:NAME} reference (this is a bug)');
  return name;
}

/**
 * Create (`create_secret` by the v2 POST; the private key read from its variable right before the
 * request is sent) and delete (`delete_secret`; the platform refuses, 409, while a listener or a
 * pool uses the secret). Nothing changes in place: a change is a delete, then a create.
 */
const lifecycle = defineLifecycle('cloud_secret', {
  updateVerbs: ['Replacing', 'Replaced'],
  tasks: { scope: cloudTaskScope, lock: () => null },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: apiPath`/cloud/v2/secrets/${d.project_id}/${d.region_id}`, body: payload }),
    tasks: { type: 'create_secret', reread: async (ctx, { desired }) => (await findByName(ctx, desired))?.item ?? null, done: (s) => s !== null },
    created: { key: 'secrets', noun: 'secret' },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: secretPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_secret', resend: true, reread: (ctx, { desired, id }) => readOne(ctx, desired, String(id)), done: (s) => s === null },
  },
});

/**
 * Secrets (certificate bundles for TERMINATED_HTTPS listeners): a block names its `secret_id` or
 * is found by its name in its project and region (two of one name are refused: the platform
 * allows them, edgeform could not tell which is the block's); every secret of a place is read
 * from one list. The platform never answers the certificate nor the key, so only the name and
 * the expiration are compared; `--resend-sensitive ADDRESS` replaces the secret (the way to send
 * a rotated key or certificate). Any change is `-/+`.
 */
export const cloudSecret: ResourceProvider<'cloud_secret'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_secret',
  read: reads.read,
  groupRead: reads.groupRead,
  import: secretImport,
  summarize: (state) => ({ secret_id: state.secret_id, name: state.name, expiration: state.expiration }),
  create: {
    plan(d): ProviderPlan {
      const declared = {
        project_id: d.project_id,
        region_id: d.region_id,
        name: d.name,
        certificate: describePem(d.certificate),
        certificate_chain: describePem(d.certificate_chain),
        // A key read from a file is shown by the file's name (its attribute holds a fingerprint).
        ...(d.private_key_file === undefined ? { private_key: d.private_key } : { private_key_file: d.private_key_file }),
        expiration: d.expiration,
      };
      const sensitive: SensitiveValue[] = d.private_key === undefined ? [] : [{ path: ['payload', 'private_key'], env: envName(d.private_key) }];
      const body = {
        name: d.name,
        payload: { certificate: d.certificate ?? '', certificate_chain: d.certificate_chain ?? '', private_key: d.private_key ?? '' },
        ...(d.expiration === undefined ? {} : { expiration: d.expiration }),
      };
      const errors = (['certificate', 'certificate_chain', 'private_key'] as const)
        .filter((f) => d[f] === undefined)
        .map((field) => ({ field, summary: `creating a cloud_secret needs ${field}`, detail: 'Add it to the block, or set secret_id to adopt an existing secret.' }));
      return createPlan(declared, 'secret_id', body, { sensitive, errors });
    },
    identity: (d) => (d.secret_id === undefined ? `name ${JSON.stringify(d.name)}` : null),
  },
  plan(d, state, options) {
    const before: Record<string, unknown> = { secret_id: state.secret_id, name: state.name };
    const changes: FieldChange[] = [];
    if (d.expiration !== undefined) {
      before.expiration = state.expiration;
      if (expirationInstant(d.expiration) !== expirationInstant(state.expiration as string | null))
        changes.push({ path: ['expiration'], op: 'update', before: state.expiration, after: d.expiration, forces_replacement: true });
    }
    if (options?.resendSensitive) {
      const [field, after] = d.private_key_file === undefined ? ['private_key', d.private_key] : ['private_key_file', d.private_key_file];
      changes.push({ path: [field], op: 'update', before: '(sensitive)', after, forces_replacement: true });
    }
    const after = { ...before, ...(d.expiration === undefined ? {} : { expiration: d.expiration }) };
    if (changes.length === 0) return { action: 'no-op', before, after, changes, errors: [], warnings: [], notes: [] };
    const errors =
      d.secret_id === undefined
        ? []
        : [
            {
              field: changes[0]!.path[0]!,
              summary: `secret ${d.secret_id} cannot change in place`,
              detail: 'edgeform would destroy the secret and create a new one, which secret_id could no longer name: remove secret_id (the secret is found by its name).',
            },
          ];
    return {
      action: 'replace',
      before,
      after,
      changes,
      errors,
      warnings: [],
      notes: ['the platform refuses to delete a secret a listener or pool uses (409): to rotate one in use, declare a new secret under a new name and point the listener at it'],
    };
  },
};
