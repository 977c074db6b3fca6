import { must } from '../../errors.js';
import { z } from 'zod';
import { onlyMatch } from '../create.js';
import { createPlan } from '../create.js';
import { listAll, listEndpointOf } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import type { FieldChange } from '../../plan/types.js';
import type { Observation, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import { sshKeyImport } from './import.js';
import { publicKeyBody } from './schema.js';
import { sshKeyAnswer, sshKeyList, sshKeyPath, type SshKey } from './list.js';

/** The create's payload: the POST body (CreateSSHKeySerializer), always with the public key (the platform never generates one for edgeform). */
const createPayloadSchema = z.object({ body: z.object({ name: z.string(), public_key: z.string().min(1) }) });

/** The projection of a key answer into an Observation. */
function observe(key: SshKey): Observation & { exists: true } {
  return { exists: true, state: { ssh_key_id: key.id, name: key.name, public_key: key.public_key, fingerprint: key.fingerprint } };
}

/** The one key named like the block among `keys`; two are an error naming both. */
function pickByName(desired: ResourceAttributes['cloud_ssh_key'], keys: readonly SshKey[]): { item: SshKey; foundBy: string } | null {
  const identity = `name ${JSON.stringify(desired.name)}`;
  const item = onlyMatch(
    keys.filter((k) => k.name === desired.name),
    (k) => k.id,
    { type: 'cloud_ssh_key', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cloud_ssh_key', SshKey>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(sshKeyPath(d.project_id, d.ssh_key_id ?? ''), { schema: sshKeyAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, key) => observe(key),
  hasId: (d) => d.ssh_key_id !== undefined,
  async find(ctx, d) {
    return pickByName(d, await listAll(ctx, sshKeyList, { project_id: d.project_id, name: must(d.name, 'd.name') }, (k) => k.id));
  },
  findInList: { key: (d) => must(d.name, 'd.name'), itemKey: (key) => key.name, pick: pickByName },
  list: {
    group: (d) => String(d.project_id),
    memberId: (d) => d.ssh_key_id ?? '',
    itemId: (key) => key.id,
    ...listEndpointOf(sshKeyList, ([d]) => ({ project_id: d.project_id })),
  },
});

/** Create (POST, synchronous 201: sent once, a lost answer settled by finding the key by name) and delete (204; gone is done). */
const lifecycle = defineLifecycle('cloud_ssh_key', {
  updateVerbs: ['Replacing', 'Replaced'],
  replace: true,
  create: { payload: createPayloadSchema, request: ({ desired: d, payload }) => ({ method: 'POST', path: sshKeyList.path(d), body: payload.body }) },
  delete: { request: ({ desired: d, id }) => ({ method: 'DELETE', path: sshKeyPath(d.project_id, id) }) },
});

/** The create of a block: its name and public key (required: the schema refuses a block to create without one). */
function planCreate(d: ResourceAttributes['cloud_ssh_key']) {
  const key = d.public_key?.trim() ?? '';
  return createPlan(
    { project_id: d.project_id, name: d.name, public_key: key, fingerprint: undefined },
    'ssh_key_id',
    { body: { name: d.name ?? '', public_key: key } },
    {
      errors: key === '' ? [{ field: 'public_key', summary: 'a key to create needs public_key or public_key_file: edgeform never has the platform generate one' }] : [],
      notes: d.public_key_file === undefined ? [] : [`public_key from ${d.public_key_file}`],
    },
  );
}

/**
 * Cloud SSH keys (the public half; per project, no region, no tags). A block names its
 * `ssh_key_id` (adopt) or only its `name`, unique in the project: the keys of a project are read
 * together from its list. A key cannot change: a different public key (compared without its
 * comment) or name destroys it and creates it again (`-/+`).
 */
export const cloudSshKey: ResourceProvider<'cloud_ssh_key'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_ssh_key',
  read: reads.read,
  groupRead: reads.groupRead,
  import: sshKeyImport,
  create: { plan: planCreate, identity: (d) => (d.ssh_key_id === undefined && d.name !== undefined ? `name ${JSON.stringify(d.name)}` : null) },
  summarize: (state) => ({ ssh_key_id: state.ssh_key_id, name: state.name, fingerprint: state.fingerprint }),
  plan(d, state) {
    const before: Record<string, unknown> = { ssh_key_id: state.ssh_key_id, name: state.name, fingerprint: state.fingerprint };
    const changes: FieldChange[] = [];
    if (d.name !== undefined && d.name !== state.name) changes.push({ path: ['name'], op: 'update', before: state.name, after: d.name, forces_replacement: true });
    const want = d.public_key === undefined ? undefined : publicKeyBody(d.public_key);
    if (want !== undefined && want !== publicKeyBody(String(state.public_key))) {
      changes.push({ path: ['public_key'], op: 'update', before: String(state.public_key), after: must(d.public_key, 'd.public_key').trim(), forces_replacement: true });
    }
    const base = { before, after: before, changes, warnings: [], notes: [] };
    if (changes.length === 0) return { action: 'no-op', ...base, errors: [] };
    if (d.ssh_key_id !== undefined) {
      return {
        action: 'no-op',
        ...base,
        errors: [
          {
            field: must(changes[0]?.path[0], 'the changed field'),
            summary: `${changes.map((c) => c.path[0]).join(' and ')} of SSH key ${d.ssh_key_id} differ, and a key cannot change in place`,
            detail:
              'edgeform would delete the key and create a new one, which ssh_key_id could no longer name: remove ssh_key_id to have edgeform replace it (found again by its name), or declare what the key has.',
          },
        ],
      };
    }
    return { action: 'replace', ...base, after: planCreate(d).after, errors: [] };
  },
};
