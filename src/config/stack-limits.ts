/** The most bytes a stack (all its files together) may have: far above any real stack (20,000 blocks are under 3 MB). */
export const MAX_STACK_BYTES = 16 * 1024 * 1024;

/** The longest value (or comment, or run of spaces) a stack may hold: no field needs more than a few hundred characters. */
export const MAX_VALUE_LENGTH = 1024 * 1024;

/**
 * The most YAML values a stack may hold: every scalar, key, list and mapping, each value an
 * alias expands counted again. Counted as the stack is read (yaml-reader.ts). A parsed value
 * costs about 130 bytes, so this, not the byte limit, is what bounds memory for a file like
 * `[0,0,0,...]`; the benchmark's 20,000 blocks of a type, an id and two tags hold 240,000.
 */
export const MAX_STACK_VALUES = 250_000;

/** The deepest a value may be nested (a stack needs about six levels). */
export const MAX_DEPTH = 64;

/**
 * The alias limit (the yaml library's `maxAliasCount` rule, which edgeform keeps): how often an
 * anchor may be used, divided by how much aliasing its value itself holds. It stops alias bombs
 * ("billion laughs") before they expand; MAX_STACK_VALUES bounds what a large anchor used many
 * times expands to.
 */
export const MAX_ALIAS_COUNT = 10_000;

/** What is left of the limits while the files of one stack are read. */
export interface StackBudget {
  /** Bytes left of MAX_STACK_BYTES. */
  bytes: number;
  /** Values left of MAX_STACK_VALUES (aliases expanded). */
  values: number;
}

/** A fresh budget for one stack. */
export function createStackBudget(): StackBudget {
  return { bytes: MAX_STACK_BYTES, values: MAX_STACK_VALUES };
}

/** The problem of a value nested deeper than MAX_DEPTH. */
export function tooDeep(): { code: 'too-deep'; summary: string; detail: string } {
  return {
    code: 'too-deep',
    summary: `values are nested more than ${MAX_DEPTH} levels deep here`,
    detail: 'A stack needs only a few levels; edgeform refuses deeper nesting so that reading it stays bounded.',
  };
}
