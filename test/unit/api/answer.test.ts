import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAnswer, type AnswerForm } from '../../../src/api/answer.js';
import { redact } from '../../../src/api/redact.js';

const SECRET = '29841$c767b250c767b250c767b250c767b250c767b250';
const JSON_FORM: AnswerForm = { kind: 'json' };
const fip = z.looseObject({
  id: z.string(),
  tags: z.array(z.looseObject({ key: z.string(), value: z.string(), read_only: z.boolean() })),
  task_id: z.string().nullable(),
});

function mismatch(schema: z.ZodType, body: unknown, form: AnswerForm = JSON_FORM) {
  const result = checkAnswer(schema, body, form, (t) => redact(t, [SECRET]));
  if (result.ok) throw new Error('expected a mismatch');
  return result.mismatch;
}

describe('checkAnswer', () => {
  it('returns the parsed answer, extra fields kept, when it fits', () => {
    const body = { id: 'a', tags: [{ key: 'env', value: 'prod', read_only: false, extra: 1 }], task_id: null, region: 'Luxembourg' };
    expect(checkAnswer(fip, body, JSON_FORM, (t) => t)).toEqual({ ok: true, value: body });
  });

  it('names the field path, what was expected and the type found', () => {
    const body = { id: 'a', tags: [{ key: 1, value: 'prod', read_only: false }], task_id: null };
    expect(mismatch(fip, body)).toEqual({ field: 'tags.0.key', expected: 'string', got: 'number 1', moreProblems: 0 });
  });

  it('says when a field is missing, and counts the other problems', () => {
    expect(mismatch(fip, {})).toEqual({ field: 'id', expected: 'string', got: 'nothing (the field is missing)', moreProblems: 2 });
  });

  it('describes a whole answer of the wrong kind: null, an array, an empty body, a page that is not JSON', () => {
    expect(mismatch(fip, null)).toMatchObject({ field: '', expected: 'object', got: 'null' });
    expect(mismatch(fip, [])).toMatchObject({ field: '', expected: 'object', got: 'an empty array' });
    expect(mismatch(fip, null, { kind: 'empty' })).toMatchObject({ field: '', expected: 'object', got: 'an empty body' });
    expect(mismatch(fip, '<html>…</html>', { kind: 'text', mediaType: 'text/html' })).toMatchObject({ field: '', got: 'a text/html answer, not JSON' });
    expect(mismatch(z.array(z.string()), 'x', { kind: 'text', mediaType: null })).toMatchObject({ expected: 'array', got: 'an answer that is not JSON' });
  });

  it('lists the allowed values of an enum and shows the value found', () => {
    const task = z.looseObject({ state: z.enum(['NEW', 'RUNNING', 'FINISHED', 'ERROR']) });
    expect(mismatch(task, { state: 'DONE' })).toMatchObject({ field: 'state', expected: 'one of "NEW", "RUNNING", "FINISHED", "ERROR"', got: 'string "DONE"' });
  });

  it('words integers, non-empty strings and unions plainly', () => {
    expect(mismatch(z.looseObject({ id: z.number().int() }), { id: 1.5 })).toMatchObject({ expected: 'integer', got: 'number 1.5' });
    expect(mismatch(z.looseObject({ tasks: z.array(z.string().min(1)) }), { tasks: [''] })).toMatchObject({ field: 'tasks.0', expected: 'a non-empty string', got: 'string ""' });
    expect(mismatch(z.looseObject({ v: z.union([z.string(), z.number()]) }), { v: true })).toMatchObject({ expected: 'string or number', got: 'boolean true' });
  });

  it('quotes odd keys with control characters escaped', () => {
    const schema = z.looseObject({ env: z.record(z.string(), z.string()) });
    expect(mismatch(schema, { env: { 'a\nb': 1 } }).field).toBe('env."a\\nb"');
  });

  it('redacts a secret in a value before cutting it short, so no fragment of it shows', () => {
    const got = mismatch(z.looseObject({ state: z.enum(['NEW']) }), { state: `${'x'.repeat(30)}${SECRET}` }).got;
    expect(got).toContain('[REDACTED]');
    expect(got).not.toContain(SECRET.slice(0, 8));
    const long = mismatch(z.looseObject({ state: z.enum(['NEW']) }), { state: 'y'.repeat(5000) }).got;
    expect(long.length).toBeLessThan(60);
  });
});
