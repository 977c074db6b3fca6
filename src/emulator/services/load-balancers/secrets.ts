import { CLOUD_PRODUCT, cloudError, cloudObjectBody, cloudPages, cloudPlacement, placedIn, type CloudScope } from '../../cloud-common.js';
import { defineCollection, type Created } from '../../collection.js';
import { parseDate } from '../../format.js';
import { fail } from '../../reply.js';
import { newId, regionName, type LbCtx, type LbState } from './common.js';
import { bad, need, objectOf, orNull, optional, text } from './fields.js';
import type { SecretRecord } from './model.js';
import { renderSecret } from './render.js';

/** One PEM block of `label` (`CERTIFICATE`, `PRIVATE KEY`, `RSA PRIVATE KEY`, ...): its framing and a base64 body. */
const pemBlock = (label: string): string => `-----BEGIN ${label}-----\\s+[A-Za-z0-9+/=\\s]+-----END ${label}-----`;
const CERTIFICATES = new RegExp(`^\\s*(${pemBlock('CERTIFICATE')}\\s*)+$`);
const PRIVATE_KEY = new RegExp(`^\\s*${pemBlock('((RSA|EC|ENCRYPTED) )?PRIVATE KEY')}\\s*$`);

/** A PEM field of the payload: `pattern` (certificates, or one private key) framed as PEM; 400 otherwise (the field's text never quoted back). */
function pem(ctx: LbCtx, value: unknown, field: string, pattern: RegExp, what: string): string {
  const s = text(ctx, value, field, { min: 1 });
  if (!pattern.test(s)) bad(ctx, `${field}: must be ${what} in PEM format`);
  return s;
}

/**
 * POST /cloud/v2/secrets/{p}/{r} (CreateSecretSerializerV2): a certificate bundle (`payload`:
 * certificate, certificate_chain, private_key, each PEM; `expiration` a datetime after now or
 * null), made at once by task create_secret. Names need not be unique (as on the platform).
 * The payload is kept and never answered.
 */
function buildSecret(ctx: LbCtx, scope: CloudScope): Created<SecretRecord> {
  const body = objectOf(ctx, cloudObjectBody(ctx), '', ['expiration', 'name', 'payload']);
  const secretName = text(ctx, need(ctx, body, 'name', ''), 'name', { min: 1, max: 255 });
  const payload = objectOf(ctx, need(ctx, body, 'payload', ''), 'payload', ['certificate', 'certificate_chain', 'private_key']);
  const certificate = pem(ctx, need(ctx, payload, 'certificate', 'payload'), 'payload.certificate', CERTIFICATES, 'a certificate');
  const chain = pem(ctx, need(ctx, payload, 'certificate_chain', 'payload'), 'payload.certificate_chain', CERTIFICATES, 'one or more certificates');
  const key = pem(ctx, need(ctx, payload, 'private_key', 'payload'), 'payload.private_key', PRIVATE_KEY, 'a private key');
  const expiration = optional(body, 'expiration', null, (v) =>
    orNull(v, (e) => {
      const ms = parseDate(text(ctx, e, 'expiration'));
      if (Number.isNaN(ms)) bad(ctx, 'expiration: Input should be a valid datetime');
      if (ms <= ctx.now) bad(ctx, 'expiration: must be in the future');
      return ms;
    }),
  );
  const id = newId(ctx, 'create_secret', ctx.state.secrets, scope);
  const record: SecretRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region: regionName(ctx, scope.regionId),
    name: secretName,
    secret_type: 'certificate',
    expiration,
    payload: { certificate, certificate_chain: chain, private_key: key },
    task_id: null,
    creator_task_id: null,
    created_at: ctx.now,
    next_task_error: null,
  };
  const data = { name: secretName, expiration: body.expiration ?? null, payload: '<redacted>' };
  return { record, task: { type: 'create_secret', data, createdResources: { secrets: [id] } } };
}

/** The listeners and pools that name a secret (`name (id)`). */
function usersOf(state: LbState, secret: SecretRecord): string[] {
  const users: string[] = [];
  for (const l of state.lbListeners.values()) if (l.secret_id === secret.id || l.sni_secret_id.includes(secret.id)) users.push(`listener ${l.name} (${l.id})`);
  for (const p of state.lbPools.values()) if ([p.secret_id, p.ca_secret_id, p.crl_secret_id].includes(secret.id)) users.push(`pool ${p.name} (${p.id})`);
  return users;
}

/**
 * Secrets: the list (`{count, results}`, limit 1..1000; no filters: clients find a secret by
 * name in it), GET, POST v2 (task create_secret) and DELETE (task delete_secret; 409 naming the
 * listeners and pools that still use it). Answers are SecretSerializer: metadata, never the
 * payload. The deprecated v1 POST (a base64 PKCS12 payload) is not served (405).
 */
export const secrets = defineCollection<LbState, SecretRecord, CloudScope, undefined, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/secrets/{project_id}/{region_id}',
  createPath: '/cloud/v2/secrets/{project_id}/{region_id}',
  idParam: 'secret_id',
  idSyntax: 'uuid',
  noun: 'Secret',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.secrets,
  inScope: placedIn,
  key: (id) => id.toLowerCase(),
  idOf: (s) => s.id,
  tasks: { kind: 'secret' },
  list: { paging: cloudPages(), render: renderSecret },
  get: renderSecret,
  create: { build: buildSecret },
  delete: {
    task: 'delete_secret',
    check(ctx, secret) {
      const users = usersOf(ctx.state, secret);
      if (users.length > 0) fail(cloudError(409, `Secret ${secret.id} is in use by ${users.join(', ')}`, ctx.requestId));
    },
  },
});
