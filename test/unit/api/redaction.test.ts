import { inspect } from 'node:util';
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../../src/api/redact.js';
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
  });
});
