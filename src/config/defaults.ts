import { z } from 'zod';
import { addDiagnostics, type Diagnostic } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { issuesToDiagnostics } from './issue-diagnostics.js';
import { ALL_KINDS } from '../kinds/registry.js';
import { valueForSchema } from './schema-walk.js';
import type { SourceNode } from './source-tree.js';

/** Fields that pick one platform object; a default would point every block at the same one. */
const IDENTITY_FIELDS: ReadonlySet<string> = new Set(Object.values(ALL_KINDS).flatMap((k) => k.identity));

/** Why a field some kind accepts still cannot be a default. */
const NOT_DEFAULTABLE: Record<string, string> = {
  ensure: 'deletion must be stated on each block, never inherited',
  type: 'every block states its own type',
  depends_on: 'dependencies are per block',
};

/** By field, the schema `defaults:` checks it with (null: no kind has it), found so far. */
const fieldSchemas = new Map<string, z.ZodType | null>();

/**
 * The schema of a field `defaults:` may set, or null when no kind has it or it cannot be a
 * default: the first kind declaring it (registry order) provides it (shared fields such as
 * project_id use one definition in src/kinds/fields.ts). Kinds' schemas are built only up to
 * that kind (see defineKind): a stack's `project_id` default builds one kind's, not all of them.
 */
function defaultableField(field: string): z.ZodType | null {
  if (IDENTITY_FIELDS.has(field) || field in NOT_DEFAULTABLE) return null;
  let found = fieldSchemas.get(field);
  if (found === undefined) {
    found = null;
    for (const kind of Object.values(ALL_KINDS)) {
      const schema = (kind.shape.shape as Record<string, z.ZodType | undefined>)[field];
      if (schema === undefined) continue;
      found = schema.optional();
      break;
    }
    fieldSchemas.set(field, found);
  }
  return found;
}

/**
 * Every field `defaults:` may set, with its schema: the union of all kinds' attribute fields,
 * minus identity fields and `ensure` (for the editor schema, and for the list an unknown field's
 * error gives). Builds every kind's schema.
 */
export function defaultsSchema(): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const kind of Object.values(ALL_KINDS)) {
    for (const field of Object.keys(kind.shape.shape)) {
      const schema = field in shape ? null : defaultableField(field);
      if (schema !== null) shape[field] = schema;
    }
  }
  return z.strictObject(shape);
}

/**
 * Validates `defaults:` and returns the entries blocks may inherit, keyed by field. A key no
 * kind accepts is unknown-field (with did-you-mean); identity fields, `ensure`, `type` and
 * `depends_on` are not-defaultable; a bad value is reported here once, at the defaults entry,
 * and the entry is still returned so blocks do not also report the field as missing.
 */
export function validateDefaults(node: SourceNode, diagnostics: Diagnostic[]): Map<string, SourceNode> {
  const accepted = new Map<string, SourceNode>();
  if (!node.entries) {
    if (node.value !== null) {
      diagnostics.push({ severity: 'error', code: 'invalid-type', summary: 'defaults must be a mapping of field → value', range: node.range });
    }
    return accepted;
  }
  const checked: Record<string, z.ZodType> = {};
  const values: Record<string, unknown> = {};
  for (const [field, child] of node.entries) {
    const keyRange = child.keyRange ?? child.range;
    const reason = NOT_DEFAULTABLE[field] ?? (IDENTITY_FIELDS.has(field) ? 'it names one platform object; set it in each block' : undefined);
    if (reason) {
      diagnostics.push({ severity: 'error', code: 'not-defaultable', summary: `"${field}" cannot be a default: ${reason}`, range: keyRange });
      continue;
    }
    const schema = defaultableField(field);
    if (schema === null) {
      const accepts = Object.keys(defaultsSchema().shape);
      diagnostics.push({
        severity: 'error',
        code: 'unknown-field',
        summary: `unknown field "${field}" in defaults; no resource or check kind has it${didYouMean(field, accepts)}`,
        detail: `defaults accepts: ${accepts.join(', ')}.`,
        range: keyRange,
      });
      continue;
    }
    checked[field] = schema;
    values[field] = valueForSchema(schema, child);
    accepted.set(field, child);
  }
  // The fields given, each with its schema: every other field is optional, and unknown ones were reported above.
  const schema = z.strictObject(checked);
  const result = schema.safeParse(values, { reportInput: true });
  if (!result.success) {
    addDiagnostics(diagnostics, issuesToDiagnostics(result.error.issues, { root: node, schema, subject: 'defaults' }));
  }
  return accepted;
}
