import type { z } from 'zod';

/** A zod issue turned into diagnostic words: a stable code, a one-line summary, an optional detail. */
export interface IssueText {
  code: string;
  summary: string;
  detail?: string;
}

/** `tags["a b"]`, `where.status`, `languages[1]`: a path as the user would write it. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(segment))) out += out ? `.${String(segment)}` : String(segment);
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** "a string", "an integer", "a list", ...: a value's type in the stack's own words. */
export function describeValueType(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN (not a number)' : !Number.isFinite(value) ? 'infinity' : Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'boolean' ? 'a boolean' : 'a string';
}

const EXPECTED: Record<string, string> = {
  number: 'an integer',
  int: 'an integer',
  string: 'a string',
  boolean: 'a boolean (true or false)',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
};

/**
 * Words for one zod issue (parsed with reportInput) at `path` of a block. Schema-level
 * messages (fields.ts) already say what is wrong; this adds the field name, and wording for
 * the generic cases: wrong type, missing field, enum value not in the list.
 */
export function describeIssue(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): IssueText {
  const field = formatPath(path);
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return { code: 'missing-field', summary: `missing required field "${field}"` };
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      const quoteHint =
        issue.expected === 'string' && (typeof input === 'number' || typeof input === 'boolean')
          ? { detail: `YAML reads ${String(input)} as ${describeValueType(input)}; quote it ("${String(input)}") to make it a string.` }
          : issue.expected === 'boolean' && typeof input === 'string' && /^(yes|no|on|off|y|n)$/i.test(input)
            ? { detail: `YAML 1.2 reads ${input} as a string; write true or false.` }
            : {};
      return { code: 'invalid-type', summary: `${field} must be ${expected}, not ${describeValueType(input)}`, ...quoteHint };
    }
    case 'invalid_value': {
      if (path[path.length - 1] === 'ensure' && input === 'absent') return { code: 'cannot-delete', summary: issue.message };
      const allowed = issue.values.map((v) => String(v)).join(', ');
      return {
        code: 'invalid-value',
        summary: `${field} must be one of: ${allowed}`,
        detail: typeof input === 'string' ? `Got "${input}".` : `Got ${describeValueType(input)}.`,
      };
    }
    case 'invalid_key': {
      const inner = issue.issues[0];
      return {
        code: 'invalid-value',
        summary: `invalid key ${JSON.stringify(String(path[path.length - 1]))} in ${formatPath(path.slice(0, -1))}: ${inner?.message ?? issue.message}`,
      };
    }
    case 'too_small':
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
        return { code: 'invalid-value', summary: withField(field, issue.message), detail: `Got ${String(input)}.` };
      }
      return { code: 'invalid-value', summary: withField(field, issue.message) };
    case 'too_big':
      return {
        code: 'invalid-value',
        summary: withField(field, issue.message),
        ...(typeof input === 'string' ? { detail: `This one is ${input.length} characters long.` } : {}),
      };
    default:
      return { code: 'invalid-value', summary: withField(field, issue.message) };
  }
}

/** "email must be ..." when the message is a bare rule, "tags.env: a tag value must ..." otherwise. */
function withField(field: string, message: string): string {
  if (!field) return message;
  return message.startsWith('must ') ? `${field} ${message}` : `${field}: ${message}`;
}
