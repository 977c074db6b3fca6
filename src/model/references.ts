/**
 * The reference syntax every layer reads: `${TYPE.NAME.FIELD}` targets, templates of literal
 * text and references, and paths into attributes. Pure text and values: it knows no kind, no
 * plan and no stack, so config/, plan/ and the kinds may all use it (see docs/architecture.md).
 */
import { must } from '../errors.js';
import { isStackReference, parseStackReference, stackReferenceAddress, writeStackReference } from './stack-reference.js';

/** What one `${TYPE.NAME.FIELD}` names: a block's address (`TYPE.NAME`) and the attribute it reads. */
export interface ReferenceTarget {
  type: string;
  name: string;
  field: string;
  /** Set for `${stack:NAME/TYPE.BLOCK.FIELD}`: the other stack's name (see stack-reference.ts). */
  stack?: string;
}

/** A string value as written with references: literal text (env already expanded) and references, in order. */
export type TemplatePart = string | ReferenceTarget;

/** The inside of `${...}` that names a reference: TYPE.NAME.FIELD (groups: type, name, field). */
export const REFERENCE_INNER = /^([a-z][a-z0-9_]*)\.([a-zA-Z_][a-zA-Z0-9_-]*)\.([a-zA-Z_][a-zA-Z0-9_]*)$/;

/** A string that is exactly one `${TYPE.NAME.FIELD}` reference, or one to another stack (`${stack:NAME/TYPE.BLOCK.FIELD}`): the JSON Schema's pattern for such values. */
export const WHOLE_RESOURCE_REFERENCE = /^\$\{(?:stack:[A-Za-z0-9][A-Za-z0-9._-]{0,62}\/)?[a-z][a-z0-9_]*\.[a-zA-Z_][a-zA-Z0-9_-]*\.[a-zA-Z_][a-zA-Z0-9_]*\}$/;

/** The reference `${...}` holds, or undefined when it is not TYPE.NAME.FIELD. */
export function parseReference(inner: string): ReferenceTarget | undefined {
  if (inner.startsWith('stack:')) return parseStackReference(inner);
  const match = REFERENCE_INNER.exec(inner);
  return match ? { type: must(match[1], 'match[1]'), name: must(match[2], 'match[2]'), field: must(match[3], 'match[3]') } : undefined;
}

/** `TYPE.NAME` of a reference's block. */
export function referenceAddress(target: ReferenceTarget): string {
  if (isStackReference(target)) return stackReferenceAddress(target);
  return `${target.type}.${target.name}`;
}

/** A reference as written: `${TYPE.NAME.FIELD}`. */
export function writeReference(target: ReferenceTarget): string {
  if (isStackReference(target)) return writeStackReference(target);
  return `\${${target.type}.${target.name}.${target.field}}`;
}

/**
 * A template as a stack would write it: literal `${` as `$${`, references as `${TYPE.NAME.FIELD}`.
 * This is what a block's attributes hold where a reference stands, what the digest covers and
 * what plans show (parseTemplate reads it back).
 */
export function writeTemplate(parts: readonly TemplatePart[]): string {
  return parts.map((p) => (typeof p === 'string' ? p.replaceAll('${', () => '$${') : writeReference(p))).join('');
}

/** The parts of a template written by writeTemplate; undefined when the text is not one (a corrupt plan file). */
export function parseTemplate(text: string): TemplatePart[] | undefined {
  const parts: TemplatePart[] = [];
  let literal = '';
  let last = 0;
  for (const match of text.matchAll(/\$\$\{|\$\{([^}]*)\}?/g)) {
    literal += text.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '$${') {
      literal += '${';
      continue;
    }
    const target = match[0].endsWith('}') ? parseReference(match[1] ?? '') : undefined;
    if (target === undefined) return undefined;
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(target);
  }
  literal += text.slice(last);
  if (literal !== '') parts.push(literal);
  return parts.some((p) => typeof p !== 'string') ? parts : undefined;
}

/** The references of a template. */
export function templateTargets(parts: readonly TemplatePart[]): ReferenceTarget[] {
  return parts.filter((p): p is ReferenceTarget => typeof p !== 'string');
}

/** Whether a template is one reference and nothing else (its value keeps the referenced type). */
export function isWholeTemplate(parts: readonly TemplatePart[]): boolean {
  return parts.length === 1 && typeof parts[0] !== 'string';
}

/**
 * The value of a template when every reference in it is known (`valueOf` answers undefined for
 * one that is not): a whole reference keeps its value's type; references inside a string are
 * written as text (a number as its digits).
 */
export function resolveTemplate(parts: readonly TemplatePart[], valueOf: (target: ReferenceTarget) => unknown): { known: true; value: unknown } | { known: false } {
  const values: unknown[] = [];
  for (const part of parts) {
    if (typeof part === 'string') continue;
    const value = valueOf(part);
    if (value === undefined || value === null) return { known: false };
    values.push(value);
  }
  if (isWholeTemplate(parts)) return { known: true, value: values[0] };
  let i = 0;
  return { known: true, value: parts.map((p) => (typeof p === 'string' ? p : String(values[i++]))).join('') };
}

/** A copy of `root` with `value` at `path` (objects and arrays along the path copied, the rest shared). */
export function setAtPath<T>(root: T, path: readonly (string | number)[], value: unknown): T {
  if (path.length === 0) return value as T;
  const [head, ...rest] = path;
  const container = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<string | number, unknown>;
  container[must(head, 'head')] = setAtPath(container[must(head, 'head')], rest, value);
  return container as T;
}

/** A path as plans show it: `env.ORIGIN_IP`, `items[0].name`. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
