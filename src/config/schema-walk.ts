import type { z } from 'zod';
import type { SourceNode } from './source-tree.js';

/**
 * The value to validate for `node` against `schema`: the plain value, except that a scalar
 * which was exactly one `${env:NAME}` reference becomes an integer or boolean when the field
 * expects one and the variable's text is one ("42", "true"). Environment variables are
 * always text; this lets `project_id: ${env:PROJECT_ID}` work without making quoted
 * numbers ("42") acceptable in general. Descends into nested objects (e.g. `where:`).
 */
export function valueForSchema(schema: z.ZodType | undefined, node: SourceNode): unknown {
  if (!schema) return node.value;
  const inner = unwrap(schema);
  const type = inner.def.type;
  if (node.envReference !== undefined && typeof node.value === 'string') {
    if (type === 'number' && /^-?\d+$/.test(node.value)) return Number(node.value);
    if (type === 'boolean' && (node.value === 'true' || node.value === 'false')) return node.value === 'true';
    return node.value;
  }
  if (type === 'object' && node.entries) {
    const shape = (inner as z.ZodObject).shape as Record<string, z.ZodType>;
    return Object.fromEntries([...node.entries].map(([key, child]) => [key, valueForSchema(shape[key], child)]));
  }
  return node.value;
}

/** The schema under optional / default / nullable wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let at = schema;
  while ('innerType' in at.def && (at.def.type === 'optional' || at.def.type === 'default' || at.def.type === 'nullable' || at.def.type === 'prefault')) {
    at = at.def.innerType as z.ZodType;
  }
  return at;
}

/** The field names the object schema at `path` (through objects and list items) accepts (for "did you mean"), or [] when it is not an object. */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    // A list's items (regional_limits[0]) have the list's element schema.
    if (typeof segment === 'number' && at?.def.type === 'array') at = unwrap((at as z.ZodArray).element as z.ZodType);
    else if (at?.def.type === 'object') at = (at as z.ZodObject).shape[String(segment)] as z.ZodType | undefined;
    else return [];
    at = at && unwrap(at);
  }
  return at?.def.type === 'object' ? Object.keys((at as z.ZodObject).shape) : [];
}
