/**
 * `${stack:NAME/TYPE.BLOCK.FIELD}`: a reference to a field of a resource another stack of the
 * fleet owns (the stack whose `name:` is NAME, its block TYPE.BLOCK), read from the platform
 * where that stack's ownership tags find it: no state file, no output declarations. Pure: the
 * syntax, how such a reference is written back, and the address its read is recorded under. The
 * general reference code (references.ts) calls these three hooks; a target with `stack` is one of
 * these, everything else about it (the fleet's checks, the reads) lives in the CLI's fleet code.
 */

/** What one `${stack:NAME/TYPE.BLOCK.FIELD}` names (as ReferenceTarget, with the stack). */
export interface StackReferenceTarget {
  stack: string;
  type: string;
  name: string;
  field: string;
}

/** The inside of `${...}` of a reference to another stack (groups: stack, type, block, field). */
export const STACK_REFERENCE_INNER = /^stack:([A-Za-z0-9][A-Za-z0-9._-]{0,62})\/([a-z][a-z0-9_]*)\.([a-zA-Z_][a-zA-Z0-9_-]*)\.([a-zA-Z_][a-zA-Z0-9_]*)$/;

/** The reference to another stack `${...}` holds, or undefined when it is not `stack:NAME/TYPE.BLOCK.FIELD`. */
export function parseStackReference(inner: string): StackReferenceTarget | undefined {
  const match = STACK_REFERENCE_INNER.exec(inner);
  return match ? { stack: must(match[1], 'match[1]'), type: must(match[2], 'match[2]'), name: must(match[3], 'match[3]'), field: must(match[4], 'match[4]') } : undefined;
}

/** Whether a reference target reads another stack. */
export function isStackReference(target: { stack?: string | undefined }): target is StackReferenceTarget {
  return target.stack !== undefined;
}

/** A reference to another stack as written: `${stack:NAME/TYPE.BLOCK.FIELD}`. */
export function writeStackReference(target: StackReferenceTarget): string {
  return `\${stack:${target.stack}/${target.type}.${target.name}.${target.field}}`;
}

/**
 * The address a reference to another stack's block is read under, in the plan's reads
 * (`stack:NAME/TYPE.BLOCK`): never one of the stack's own addresses (they have no `:`).
 */
export function stackReferenceAddress(target: Pick<StackReferenceTarget, 'stack' | 'type' | 'name'>): string {
  return `stack:${target.stack}/${target.type}.${target.name}`;
}
import { must } from '../errors.js';
