import { describeValueType } from './describe-issue.js';
import type { z } from 'zod';
import { addDiagnostics, type Diagnostic, type SourceRange } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { issuesToDiagnostics, locate } from './issue-diagnostics.js';
import { CHECK_KINDS, RESOURCE_KINDS, type KindSpec } from '../kinds/registry.js';
import { takesMoves } from '../kinds/kind-spec.js';
import { checkBlockReferences } from './references.js';
import { claimSensitive, releaseSecretIds } from './sensitive-fields.js';
import { valueForSchema } from './schema-walk.js';
import { whereValueStands } from './source-node.js';
import type { SourceNode } from './source-tree.js';
import type { Block, BlockReference, CheckBlock, ResourceBlock } from './types.js';

/** Block names: what may follow `TYPE.` in an address. */
export const NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]*$/;

/** `TYPE.NAME` as written in depends_on. */
export const ADDRESS_PATTERN = /^([a-z][a-z0-9_]*)\.([a-zA-Z_][a-zA-Z0-9_-]*)$/;

/**
 * `moved_from:` as written: `OLDSTACK/TYPE.NAME` (a stack name as `name:` takes it) or `TYPE.NAME`.
 * Groups: the stack (or undefined), the type, the name.
 */
export const MOVED_FROM_PATTERN = /^(?:([A-Za-z0-9][A-Za-z0-9._-]{0,62})\/)?([a-z][a-z0-9_]*)\.([a-zA-Z_][a-zA-Z0-9_-]*)$/;

/** One entry of `resources:` or `checks:` as read from a file, before validation. */
export interface RawBlock {
  section: 'resources' | 'checks';
  name: string;
  node: SourceNode;
}

/** A block whose type is known: its address and dependencies, and its validated block if valid. */
export interface TypedBlock {
  address: string;
  keyRange: SourceRange;
  dependsOn: Array<{ address: string; range: SourceRange }>;
  /** `moved_from:` when valid: the old stack (undefined: not written) and address, and where it stands. */
  movedFrom?: { stack?: string; address: string; range: SourceRange };
  /** The block's usable references (their targets' addresses are checked against the whole stack later). */
  references?: BlockReference[];
  /** Undefined when the block's attributes have errors. */
  block?: Block;
  /** The nodes of its sensitive values (KindSpec.sensitive): masked in code frames. */
  sensitive?: SourceNode[];
}

/**
 * Validates one block: its name, its `type` (did-you-mean, right section), `depends_on`
 * syntax, and its attributes after filling `defaults` (schema of its kind). Returns
 * undefined when the type is unusable, since nothing else can be said about the block.
 */
export function validateBlock(
  raw: RawBlock,
  defaults: ReadonlyMap<string, SourceNode>,
  usedDefaults: Set<string>,
  diagnostics: Diagnostic[],
  claimed: Set<Diagnostic> = new Set(),
): TypedBlock | undefined {
  const { node, name, section } = raw;
  const keyRange = node.keyRange ?? node.range;
  const noun = section === 'resources' ? 'resource' : 'check';
  const error = (code: string, summary: string, range: SourceRange, extra: { detail?: string; address?: string } = {}): void => {
    diagnostics.push({ severity: 'error', code, summary, ...extra, range });
  };
  if (!NAME_PATTERN.test(name)) {
    error('invalid-name', `invalid ${noun} name "${name}"`, keyRange, {
      detail: 'A name starts with a letter or "_" and holds only letters, digits, "_" and "-".',
    });
  }
  if (!node.entries) {
    error('invalid-type', `${noun} "${name}" must be a mapping with a type field, not ${describeValueType(node.value)}`, node.range);
    return undefined;
  }
  const kind = resolveKind(raw, node.entries, keyRange, error);
  if (!kind) return undefined;
  // Fields holding the id of a secret resource are not credentials (KindSpec.secretIds).
  if (kind.secretIds) {
    const { released, found } = releaseSecretIds(kind, node);
    released.forEach((refusal) => claimed.add(refusal));
    diagnostics.push(...found);
  }
  const address = `${kind.type}.${name}`;

  const dependsOn = readDependsOn(node.entries.get('depends_on'), address, error);
  const movedFrom = readMovedFrom(node.entries.get('moved_from'), kind, address, error);

  const { attributes, fieldSources, inherited } = readAttributes(kind, node.entries, defaults, usedDefaults);

  // Sensitive fields hold their ${env:NAME} reference, never the value (see claimSensitive).
  const secrets = kind.sensitive ? claimSensitive(kind, node, attributes, address, diagnostics, claimed) : undefined;
  if (secrets) Object.assign(attributes, secrets.attributes);
  const sensitive = secrets && secrets.nodes.length > 0 ? { sensitive: secrets.nodes } : {};

  // References (`${TYPE.NAME.FIELD}`): checked here, and validated as a value of their type.
  const refs = checkBlockReferences(kind, address, node.entries, attributes, diagnostics);
  const referenceFields = refs && { ...(refs.references.length > 0 ? { references: refs.references } : {}) };
  const typed: TypedBlock = { address, keyRange, dependsOn, ...(movedFrom ? { movedFrom } : {}), ...referenceFields, ...sensitive };

  const data = parseAttributes(kind, node, address, attributes, refs, inherited, diagnostics);
  if (data === undefined || (refs && !refs.ok) || (secrets && !secrets.ok)) return typed;
  const block = {
    kind: section === 'resources' ? 'resource' : 'check',
    type: kind.type,
    name,
    address,
    dependsOn: [...new Set(dependsOn.map((d) => d.address))],
    range: keyRange,
    fieldSources,
    attributes: refs ? refs.restore(data) : data,
    ...referenceFields,
  } as ResourceBlock | CheckBlock;
  addKindWarnings(kind, node, block, diagnostics);
  return { ...typed, block };
}

/**
 * A block's attributes as written, then the `defaults` its kind takes and it does not set
 * (`inherited`, and noted in `usedDefaults`), each with where it stands.
 */
function readAttributes(kind: KindSpec, entries: ReadonlyMap<string, SourceNode>, defaults: ReadonlyMap<string, SourceNode>, usedDefaults: Set<string>) {
  const shape = kind.shape.shape as Record<string, z.ZodType>;
  const attributes: Record<string, unknown> = {};
  // Where each field stands, not its node: a node holds its whole subtree (see whereValueStands).
  const fieldSources: Record<string, { readonly range: SourceRange }> = {};
  for (const [field, child] of entries) {
    if (field === 'type' || field === 'depends_on' || field === 'moved_from') continue;
    attributes[field] = valueForSchema(shape[field], child);
    fieldSources[field] = whereValueStands(child);
  }
  const inherited = new Set<string>();
  for (const [field, child] of defaults) {
    if (!(field in shape) || field in attributes) continue;
    attributes[field] = valueForSchema(shape[field], child);
    fieldSources[field] = whereValueStands(child);
    inherited.add(field);
    usedDefaults.add(field);
  }
  return { attributes, fieldSources, inherited };
}

/**
 * The attributes checked against the kind's schema (references stand as placeholders of their
 * type): the parsed attributes, or undefined with the schema's issues added as diagnostics.
 */
function parseAttributes(
  kind: KindSpec,
  node: SourceNode,
  address: string,
  attributes: Record<string, unknown>,
  refs: ReturnType<typeof checkBlockReferences>,
  inherited: ReadonlySet<string>,
  diagnostics: Diagnostic[],
): Record<string, unknown> | undefined {
  const validated = refs ? refs.substituted : attributes;
  // A valid block is checked once, without keeping inputs; an invalid one again with them, for
  // its diagnostics (reportInput makes every check a third slower: 120 against 87 ms for
  // 10,000 blocks).
  const result = kind.schema.safeParse(validated);
  if (result.success) return result.data as Record<string, unknown>;
  if (refs && result.error.issues.every((issue) => refs.atReference(issue.path))) {
    // Only a rule the placeholder of a reference did not meet (a UUID's format, a name's pattern):
    // the real value is checked when it is known. The fields keep their values as written.
    return parseAroundReferences(kind, attributes, refs.fields);
  }
  const reported = kind.schema.safeParse(validated, { reportInput: true });
  const issues = (reported.error ?? result.error).issues.filter((issue) => !refs?.atReference(issue.path));
  addDiagnostics(
    diagnostics,
    issuesToDiagnostics(issues, {
      root: node,
      schema: kind.shape,
      subject: kind.type,
      extraKeys: takesMoves(kind) ? ['type', 'depends_on', 'moved_from'] : ['type', 'depends_on'],
      address,
      skip: (path) => inherited.has(String(path[0])),
      missingDetail: (field) => missingFieldDetail(kind, field),
      otherNames: [
        ...(kind.terraform ? [{ whose: 'the Terraform provider', fields: kind.terraform.fields }] : []),
        ...(kind.formerNames ? [{ whose: 'edgeform', fields: kind.formerNames, former: true as const }] : []),
      ],
    }),
  );
  return undefined;
}

/** The warnings a kind gives about a valid block (KindSpec.warnings), each at the field it names. */
function addKindWarnings(kind: KindSpec, node: SourceNode, block: ResourceBlock | CheckBlock, diagnostics: Diagnostic[]): void {
  for (const warning of kind.warnings?.(block.attributes as Record<string, unknown>) ?? []) {
    const { node: at } = locate(node, warning.path);
    diagnostics.push({
      severity: 'warning',
      code: warning.code,
      summary: warning.message,
      ...(warning.detail === undefined ? {} : { detail: warning.detail }),
      address: block.address,
      range: at.keyRange ?? at.range,
    });
  }
}

function resolveKind(
  raw: RawBlock,
  entries: ReadonlyMap<string, SourceNode>,
  keyRange: SourceRange,
  error: (code: string, summary: string, range: SourceRange, extra?: { detail?: string }) => void,
): KindSpec | undefined {
  const typeNode = entries.get('type');
  const own: Record<string, KindSpec> = raw.section === 'resources' ? RESOURCE_KINDS : CHECK_KINDS;
  const other: Record<string, KindSpec> = raw.section === 'resources' ? CHECK_KINDS : RESOURCE_KINDS;
  const noun = raw.section === 'resources' ? 'resource' : 'check';
  if (!typeNode) {
    error('missing-field', `${noun} "${raw.name}" has no type`, keyRange, { detail: `Add type: with one of: ${Object.keys(own).join(', ')}.` });
    return undefined;
  }
  if (typeof typeNode.value !== 'string') {
    error('invalid-type', `type must be a string, not ${describeValueType(typeNode.value)}`, typeNode.range);
    return undefined;
  }
  if (typeNode.interpolated) {
    error('invalid-interpolation', 'type cannot use ${env:...} or a reference: the kind of a block must be written out', typeNode.range);
    return undefined;
  }
  const type = typeNode.value;
  const kind = own[type];
  if (kind) return kind;
  if (other[type]) {
    const where = raw.section === 'resources' ? 'checks' : 'resources';
    error('wrong-section', `${type} is a ${where === 'checks' ? 'check' : 'resource'} type; declare "${raw.name}" under ${where}:`, typeNode.range);
    return undefined;
  }
  error('unknown-type', `unknown ${noun} type "${type}"${didYouMean(type, Object.keys(own))}`, typeNode.range, {
    detail: `${noun === 'resource' ? 'Resource' : 'Check'} types: ${Object.keys(own).join(', ')}.`,
  });
  return undefined;
}

function readDependsOn(
  node: SourceNode | undefined,
  address: string,
  error: (code: string, summary: string, range: SourceRange, extra?: { detail?: string; address?: string }) => void,
): Array<{ address: string; range: SourceRange }> {
  if (!node || node.value === null) return [];
  if (!node.items) {
    error('invalid-type', `depends_on must be a list of addresses, not ${describeValueType(node.value)}`, node.range, {
      address,
      detail: 'Write depends_on: [cloud_instance.web_vm, ...].',
    });
    return [];
  }
  const out: Array<{ address: string; range: SourceRange }> = [];
  for (const item of node.items) {
    if (typeof item.value !== 'string' || !ADDRESS_PATTERN.test(item.value) || item.interpolated) {
      error('invalid-value', 'depends_on entries must be addresses like cloud_instance.web_vm', item.range, {
        address,
        detail: item.interpolated
          ? 'Addresses cannot use ${env:...} or references; the dependency graph must be known before anything runs (a reference elsewhere in the block is already a dependency).'
          : 'An address is TYPE.NAME.',
      });
      continue;
    }
    out.push({ address: item.value, range: item.range });
  }
  return out;
}

/**
 * `moved_from:` of a block: an old address of the block's own type, with or without the old
 * stack's name, written out (no `${env:...}`), on a kind whose creates carry ownership tags
 * (only their tags say where a resource was). Undefined (with a diagnostic) when it is not usable.
 */
function readMovedFrom(
  node: SourceNode | undefined,
  kind: KindSpec,
  address: string,
  error: (code: string, summary: string, range: SourceRange, extra?: { detail?: string; address?: string }) => void,
): TypedBlock['movedFrom'] {
  if (!node) return undefined;
  if (!takesMoves(kind)) {
    const owners = Object.values(RESOURCE_KINDS)
      .filter((k) => takesMoves(k))
      .map((k) => k.type);
    error(
      'invalid-field',
      `moved_from is only for kinds whose resources record their owner (${owners.join(', ')}); a ${kind.type} is found by its id or name`,
      node.keyRange ?? node.range,
      { address },
    );
    return undefined;
  }
  const match = typeof node.value === 'string' && !node.interpolated ? MOVED_FROM_PATTERN.exec(node.value) : null;
  if (!match) {
    error('invalid-value', `moved_from must be an old address, OLDSTACK/${kind.type}.NAME or ${kind.type}.NAME`, node.range, {
      address,
      detail: node.interpolated
        ? 'moved_from cannot use ${env:...} or a reference: what a plan re-tags must be written out.'
        : `Write the address the resource had before the rename, e.g. moved_from: ${kind.type}.old_name, or moved_from: old-stack/${kind.type}.old_name when the stack's name changed too.`,
    });
    return undefined;
  }
  const [, stack, type, name] = match;
  if (type !== kind.type) {
    error('invalid-value', `moved_from names a ${type}, but this block is a ${kind.type}: a resource keeps its type when renamed`, node.range, {
      address,
      detail: `Write moved_from: ${stack === undefined ? '' : `${stack}/`}${kind.type}.${name}.`,
    });
    return undefined;
  }
  return { ...(stack === undefined ? {} : { stack }), address: `${type}.${name}`, range: node.range };
}

/**
 * What to do about a missing required field: an identity field is set in the block itself (an
 * adopt-only kind's id says that edgeform cannot create the kind); any other field may also come
 * from `defaults:`.
 */
function missingFieldDetail(kind: KindSpec, field: string): string {
  if (!kind.identity.includes(field)) return `Set ${field} in the block, or once for every block under defaults:.`;
  if (kind.kind === 'resource' && kind.create === undefined && field === kind.identity[0]) {
    return `Set ${field} in the block to the id of an existing ${kind.type}: edgeform adopts ${kind.type} resources but cannot create them (the kind is adopt-only).`;
  }
  return `Set ${field} in the block.`;
}

/**
 * The attributes of a block whose only schema issues are at its references' places: each field
 * parsed by its own schema (defaults filled), except those holding a reference (`fields`), kept as written.
 */
function parseAroundReferences(kind: KindSpec, attributes: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(kind.shape.shape as Record<string, z.ZodType>)) {
    const value = attributes[field];
    if (fields.has(field)) {
      out[field] = value;
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) out[field] = value;
    else if (parsed.data !== undefined) out[field] = parsed.data;
  }
  return out;
}
