import { createHmac, timingSafeEqual } from 'node:crypto';
import { OWNER_KEY_ENV, OWNER_KEY_PREVIOUS_ENV } from '../env.js';
import { UsageError } from '../errors.js';

/**
 * Owner marks that a hand edit cannot forge. What edgeform creates says which stack owns it
 * (ownership tags, a CDN description's stack mark, a DNS zone's owner record), and prune destroys
 * what a stack owns: anyone who can edit a tag or a description could otherwise make a stack's
 * prune destroy any resource. With `EDGEFORM_OWNER_KEY` set, each such record also carries a mark:
 * `v1.` and the first 128 bits of HMAC-SHA256 (base64url) under the key of the kind, the stack,
 * the address and the resource's identity as known when the create request is sent (the
 * project and region of a cloud resource, a CDN resource's cname, a zone's name). Only pipelines
 * holding the key can make one; prune destroys only what carries a valid mark, and a mark copied
 * onto another resource does not verify there (another identity) or, copied to a resource of the
 * same kind, place and address, leaves two resources claiming one address, neither pruned.
 * Without the key nothing is marked or judged: ownership is as it was, weaker (documented).
 *
 * The key never leaves this module: it is held in a closure, not a property (nothing that
 * prints or serialises a seal can show it), and the CLI redacts it from all output like the API key.
 */

/** What a mark binds: the kind, the owning stack and address, and the resource's identity. */
export interface MarkSubject {
  type: string;
  stack: string;
  address: string;
  identity: string;
}

/**
 * A mark judged: `valid` (made with the current key), `previous` (made with
 * EDGEFORM_OWNER_KEY_PREVIOUS: good, and re-made with the current key on the next apply of its
 * block), `missing` (no mark: made before the key was set, or written by hand), `invalid`
 * (forged, copied from another resource, or made with a key this run does not hold).
 */
export type MarkVerdict = 'valid' | 'previous' | 'missing' | 'invalid';

/** Makes and checks marks with the run's owner key; unkeyed (no EDGEFORM_OWNER_KEY), it makes none and judges nothing. */
export interface OwnerSeal {
  /** Whether a key is set: marks are made and judged. */
  readonly keyed: boolean;
  /** The mark of `subject` under the current key; undefined when unkeyed. Pure. */
  mark(subject: MarkSubject): string | undefined;
  /** What `mark` (as the resource carries it: null or undefined for none) is worth for `subject`; undefined when unkeyed. Pure. */
  judge(subject: MarkSubject, mark: string | null | undefined): MarkVerdict | undefined;
}

/** The version prefix of a mark; a later scheme gets another, and old marks are `invalid` to it. */
const VERSION = 'v1.';

/** Bytes of the HMAC kept: 128 bits, as HMAC truncation guidance allows for an authenticator that is never reused as a key. */
const MARK_BYTES = 16;

/** The shortest key accepted: 16 characters (a generated key, `openssl rand -base64 32`, has 44). */
export const MIN_OWNER_KEY_LENGTH = 16;

/** The seal of a run without EDGEFORM_OWNER_KEY: no marks made, none judged. */
export const UNKEYED: OwnerSeal = { keyed: false, mark: () => undefined, judge: () => undefined };

/** The text a mark is the HMAC of: unambiguous (JSON), versioned. */
const message = (s: MarkSubject) => JSON.stringify(['edgeform-mark/1', s.type, s.stack, s.address, s.identity]);

function markWith(key: Buffer, subject: MarkSubject): string {
  return VERSION + createHmac('sha256', key).update(message(subject)).digest().subarray(0, MARK_BYTES).toString('base64url');
}

/** Whether two marks are equal, in time independent of where they differ. */
function sameMark(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A seal over a key and, while a rotation lasts, the key before it (see MarkVerdict). */
export function createOwnerSeal(key: string, previous?: string): OwnerSeal {
  const current = Buffer.from(key, 'utf8');
  const before = previous === undefined || previous === key ? undefined : Buffer.from(previous, 'utf8');
  return {
    keyed: true,
    mark: (subject) => markWith(current, subject),
    judge(subject, mark) {
      if (mark === null || mark === undefined || mark === '') return 'missing';
      if (sameMark(mark, markWith(current, subject))) return 'valid';
      if (before !== undefined && sameMark(mark, markWith(before, subject))) return 'previous';
      return 'invalid';
    },
  };
}

/**
 * The run's seal from the environment: EDGEFORM_OWNER_KEY (trimmed) and, while rotating,
 * EDGEFORM_OWNER_KEY_PREVIOUS; UNKEYED without the key. A key shorter than MIN_OWNER_KEY_LENGTH,
 * or a previous key without a current one, is a UsageError (whose message never holds a key).
 */
export function ownerSealFromEnv(env: Readonly<Record<string, string | undefined>>): OwnerSeal {
  const key = env[OWNER_KEY_ENV]?.trim() || undefined;
  const previous = env[OWNER_KEY_PREVIOUS_ENV]?.trim() || undefined;
  if (key === undefined) {
    if (previous !== undefined) throw new UsageError(`${OWNER_KEY_PREVIOUS_ENV} is set without ${OWNER_KEY_ENV}: set ${OWNER_KEY_ENV} to the new key while rotating`);
    return UNKEYED;
  }
  for (const [name, value] of [
    [OWNER_KEY_ENV, key],
    [OWNER_KEY_PREVIOUS_ENV, previous],
  ] as const) {
    if (value !== undefined && value.length < MIN_OWNER_KEY_LENGTH) {
      throw new UsageError(`${name} must be at least ${MIN_OWNER_KEY_LENGTH} characters (generate one, e.g. openssl rand -base64 32); it is not shown`);
    }
  }
  return createOwnerSeal(key, previous);
}

/** Whether a judged mark lets prune destroy the resource: made with the current or the previous key (unkeyed: undefined, anything goes, as before). */
export const provesOwnership = (verdict: MarkVerdict | undefined): boolean => verdict === undefined || verdict === 'valid' || verdict === 'previous';

/** Why a mark does not prove ownership, as plans and drift say it (for `missing` and `invalid`). */
export function unprovenReason(verdict: MarkVerdict, where: string): string {
  return verdict === 'missing'
    ? `carries no owner mark (${where}) although ${OWNER_KEY_ENV} is set: it was made before the key was set, or marked by hand`
    : `its owner mark (${where}) does not verify with ${OWNER_KEY_ENV}: it was forged, copied from another resource, or made with another key`;
}
