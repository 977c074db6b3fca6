import type { z } from 'zod';

/**
 * Everything edgeform knows about one resource or check kind's stack block. `shape` is the
 * strict object of attributes (no `type`, no `depends_on`); `schema` adds the cross-field
 * rules and is what the loader validates with. `identity` names the fields that pick the
 * one platform object a block manages: they are required in the block itself and may never
 * come from `defaults:` (a default id would point every block at the same object). The
 * attribute type the planner and the kind's provider see is the shape's output (see
 * ResourceAttributes in registry.ts), so the schema and the type cannot drift apart.
 */
export interface KindSpec<Shape extends z.ZodObject = z.ZodObject, Type extends string = string, Kind extends 'resource' | 'check' = 'resource' | 'check'> {
  readonly type: Type;
  /** A resource (planned and applied) or a check (a read-only assertion). */
  readonly kind: Kind;
  readonly description: string;
  readonly identity: readonly string[];
  readonly shape: Shape;
  /** What the loader validates with: `shape` plus the cross-field rules, if any (same output). */
  readonly schema: z.ZodType;
}

/**
 * Declares a kind. A `schema` with cross-field rules must produce exactly the shape's output
 * (the attribute type is the shape's); without one, the strict object shape is the validator.
 */
export function defineKind<Type extends string, Shape extends z.ZodObject, Kind extends 'resource' | 'check'>(
  spec: Omit<KindSpec<Shape, Type, Kind>, 'schema'> & { schema?: z.ZodType<z.output<Shape>> },
): KindSpec<Shape, Type, Kind> {
  return { ...spec, schema: spec.schema ?? spec.shape };
}
