import { must } from '../../errors.js';
import { z } from 'zod';
import { lazily } from '../../lazily.js';
import { defineKind, type TextProblem } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, uuid } from '../fields.js';

/**
 * The SSH key parser (sshpk and its crypto helpers, about half a megabyte of code): loaded when a
 * stack has a key to check, not for every stack (test/e2e/start-up.test.ts).
 */
const sshpk = lazily<typeof import('sshpk')>('sshpk');

/** The most bytes a public key file may have: an OpenSSH public key line is well under 16 KiB (an RSA-16384 key is about 2.8 KiB). */
const MAX_PUBLIC_KEY_BYTES = 16 * 1024;

/** The key of an OpenSSH public key line as the platform compares it: `TYPE BASE64`, without the comment; undefined when the text is not one key line. */
export function publicKeyBody(text: string): string | undefined {
  const line = text.trim();
  if (line.includes('\n')) return undefined;
  try {
    sshpk().parseKey(line, 'ssh');
  } catch {
    return undefined;
  }
  return line.split(/\s+/).slice(0, 2).join(' ');
}

/** The first problem of a public key file's text (one OpenSSH public key line), or null. */
function checkPublicKey(text: string): TextProblem | null {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) return { line: 1, column: 1, message: `a public key file holds one key line (ssh-ed25519 AAAA... comment); this one has ${lines.length}` };
  if (/PRIVATE KEY/.test(text)) return { line: 1, column: 1, message: 'this is a private key: name the public half (the .pub file)' };
  return publicKeyBody(must(lines[0], 'lines[0]')) === undefined
    ? { line: text.split('\n').indexOf(must(lines[0], 'lines[0]')) + 1, column: 1, message: 'not an OpenSSH public key line (TYPE BASE64 [comment], e.g. ssh-ed25519 AAAA...)' }
    : null;
}

const publicKey = z.string().refine((text) => publicKeyBody(text) !== undefined, {
  error: 'must be an OpenSSH public key line (TYPE BASE64 [comment], e.g. ssh-ed25519 AAAA... ops@example); edgeform never asks the platform to generate a key',
});

const shape = () =>
  z.strictObject({
    project_id: projectId,
    ssh_key_id: uuid.optional().describe('The SSH key id (UUID) to adopt. Omit it to have edgeform find the key by name, or create it.'),
    name: cloudResourceName.optional().describe('The key name, unique in the project: how a block without ssh_key_id finds its key. A different name replaces the key.'),
    public_key: publicKey.optional().describe('The public key line (ssh-ed25519 AAAA... comment). Exactly one of public_key and public_key_file; a different key replaces it.'),
    public_key_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A public key file next to the stack (id_ed25519.pub; path relative to the stack file, inside its directory), read and checked at validate. Exactly one of public_key and public_key_file.',
      ),
    ensure: ensureDeletable,
  });

/**
 * cloud_ssh_key: the public half of an SSH key pair in a project, adopted by id or found by its
 * name, and created from the declared public key when no key has the name; a different key or
 * name replaces it. edgeform never has the platform generate a pair (its private half would have
 * to be printed or stored).
 */
export const cloudSshKeyKind = defineKind({
  type: 'cloud_ssh_key',
  kind: 'resource',
  description: 'A cloud SSH key (its public half), by ssh_key_id or by name in the project; created from public_key or public_key_file, replaced when the key differs.',
  identity: ['ssh_key_id', 'name'],
  terraform: { resource: 'gcore_keypair', fields: { project_name: 'project_id', sshkey_name: 'name' } },
  idField: 'ssh_key_id',
  create: { key: ['name'] },
  files: { public_key_file: { into: 'public_key', what: 'an OpenSSH public key file (.pub)', maxBytes: MAX_PUBLIC_KEY_BYTES, check: checkPublicKey } },
  readable: {
    id: { type: 'string', description: 'The SSH key id (UUID).', read: (s) => s.ssh_key_id },
    name: { type: 'string', description: 'The key name (what an instance names it by: ssh_key_name).', read: (s) => s.name },
    fingerprint: { type: 'string', description: "The key's MD5 fingerprint as the platform shows it (aa:bb:...).", read: (s) => s.fingerprint },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.ssh_key_id === undefined && value.name === undefined)
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'must be set when ssh_key_id is not: edgeform finds the key by name (and creates it when none has the name)' });
      if (value.public_key !== undefined && value.public_key_file !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['public_key_file'],
          message: 'must not be set together with public_key: set either the key (public_key) or the file it is in (public_key_file)',
        });
      } else if (value.public_key === undefined && value.public_key_file === undefined && value.ssh_key_id === undefined && value.ensure === 'present') {
        ctx.addIssue({
          code: 'custom',
          path: ['public_key'],
          message: 'must be set, or public_key_file: edgeform creates the key from its public half and never has the platform generate one',
        });
      }
    }),
});
