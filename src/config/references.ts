import type { z } from 'zod';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { unwrap } from './schema-walk.js';
import type { SourceNode } from './source-tree.js';
import type { BlockReference } from './types.js';
import { CHECK_KINDS, RESOURCE_KINDS, type KindSpec } from '../kinds/registry.js';
import { formatPath, isWholeTemplate, referenceAddress, setAtPath, templateTargets, writeReference, type ReferenceTarget, type TemplatePart } from '../model/references.js';

/** A block's keys that are not attributes (their own checks refuse references in them). */
const NOT_ATTRIBUTES = new Set(['type', 'depends_on', 'moved_from']);

/** A string of a block holding references, where it stands in the attributes and in the file. */
interface FoundReference {
  path: (string | number)[];
  parts: TemplatePart[];
  node: SourceNode;
}

/** Every string under `node` (the value of attribute `field`) that holds references, with its path. */
function findReferences(path: (string | number)[], node: SourceNode, out: FoundReference[]): void {
  if (node.template) out.push({ path, parts: node.template, node });
  if (node.entries) for (const [key, child] of node.entries) findReferences([...path, key], child, out);
  if (node.items) node.items.forEach((child, i) => findReferences([...path, i], child, out));
}

/** Whether any string under `node` holds a reference (cheap: most nodes have none). */
function holdsReference(node: SourceNode): SourceNode | undefined {
  if (node.template) return node;
  for (const child of node.entries?.values() ?? []) {
    const found = holdsReference(child);
    if (found) return found;
  }
  for (const child of node.items ?? []) {
    const found = holdsReference(child);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses references in a part of the stack that is read before any block is planned
 * (`provider:`, `defaults:`, `name:`, `renamed_from:`, `prune:`): one error at the first one.
 */
export function refuseReferences(node: SourceNode, where: string, diagnostics: Diagnostic[]): void {
  const found = holdsReference(node);
  if (!found) return;
  found.failed = true;
  diagnostics.push({
    severity: 'error',
    code: 'invalid-reference',
    summary: `${where} cannot hold a reference (${String(found.value)}): it is read before any resource is planned`,
    detail: 'References ${TYPE.NAME.FIELD} stand in the attributes of resource blocks only.',
    range: found.range,
  });
}

/**
 * The fields the read of a block depends on, where no reference may stand: its identity, its
 * natural key, and where it lives (project_id, region_id): the plan reads by them before
 * anything is applied, so they must be known from the stack alone.
 */
export function fieldsReadBefore(kind: KindSpec): Set<string> {
  const fields = new Set(kind.identity);
  const key = kind.kind === 'resource' ? kind.create?.key : undefined;
  if (Array.isArray(key)) for (const f of key) fields.add(f);
  for (const f of ['project_id', 'region_id']) if (f in kind.shape.shape) fields.add(f);
  for (const f of kind.resolvedBeforeRead ?? []) fields.delete(f);
  return fields;
}

/**
 * Why a field cannot hold a reference because the stack is loaded or planned by it, not only
 * read (undefined when it can): a file field is read when the stack is loaded; `ensure` and the
 * policies (`tags_policy`, `rules_policy`) decide what the plan does with the block, so a value
 * known only after apply would make apply do what the plan never showed.
 */
function decidedBy(kind: KindSpec, field: string): string | undefined {
  if (kind.files?.[field] !== undefined) return 'it names a file, which is read when the stack is loaded';
  if (field === 'ensure' || field.endsWith('_policy')) return `it decides what the plan does with the ${kind.type}, before anything is applied`;
  return undefined;
}

/** The JSON types a schema accepts at `path` (through objects, records, lists and unions). */
function typesAt(schema: z.ZodType, path: readonly (string | number)[]): Set<string> {
  let at: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    // zod's def is a union by `type`; its fields are read by name, as the type names them.
    const def = at.def as unknown as Record<string, unknown>;
    if (def.type === 'object') at = ((at as z.ZodObject).shape as Record<string, z.ZodType>)[String(segment)];
    else if (def.type === 'record') at = def.valueType as z.ZodType;
    else if (def.type === 'array') at = def.element as z.ZodType;
    else return new Set(['any']);
    if (at === undefined) return new Set(['any']);
    at = unwrap(at);
  }
  return typesOf(at);
}

function typesOf(schema: z.ZodType): Set<string> {
  const inner = unwrap(schema);
  // zod's def is a union by `type`; its fields are read by name, as the type names them.
  const def = inner.def as unknown as Record<string, unknown>;
  switch (def.type) {
    case 'string':
    case 'enum':
      return new Set(['string']);
    case 'number':
    case 'int':
      return new Set(['number']);
    case 'boolean':
      return new Set(['boolean']);
    case 'literal':
      return new Set((def.values as unknown[]).map((v) => typeof v));
    case 'union':
      return new Set((def.options as z.ZodType[]).flatMap((o) => [...typesOf(o)]));
    case 'pipe':
      return typesOf(def.in as z.ZodType);
    default:
      return new Set([String(def.type)]);
  }
}

/** A value of `type` that stands in for a reference while the block's other fields are validated. */
function placeholder(types: Set<string>): unknown {
  if (types.has('string')) return 'reference';
  if (types.has('number')) return 1;
  if (types.has('boolean')) return true;
  return 'reference';
}

/** What checking a block's references gave: the references (when usable) and the attributes to validate. */
export interface CheckedReferences {
  /** False when a reference was refused (the block is then not valid). */
  ok: boolean;
  references: BlockReference[];
  /** The top-level attributes that hold a reference. */
  fields: ReadonlySet<string>;
  /** The attributes with a value of the right type at each reference, for the schema. */
  substituted: Record<string, unknown>;
  /** Whether an issue at `path` is about a reference's place (its real value is checked when known). */
  atReference(path: readonly PropertyKey[]): boolean;
  /** The validated attributes with each reference as written back in its place. */
  restore(data: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Finds and checks the references in a block's own attributes (`fields`: the block's entries,
 * key → node; type, depends_on and moved_from are skipped):
 * each names a resource kind and a field that kind documents as readable, stands in a field
 * of a type it fits (a whole reference keeps its type: a number or boolean into a string field
 * is written as text; text with a reference inside is a string), not in a check, nor in a field
 * the read depends on (see fieldsReadBefore). Whether the address exists is checked once every
 * block is known (checkReferenceTargets). Undefined when the block holds no reference.
 */
export function checkBlockReferences(
  kind: KindSpec,
  address: string,
  fields: ReadonlyMap<string, SourceNode>,
  attributes: Record<string, unknown>,
  diagnostics: Diagnostic[],
): CheckedReferences | undefined {
  const found: FoundReference[] = [];
  for (const [field, node] of fields) {
    if (NOT_ATTRIBUTES.has(field)) continue;
    if (node.template || node.entries || node.items) findReferences([field], node, found);
  }
  if (found.length === 0) return undefined;
  const error = (summary: string, range: SourceRange, detail?: string) =>
    diagnostics.push({ severity: 'error', code: 'invalid-reference', summary, ...(detail === undefined ? {} : { detail }), address, range });
  const readBefore = kind.kind === 'resource' ? fieldsReadBefore(kind) : new Set<string>();
  const references: BlockReference[] = [];
  let substituted = attributes;
  for (const { path, parts, node } of found) {
    // Already reported where it stands (an address no block has, see inlineKnownReferences).
    if (node.failed) continue;
    const written = String(node.value);
    if (kind.kind === 'check') {
      error(`a check cannot use references (${written}): checks are evaluated when planning, before apply makes what they would read`, node.range);
      node.failed = true;
      continue;
    }
    const decides = decidedBy(kind, String(path[0]));
    if (decides !== undefined) {
      error(`${String(path[0])} cannot hold a reference (${written}): ${decides}`, node.range, `Write ${String(path[0])} out; references stand in the other attributes.`);
      node.failed = true;
      continue;
    }
    if (readBefore.has(String(path[0]))) {
      // A misspelt kind or field says so (with its did-you-mean) rather than that the field cannot hold it.
      let named = true;
      for (const target of templateTargets(parts)) named = checkTarget(target, node.range, error) && named;
      if (named) {
        error(
          `${String(path[0])} cannot hold a reference (${written}): edgeform reads the ${kind.type} by it before anything is applied`,
          node.range,
          `Write ${String(path[0])} out; references stand in the other attributes.`,
        );
      }
      node.failed = true;
      continue;
    }
    let usable = true;
    for (const target of templateTargets(parts)) usable = checkTarget(target, node.range, error) && usable;
    const expected = typesAt(kind.shape, path);
    let stringify = false;
    if (usable && !expected.has('any')) {
      const whole = isWholeTemplate(parts);
      const given = whole ? readableType(parts[0] as ReferenceTarget) : 'string';
      if (!expected.has(given)) {
        if (whole && expected.has('string')) stringify = true;
        else {
          const takes = [...expected].join(' or ');
          error(
            `${formatPath(path)} takes a ${takes}, but ${written} is ${whole ? `a ${given}` : 'text (a reference inside a string is written as text)'}`,
            node.range,
            whole ? undefined : 'Write the reference alone as the whole value to keep its type.',
          );
          usable = false;
        }
      }
    }
    if (!usable) {
      node.failed = true;
      continue;
    }
    references.push({ path, template: written, parts, range: node.range, ...(stringify ? { stringify: true } : {}) });
    substituted = setAtPath(substituted, path, placeholder(expected));
  }
  const paths = found.map((f) => f.path);
  return {
    ok: references.length === found.length,
    references,
    fields: new Set(found.map((f) => String(f.path[0]))),
    substituted,
    atReference: (path) => paths.some((p) => p.every((segment, i) => path[i] === segment)),
    restore(data) {
      let out = data;
      for (const r of references) out = setAtPath(out, r.path, r.template);
      return out;
    },
  };
}

/** The type of what a reference reads (string when unknown: its error is reported elsewhere). */
function readableType(target: ReferenceTarget): string {
  return (RESOURCE_KINDS as Record<string, KindSpec>)[target.type]?.readable?.[target.field]?.type ?? 'string';
}

/** Checks a reference's TYPE (a resource kind) and FIELD (readable for that kind); false with an error otherwise. */
function checkTarget(target: ReferenceTarget, range: SourceRange, error: (summary: string, range: SourceRange, detail?: string) => void): boolean {
  const kinds = RESOURCE_KINDS as Record<string, KindSpec>;
  const written = writeReference(target);
  if (Object.hasOwn(CHECK_KINDS, target.type)) {
    error(`${written} refers to a check; a reference reads a resource`, range, 'Checks are read-only assertions and have no attributes to read.');
    return false;
  }
  const kind = kinds[target.type];
  if (kind === undefined) {
    error(
      `${written}: unknown resource type "${target.type}"${didYouMean(target.type, Object.keys(kinds))}`,
      range,
      `A reference is \${TYPE.NAME.FIELD}; resource types: ${Object.keys(kinds).join(', ')}.`,
    );
    return false;
  }
  const readable = Object.keys(kind.readable ?? {});
  if (!readable.includes(target.field)) {
    error(
      `${written}: a ${target.type} has no readable field "${target.field}"${didYouMean(target.field, readable)}`,
      range,
      `A reference to a ${target.type} may read: ${readable.join(', ')}.`,
    );
    return false;
  }
  return true;
}

/** `remote_group_id: self` when the kind names a block itself by a word at `path` (KindSpec.selfNames). */
function selfName(type: string, path: readonly (string | number)[]): string | undefined {
  const names = (RESOURCE_KINDS as Record<string, KindSpec>)[type]?.selfNames;
  const word = names?.[path.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('.')];
  return word === undefined ? undefined : `${String(path.at(-1))}: ${word}`;
}

/** A block as checkReferenceTargets sees it. */
export interface ReferringBlock {
  address: string;
  references: readonly BlockReference[];
}

/**
 * Checks that every reference names a block of the stack (did-you-mean over its addresses),
 * not the block itself, and not one with `ensure: absent` (it will not exist to be read).
 * `absent` tells which addresses are such blocks.
 */
export function checkReferenceTargets(
  blocks: readonly ReferringBlock[],
  addresses: ReadonlySet<string>,
  absent: ReadonlySet<string>,
  suggestionsLeft: { count: number },
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const all = [...addresses];
  for (const block of blocks) {
    for (const reference of block.references) {
      for (const target of templateTargets(reference.parts)) {
        // A reference to another stack is checked against the fleet (fleet-references.ts).
        if (target.stack !== undefined) continue;
        const to = referenceAddress(target);
        const error = (summary: string, detail?: string) =>
          out.push({ severity: 'error', code: 'invalid-reference', summary, ...(detail === undefined ? {} : { detail }), address: block.address, range: reference.range });
        if (!addresses.has(to)) {
          const hint = suggestionsLeft.count-- > 0 ? didYouMean(to, all) : '';
          error(`${writeReference(target)} refers to ${to}, which is not in the stack${hint}`);
        } else if (to === block.address) {
          const self = selfName(target.type, reference.path);
          if (self === undefined) error(`${writeReference(target)} refers to the block itself`, 'A block cannot read its own attributes; write the value out.');
          else
            error(
              `${writeReference(target)} refers to the block itself; write ${self}`,
              `A block cannot read its own attributes; ${self} names it (its id is not known before it exists).`,
            );
        } else if (absent.has(to) && !absent.has(block.address)) {
          // A block being deleted reads nothing: its reference to another block being deleted is only
          // the dependency that deletes it first (a subnet before its network).
          error(`${writeReference(target)} refers to ${to}, which has ensure: absent`, 'A block being deleted has nothing to read; remove the reference or the ensure: absent.');
        }
      }
    }
  }
  return out;
}

/** A block the loader has not validated yet, as inlineKnownReferences reads it. */
export interface UnvalidatedBlock {
  section: 'resources' | 'checks';
  name: string;
  node: SourceNode;
}

/**
 * Writes out the references that stand in a field the read depends on (see fieldsReadBefore) but
 * whose value is known from the stack alone: a whole `${TYPE.NAME.FIELD}` naming a field of the
 * other block's identity (a dns_zone's `name`) that the other block writes as a literal. Such a
 * value is what the plan would read anyway (an identity is never changed by apply), so a record
 * set may name its zone as `${dns_zone.main.name}`. The node takes the literal in place of the
 * template (before any block is validated), and the block depends on the one it named, as with
 * any reference: the answer, by address, with where each reference stood. A reference of that
 * shape to an address no block has is an error with the address it likely meant (a typo, not a
 * reference the field cannot hold). References that are not so known are left as they are (the
 * usual checks refuse them).
 */
export function inlineKnownReferences(blocks: readonly UnvalidatedBlock[], diagnostics: Diagnostic[]): Map<string, Array<{ address: string; range: SourceRange }>> {
  const byAddress = new Map<string, SourceNode>();
  for (const block of blocks) {
    const type = block.node.entries?.get('type')?.value;
    if (block.section === 'resources' && typeof type === 'string') byAddress.set(`${type}.${block.name}`, block.node);
  }
  const implied = new Map<string, Array<{ address: string; range: SourceRange }>>();
  for (const [address, node] of byAddress) {
    const kind = (RESOURCE_KINDS as Record<string, KindSpec>)[address.slice(0, address.indexOf('.'))];
    if (kind === undefined) continue;
    for (const field of fieldsReadBefore(kind)) {
      const value = node.entries?.get(field);
      if (!value?.template || !isWholeTemplate(value.template)) continue;
      const target = value.template[0] as ReferenceTarget;
      // Another stack's block is not known from this stack alone (the field's rule refuses it).
      if (target.stack !== undefined) continue;
      const targetKind = (RESOURCE_KINDS as Record<string, KindSpec>)[target.type];
      const source = byAddress.get(referenceAddress(target))?.entries?.get(target.field);
      if (targetKind === undefined || !targetKind.identity.includes(target.field) || targetKind.readable?.[target.field] === undefined) continue;
      if (!byAddress.has(referenceAddress(target))) {
        // A typo in the address (`${dns_zone.zoen.name}`): name the block it likely meant, not the field's rule.
        const to = referenceAddress(target);
        diagnostics.push({
          severity: 'error',
          code: 'invalid-reference',
          summary: `${writeReference(target)} refers to ${to}, which is not in the stack${didYouMean(to, [...byAddress.keys()])}`,
          address,
          range: value.range,
        });
        value.failed = true;
        continue;
      }
      if (source === undefined || source.template || typeof source.value !== 'string' || referenceAddress(target) === address) continue;
      const range = value.range;
      value.value = source.value;
      delete value.template;
      const list = implied.get(address) ?? [];
      list.push({ address: referenceAddress(target), range });
      implied.set(address, list);
    }
  }
  return implied;
}
