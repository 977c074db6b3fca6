/**
 * Checking a platform answer against the shape edgeform reads of it. Every answer is untrusted
 * input: a schema of exactly the fields a caller uses (loose objects, so extra fields are fine)
 * turns an answer of another shape into a description of the first field that does not fit,
 * `tags.0.key: expected string, got number 1`, never into a TypeError further on. Pure.
 */
import { must } from '../errors.js';
import type { z } from 'zod';

/**
 * How the client received a 2xx body, to describe a whole answer of the wrong kind: JSON, an
 * empty body, or text that is not JSON (with its media type, when it gave one).
 */
export type AnswerForm = { kind: 'json' } | { kind: 'empty' } | { kind: 'text'; mediaType: string | null };

/** The first field of an answer that does not fit its schema, described for a message. */
export interface AnswerMismatch {
  /** Dotted path into the answer (`tags.0.key`); empty for the answer as a whole. */
  field: string;
  expected: string;
  got: string;
  /** How many other fields did not fit. */
  moreProblems: number;
}

/** Longest quoted text (a value or an odd key) a description shows. */
const MAX_QUOTED = 40;

/**
 * Parses `body` with `schema`: the parsed value, or the first mismatch, described from the
 * schema and the answer (values and odd keys redacted, quoted with control characters escaped
 * and cut short; never the whole body).
 */
export function checkAnswer<T>(
  schema: z.ZodType<T>,
  body: unknown,
  form: AnswerForm,
  redact: (text: string) => string,
): { ok: true; value: T } | { ok: false; mismatch: AnswerMismatch } {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues;
  const issue = must(issues[0], 'issues[0]');
  // Redacted before anything is cut short, so no fragment of a secret survives the cut.
  const quote = (text: string) => {
    const clean = redact(text);
    return JSON.stringify(clean.length > MAX_QUOTED ? `${clean.slice(0, MAX_QUOTED)}…` : clean);
  };
  const at = valueAt(body, issue.path);
  const got = issue.path.length === 0 && form.kind !== 'json' ? describeForm(form) : at.found ? describeValue(at.value, quote) : 'nothing (the field is missing)';
  return {
    ok: false,
    mismatch: { field: formatPath(issue.path, quote), expected: describeExpected(issue, quote), got, moreProblems: issues.length - 1 },
  };
}

/** A zod issue path as `tags.0.key`; keys that are not plain words are quoted. */
function formatPath(path: readonly PropertyKey[], quote: (text: string) => string): string {
  return path
    .map((segment) => (typeof segment === 'number' || (typeof segment === 'string' && /^[A-Za-z_][\w-]*$/.test(segment)) ? String(segment) : quote(String(segment))))
    .join('.');
}

/** What a value is, for "got …": its type, with short primitives shown (`number 1.5`, `string "DONE"`). */
function describeValue(value: unknown, quote: (text: string) => string): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'array';
  if (typeof value === 'string') return `string ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}

function describeForm(form: Exclude<AnswerForm, { kind: 'json' }>): string {
  if (form.kind === 'empty') return 'an empty body';
  return form.mediaType ? `a ${form.mediaType} answer, not JSON` : 'an answer that is not JSON';
}

const TYPE_WORDS: Readonly<Record<string, string>> = { int: 'integer', record: 'object', nan: 'number' };

function describeExpected(issue: z.core.$ZodIssue, quote: (text: string) => string): string {
  const literal = (value: unknown) => (typeof value === 'string' ? quote(value) : String(value));
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_WORDS[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1 ? literal(issue.values[0]) : `one of ${issue.values.map(literal).join(', ')}`;
    case 'invalid_union': {
      const branches = issue.errors.flatMap((branch) =>
        branch
          .filter((i) => i.path.length === 0)
          .slice(0, 1)
          .map((i) => describeExpected(i, quote)),
      );
      return branches.length > 0 ? [...new Set(branches)].join(' or ') : 'a value of another shape';
    }
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'a non-empty string';
      if (issue.origin === 'array') return `at least ${String(issue.minimum)} ${Number(issue.minimum) === 1 ? 'item' : 'items'}`;
      return `${issue.origin} ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `at most ${String(issue.maximum)} items`;
      if (issue.origin === 'string') return `a string of at most ${String(issue.maximum)} characters`;
      return `${issue.origin} ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)}`;
    case 'invalid_format':
      return `a ${issue.format}`;
    default:
      return issue.message;
  }
}

function valueAt(body: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let current = body;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return { found: false };
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return { found: true, value: current };
}
