import { z } from 'zod';
import { defineKind, type TextProblem } from '../kind-spec.js';
import { ensureDeletable, projectId, regionId, sensitiveField, uuid } from '../fields.js';

/** The most bytes a certificate file may have (a long chain is a few kilobytes). */
const MAX_PEM_BYTES = 64 * 1024;

/** PEM-framed certificates (one or more `-----BEGIN CERTIFICATE-----` blocks). */
const CERTIFICATES = /^\s*(-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*)+$/;
/** A PEM-framed private key (PKCS#1, PKCS#8 or EC). */
const PRIVATE_KEY = /^\s*-----BEGIN ((RSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----\s*$/;

/** Why a private key file's text is not a PEM private key, or null (never quoting it: the text is sensitive). */
function checkPrivateKey(text: string): TextProblem | null {
  return PRIVATE_KEY.test(text) ? null : { line: 1, column: 1, message: 'must hold a PEM private key (-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----)' };
}

/** Why a certificate file's text is not PEM certificates, or null. */
function checkCertificates(text: string): TextProblem | null {
  return CERTIFICATES.test(text) ? null : { line: 1, column: 1, message: 'must hold PEM certificates (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)' };
}

const pemCertificates = z.string().regex(CERTIFICATES, { error: 'must be PEM certificates (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)' });

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    secret_id: uuid.optional().describe('The secret id (UUID) to adopt. Omit it to have edgeform find the secret by its name, or create it.'),
    name: z.string().min(1).max(255).describe('The secret name (1–255 characters), unique in its project and region: how a block finds its secret.'),
    certificate: pemCertificates
      .optional()
      .describe('The certificate (PEM). Required to create, here or as certificate_file; any change is -/+ (not readable: see --resend-sensitive).'),
    certificate_file: z.string().min(1).optional().describe('A file next to the stack holding the certificate (PEM), instead of certificate.'),
    certificate_chain: pemCertificates.optional().describe('The chain of intermediate certificates (PEM). Required to create, here or as certificate_chain_file.'),
    certificate_chain_file: z.string().min(1).optional().describe('A file next to the stack holding the chain (PEM), instead of certificate_chain.'),
    private_key: sensitiveField
      .optional()
      .describe('The private key (PEM): exactly one ${env:NAME} reference (sensitive, write-only, never printed). Required to create, here or as private_key_file.'),
    private_key_file: z
      .string()
      .min(1)
      .optional()
      .describe('A file next to the stack holding the private key (PEM), instead of private_key: read at validate, never printed, never in a plan file.'),
    expiration: z.iso.datetime({ offset: true }).nullable().optional().describe('When the secret expires (ISO 8601), null: never; a different one is -/+.'),
    ensure: ensureDeletable,
  });

/** Each text field and the file field that may give it instead: exactly one of the two, and one is needed to create. */
const PAIRS = [
  ['certificate', 'certificate_file'],
  ['certificate_chain', 'certificate_chain_file'],
  ['private_key', 'private_key_file'],
] as const;

/**
 * cloud_secret: a certificate bundle (certificate, chain, private key) for TERMINATED_HTTPS
 * listeners, adopted by `secret_id` or found by its name (two of one name are refused), created
 * when none has it. Nothing of it changes in place: any change is `-/+`.
 */
export const cloudSecretKind = defineKind({
  type: 'cloud_secret',
  kind: 'resource',
  description: 'A certificate bundle for HTTPS listeners, by secret_id or by name; its private key comes only from the environment; any change replaces it (-/+).',
  identity: ['secret_id', 'name'],
  secretIds: ['secret_id'],
  terraform: { resource: 'gcore_secret', fields: { project_name: 'project_id', region_name: 'region_id' } },
  formerNames: { certificate_id: 'secret_id' },
  idField: 'secret_id',
  create: { key: ['name'] },
  sensitive: [{ path: ['private_key'], value: z.string().regex(PRIVATE_KEY, { error: 'must be a PEM private key (-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----)' }) }],
  files: {
    certificate_file: { into: 'certificate', what: 'a PEM certificate', maxBytes: MAX_PEM_BYTES, check: checkCertificates },
    certificate_chain_file: { into: 'certificate_chain', what: 'PEM certificates', maxBytes: MAX_PEM_BYTES, check: checkCertificates },
    private_key_file: { into: 'private_key', what: 'a PEM private key', maxBytes: MAX_PEM_BYTES, check: checkPrivateKey, sensitive: true },
  },
  readable: {
    id: { type: 'string', description: 'The secret id (UUID).', read: (s) => s.secret_id },
    name: { type: 'string', description: 'The secret name.', read: (s) => s.name },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      for (const [text, file] of PAIRS) {
        if (value[text] !== undefined && value[file] !== undefined)
          ctx.addIssue({ code: 'custom', path: [file], message: `must not be set together with ${text}: set either the text or the file it is in` });
      }
      if (value.secret_id !== undefined || value.ensure !== 'present') return;
      for (const [text, file] of PAIRS) {
        if (value[text] === undefined && value[file] === undefined)
          ctx.addIssue({ code: 'custom', path: [text], message: `must be set (or ${file}) when secret_id is not: edgeform creates the secret with it` });
      }
    }),
});
