import { inspect } from 'node:util';
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redact, secretsFromEnv } from '../../../src/api/redact.js';
import { redactDeep, sanitizeError, scrubOwnError } from '../../../src/api/sanitize.js';

const KEY = '29841$c767b250a9f4e7d1$x/y+z';
const SECRETS = [KEY];

/** Every way an error can end up printed or serialised. */
function renderings(error: unknown): string[] {
  const e = error as Error;
  return [String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 }), inspect(e, { depth: 10, showHidden: true })];
}

function expectNoKey(error: unknown): void {
  for (const text of renderings(error)) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(encodeURIComponent(KEY));
    expect(text).not.toContain('c767b250a9f4e7d1');
  }
}

describe('sanitizeError', () => {
  it('drops the headers and options an undici error may carry', () => {
    const original = Object.assign(new errors.SocketError(`socket hang up (APIKey ${KEY})`), {
      headers: { authorization: `APIKey ${KEY}` },
      options: { headers: [`authorization`, `APIKey ${KEY}`] },
    });
    expect(inspect(original, { depth: 10 })).toContain(KEY);
    const clean = sanitizeError(original, SECRETS);
    expectNoKey(clean);
    expect(clean.message).toBe(`socket hang up (APIKey ${REDACTED})`);
    expect((clean as Error & { code?: string }).code).toBe('UND_ERR_SOCKET');
    expect(clean.name).toBe(original.name);
  });

  it('redacts the cause chain and aggregated errors', () => {
    const inner = Object.assign(new Error(`inner ${encodeURIComponent(KEY)}`), { code: 'ECONNRESET', config: { key: KEY } });
    const agg = new AggregateError([inner, new Error(`second ${KEY}`)], `agg ${KEY}`);
    const outer = new Error(`outer ${KEY}`, { cause: agg });
    const clean = sanitizeError(outer, SECRETS);
    expectNoKey(clean);
    const cause = (clean as Error & { cause?: Error }).cause as Error & { errors?: Error[] };
    expect(cause.message).toBe(`agg ${REDACTED}`);
    expect(cause.errors?.map((e) => e.message)).toEqual([`inner ${REDACTED}`, `second ${REDACTED}`]);
  });

  it('handles non-errors and cycles', () => {
    expect(sanitizeError(`boom ${KEY}`, SECRETS).message).toBe(`boom ${REDACTED}`);
    const a = new Error(`a ${KEY}`) as Error & { cause?: unknown };
    a.cause = a;
    expectNoKey(sanitizeError(a, SECRETS));
  });
});

describe('scrubOwnError', () => {
  it('redacts message and stack in place', () => {
    const error = new Error(`msg ${KEY}`);
    scrubOwnError(error, SECRETS);
    expectNoKey(error);
  });
});

describe('redactDeep', () => {
  it('redacts every string of a JSON value, keys included', () => {
    const value = { message: `Bad permanent token: ${KEY}`, list: [KEY, 1, null, { deep: `x${JSON.stringify(KEY).slice(1, -1)}` }], [KEY]: true };
    const clean = redactDeep(value, SECRETS);
    expect(JSON.stringify(clean)).not.toContain('c767b250a9f4e7d1');
    expect(clean.message).toBe(`Bad permanent token: ${REDACTED}`);
    expect(value.message).toContain(KEY);
  });
});

describe('redact', () => {
  it('replaces the key, its URL-encoded and its JSON-escaped forms', () => {
    const key = '29841$c767"b250';
    expect(redact(`a ${key} b ${encodeURIComponent(key)} c ${JSON.stringify(key).slice(1, -1)}`, [key])).toBe('a [REDACTED] b [REDACTED] c [REDACTED]');
  });

  it('does not search for a "secret" too short to be a key, which would mangle ordinary words', () => {
    expect(redact('Success! The stack is valid.', ['e'])).toBe('Success! The stack is valid.');
    expect(redact('x', [''])).toBe('x');
    expect(redact('the word stack is fine', ['stack'])).toBe('the word stack is fine');
  });

  it('redacts a key shorter than 8 characters only as a whole, and fragments of 8 or more of a longer one', () => {
    expect(redact('a k$y123 b k$y12 c', ['k$y123'])).toBe(`a ${REDACTED} b k$y12 c`);
    expect(redact('was 42$secr or 42$secre…', ['42$secretkey'])).toBe(`was 42$secr or ${REDACTED}…`);
  });

  it('redacts fragments of 8 characters or more, wherever they start', () => {
    const key = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;
    expect(redact(`Invalid token ${key.slice(0, 12)}… (ends ${key.slice(-8)})`, [key])).toBe(`Invalid token ${REDACTED}… (ends ${REDACTED})`);
    expect(redact(`id 29841$c7 and 7 hex ${key.slice(20, 27)}`, [key])).toBe(`id ${REDACTED} and 7 hex ${key.slice(20, 27)}`);
  });

  it('leaves the public token id alone, even when it is 8 digits or more, but not the id with its $', () => {
    const key = `1234567890$${'ab'.repeat(32)}`;
    expect(redact('project 1234567890, user 34567890', [key])).toBe('project 1234567890, user 34567890');
    expect(redact('token 1234567890$ab…', [key])).toBe(`token ${REDACTED}…`);
  });

  it('redacts HTML-escaped, base64, base64url and line-wrapped forms, as the platform may echo them', () => {
    const key = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    for (const form of [
      key.replace('$', '&#36;'),
      key.replace('$', '&#x24;'),
      key.replace('$', '&dollar;'),
      key.replace('$', '\\u0024'),
      b64(key),
      Buffer.from(`APIKey ${key}`).toString('base64url'),
      `${key.slice(0, 30)}\n      ${key.slice(30)}`,
    ]) {
      expect(redact(`task error: ${form}; retry`, [key])).toBe(`task error: ${REDACTED}; retry`);
    }
    // Inside the base64 of a longer text (a basic-auth header, a JSON blob), the key's bytes are found at any offset.
    const blob = b64(`{"user":"ci","key":"${key}"}`);
    const out = redact(blob, [key]);
    expect(out).toContain(REDACTED);
    expect(out.length).toBeLessThan(blob.length - 70);
  });

  it('leaves ordinary output alone: uuids, hex digests, numbers', () => {
    const key = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;
    const text = 'cloud_floating_ip.web_ip [task 726ecfcc-7fd0-4e30-a86e-7892524aa483] sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 29841\n';
    expect(createRedactor([key])(text)).toBe(text);
  });
});

describe('secretsFromEnv', () => {
  it('takes the key as the client sends it: trimmed, so a key read with its newline is still found', () => {
    expect(secretsFromEnv({ EDGEFORM_API_KEY: ' 29841$abcdef0123\n' })).toEqual(['29841$abcdef0123']);
    expect(secretsFromEnv({ EDGEFORM_API_KEY: '  ' })).toEqual([]);
    expect(secretsFromEnv({})).toEqual([]);
  });

  it('takes the owner keys too (EDGEFORM_OWNER_KEY and the previous one while rotating): secrets like the API key', () => {
    expect(secretsFromEnv({ EDGEFORM_API_KEY: '1$abcdef0123', EDGEFORM_OWNER_KEY: ' owner-key-0123456789 ', EDGEFORM_OWNER_KEY_PREVIOUS: 'previous-key-0123456' })).toEqual([
      '1$abcdef0123',
      'owner-key-0123456789',
      'previous-key-0123456',
    ]);
  });

  it("takes the lock database's password from EDGEFORM_LOCK_URL, as written and decoded, so neither form is ever shown", () => {
    const env = { EDGEFORM_API_KEY: '1$abcdefabcdef', EDGEFORM_LOCK_URL: 'postgres://edgeform:lock%24Pw-7f3a@db.internal:5432/locks?sslmode=require' };
    expect(secretsFromEnv(env)).toEqual(['1$abcdefabcdef', 'lock%24Pw-7f3a', 'lock$Pw-7f3a']);
    const redactor = createRedactor(secretsFromEnv(env));
    expect(redactor('auth lock$Pw-7f3a and lock%24Pw-7f3a')).toBe(`auth ${REDACTED} and ${REDACTED}`);
    // No password, or no URL at all: nothing to hide; an @ or a space in the password is read too.
    expect(secretsFromEnv({ EDGEFORM_LOCK_URL: 'postgres://db.internal/locks' })).toEqual([]);
    expect(secretsFromEnv({ EDGEFORM_LOCK_URL: 'not a url' })).toEqual([]);
    expect(secretsFromEnv({ EDGEFORM_LOCK_URL: 'postgres://u:p@ss w0rd@db/x' })).toEqual(['p%40ss%20w0rd', 'p@ss w0rd']);
    // A URL the parser refuses (a broken host) still has its password read.
    expect(secretsFromEnv({ EDGEFORM_LOCK_URL: 'postgres://u:s3cret@[db/x' })).toEqual(['s3cret']);
  });
});
