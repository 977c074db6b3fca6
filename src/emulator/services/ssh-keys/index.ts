import { must } from '../../../errors.js';
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { z } from 'zod';
import { CLOUD_PRODUCT, cloudError, cloudName, cloudObjectBody, cloudPages, enumQuery } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { datetime, fixtureDate, int, listSection, stableUuid, uuid } from '../../fixture-parts.js';
import { formatOffsetDate, parseIntStrict } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { defineService } from '../../service.js';

/** An SSH key pair's public half as held in memory (API field names; datetimes as epoch ms). */
export interface SshKeyRecord {
  id: string;
  project_id: number;
  name: string;
  public_key: string;
  fingerprint: string;
  shared_in_project: boolean;
  created_at: number;
}

/** The SSH key service's slice of the state: keys by id. */
export interface SshKeySlice {
  readonly sshKeys: Map<string, SshKeyRecord>;
}

type Ctx = RouteContext<SshKeySlice>;

/** The MD5 fingerprint (`aa:bb:...`, as the platform shows it) of an OpenSSH public key line, or undefined when the line is not one. */
export function sshFingerprint(publicKey: string): string | undefined {
  try {
    return sshpk.parseKey(publicKey, 'ssh').fingerprint('md5').toString('hex');
  } catch {
    return undefined;
  }
}

const sshKeyFixture = z.strictObject({
  id: uuid,
  project_id: int.optional(),
  name: z.string().min(1),
  public_key: z.string().refine((key) => sshFingerprint(key) !== undefined, 'must be an OpenSSH public key line (ssh-ed25519 AAAA... comment)'),
  shared_in_project: z.boolean().default(true),
  created_at: datetime.optional(),
});

/** An SSH key in the SSHKeySerializer shape (no other field: the serializer allows none). */
function renderSshKey(key: SshKeyRecord): Record<string, unknown> {
  return {
    created_at: formatOffsetDate(key.created_at),
    fingerprint: key.fingerprint,
    id: key.id,
    name: key.name,
    project_id: key.project_id,
    public_key: key.public_key,
    shared_in_project: key.shared_in_project,
    state: 'ACTIVE',
  };
}

/** A new Ed25519 key pair in OpenSSH form, for a create without `public_key` (the platform generates one and answers its private half once). */
function generateKeyPair(): { publicKey: string; privateKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const key = sshpk.parsePrivateKey(privateKey, 'pem');
  return { publicKey: key.toPublic().toString('ssh'), privateKey: key.toString('ssh-private') };
}

/**
 * POST /cloud/v1/ssh_keys/{p} (CreateSSHKeySerializer), synchronous, 201 CreatedSSHKeySerializer:
 * a given `public_key` must be an OpenSSH public key line (400 otherwise); without one the platform
 * generates a pair and answers its private half once. A name the project already has is 409.
 */
function createSshKey(ctx: Ctx, projectId: number): { record: SshKeyRecord; privateKey: string | null } {
  const body = cloudObjectBody(ctx);
  const name = cloudName(ctx, body);
  const given = body.public_key;
  if (given !== undefined && typeof given !== 'string') fail(cloudError(400, 'public_key: Input should be a valid string', ctx.requestId));
  const shared = body.shared_in_project ?? true;
  if (typeof shared !== 'boolean') fail(cloudError(400, 'shared_in_project: Input should be a valid boolean', ctx.requestId));
  const pair = given === undefined || given === '' ? generateKeyPair() : { publicKey: given.trim(), privateKey: null };
  const fingerprint = sshFingerprint(pair.publicKey);
  if (fingerprint === undefined) fail(cloudError(400, 'public_key: not a valid SSH public key (expected "TYPE BASE64 [comment]", e.g. ssh-ed25519 AAAA...)', ctx.requestId));
  if ([...ctx.state.sshKeys.values()].some((k) => k.project_id === projectId && k.name === name))
    fail(cloudError(409, `SSH key with name ${name} already exists in project ${projectId}`, ctx.requestId));
  let n = ctx.state.sshKeys.size;
  let id = stableUuid(`created-ssh-key/${projectId}/${name}/${n}`);
  while (ctx.state.sshKeys.has(id)) id = stableUuid(`created-ssh-key/${projectId}/${name}/${++n}`);
  return { record: { id, project_id: projectId, name, public_key: pair.publicKey, fingerprint, shared_in_project: shared, created_at: ctx.now }, privateKey: pair.privateKey };
}

/** The private half of the last generated key, answered once by the create that made it. */
const generated = new WeakMap<SshKeyRecord, string>();

/**
 * SSH keys (v1, per project): the list (`{count, results}`, 1,000 a page, filtered by name,
 * ordered by order_by), GET, POST (synchronous, 201), PATCH (`shared_in_project`) and DELETE (204).
 */
export const sshKeys = defineCollection<SshKeySlice, SshKeyRecord, number, { name: string | null; order: string }, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/ssh_keys/{project_id}',
  idParam: 'ssh_key_id',
  idSyntax: 'uuid',
  noun: 'SSH key',
  scope(ctx) {
    const projectId = parseIntStrict(ctx.params.project_id);
    if (projectId === undefined) fail(cloudError(400, `project_id: Input should be a valid integer, got "${ctx.params.project_id}"`, ctx.requestId));
    return projectId;
  },
  store: (ctx) => ctx.state.sshKeys,
  inScope: (key, projectId) => key.project_id === projectId,
  idOf: (key) => key.id,
  mutationKind: 'ssh_key',
  list: {
    paging: cloudPages(),
    query: (ctx) => ({ name: ctx.query.get('name'), order: enumQuery(ctx, 'order_by', ['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc']) ?? 'created_at.desc' }),
    where: (key, q) => q.name === null || key.name === q.name,
    order(a, b, { order }) {
      const [field, direction] = order.split('.') as ['created_at' | 'name', 'asc' | 'desc'];
      const cmp = field === 'name' ? a.name.localeCompare(b.name) : a.created_at - b.created_at;
      return (direction === 'asc' ? cmp : -cmp) || a.id.localeCompare(b.id);
    },
    render: renderSshKey,
  },
  get: renderSshKey,
  create: {
    build(ctx, projectId) {
      const { record, privateKey } = createSshKey(ctx, projectId);
      if (privateKey !== null) generated.set(record, privateKey);
      return { record, logged: { name: record.name, fingerprint: record.fingerprint } };
    },
    answer: (record) => jsonReply(201, { ...renderSshKey(record), private_key: generated.get(record) ?? null }),
  },
  updates: [
    {
      method: 'PATCH',
      change(ctx, key) {
        const body = cloudObjectBody(ctx);
        if (typeof body.shared_in_project !== 'boolean') fail(cloudError(400, 'shared_in_project: Field required (a boolean)', ctx.requestId));
        if (body.shared_in_project === key.shared_in_project) return {};
        key.shared_in_project = body.shared_in_project;
        return { shared_in_project: key.shared_in_project };
      },
      answer: (key) => jsonReply(200, renderSshKey(key)),
    },
  ],
  delete: {},
});

/** SSH keys of a project: list, get, create (a given public key, or one the platform generates), share, delete. Fixtures: `ssh_keys`. */
export const sshKeysService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { ssh_keys: listSection(sshKeyFixture) },
  fixtureIds: { ssh_keys: (x) => x.id },
  createState: (): SshKeySlice => ({ sshKeys: new Map() }),
  load(slice, { ssh_keys }, world) {
    slice.sshKeys.clear();
    for (const x of ssh_keys) {
      slice.sshKeys.set(x.id, {
        id: x.id,
        project_id: x.project_id ?? world.project_id,
        name: x.name,
        public_key: x.public_key.trim(),
        fingerprint: must(sshFingerprint(x.public_key), 'sshFingerprint(x.public_key)'),
        shared_in_project: x.shared_in_project,
        created_at: fixtureDate(x.created_at),
      });
    }
  },
  dump: (state) => ({ ssh_keys: [...state.sshKeys.values()] }),
  routes: sshKeys.routes,
  mutationKinds: ['ssh_key'],
  taskTargets: [],
});
