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

/**
 * Every field `defaults:` may set, with its schema: the union of all kinds' attribute fields,
 * minus identity fields and `ensure`. The first kind declaring a field provides its schema
 * (shared fields such as project_id use one definition in src/kinds/fields.ts).
 */
export const DEFAULTS_SCHEMA = z.strictObject(defaultableShape());

function defaultableShape(): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const kind of Object.values(ALL_KINDS)) {
    for (const [field, schema] of Object.entries(kind.shape.shape as Record<string, z.ZodType>)) {
      if (IDENTITY_FIELDS.has(field) || field in NOT_DEFAULTABLE || field in shape) continue;
      shape[field] = schema.optional();
    }
  }
  return shape;
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
  const shape = DEFAULTS_SCHEMA.shape as Record<string, z.ZodType>;
  const values: Record<string, unknown> = {};
  for (const [field, child] of node.entries) {
    const keyRange = child.keyRange ?? child.range;
    const reason = NOT_DEFAULTABLE[field] ?? (IDENTITY_FIELDS.has(field) ? 'it names one platform object; set it in each block' : undefined);
    if (reason) {
      diagnostics.push({ severity: 'error', code: 'not-defaultable', summary: `"${field}" cannot be a default: ${reason}`, range: keyRange });
      continue;
    }
    if (!(field in shape)) {
      diagnostics.push({
        severity: 'error',
        code: 'unknown-field',
        summary: `unknown field "${field}" in defaults; no resource or check kind has it${didYouMean(field, Object.keys(shape))}`,
        detail: `defaults accepts: ${Object.keys(shape).join(', ')}.`,
        range: keyRange,
      });
      continue;
    }
    values[field] = valueForSchema(shape[field], child);
    accepted.set(field, child);
  }
  const result = DEFAULTS_SCHEMA.safeParse(values, { reportInput: true });
  if (!result.success) {
    addDiagnostics(diagnostics, issuesToDiagnostics(result.error.issues, { root: node, schema: DEFAULTS_SCHEMA, subject: 'defaults' }));
  }
  return accepted;
}
