import { RESOURCE_KINDS, type ResourceType } from '../kinds/registry.js';
import type { BlockReference } from '../config/types.js';
import { formatPath, parseTemplate, referenceAddress, resolveTemplate, setAtPath, templateTargets, type ReferenceTarget } from '../model/references.js';
import { KNOWN_AFTER_APPLY, type ChangeFields, type PendingReference, type ReadResult } from './types.js';

/**
 * The value a reference reads from its block's observed state (the kind's readable field), or
 * undefined when the kind has no such field or the platform has no value for it yet.
 */
export function readReferencedValue(target: ReferenceTarget, state: Readonly<Record<string, unknown>>): unknown {
  const kind = RESOURCE_KINDS[target.type as ResourceType] as { readable?: Record<string, { read(state: Readonly<Record<string, unknown>>): unknown }> } | undefined;
  const value = kind?.readable?.[target.field]?.read(state);
  return value === null ? undefined : value;
}

/**
 * Terraform's `after_unknown`: the structure of `after` with `true` at each value not known until
 * apply (KNOWN_AFTER_APPLY: a platform id, a reference to what apply makes), nothing elsewhere;
 * undefined when every value is known.
 */
export function unknownsOf(value: unknown): unknown {
  if (value === KNOWN_AFTER_APPLY) return true;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    const items = value.map(unknownsOf);
    return items.some((i) => i !== undefined) ? items.map((i) => i ?? false) : undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const marked = unknownsOf(child);
    if (marked !== undefined) out[key] = marked;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * What planning needs to know of a referenced block: what was read of it (for a block moved from
 * another address, the resource it was moved from) and its planned change, by address.
 */
export interface ReferenceSources {
  reads: Pick<ReadonlyMap<string, ReadResult>, 'get'>;
  changes: Pick<ReadonlyMap<string, Pick<ChangeFields, 'action' | 'changes'>>, 'get'>;
  /**
   * Whether the referring block is itself being deleted (`ensure: absent`): a block it refers to
   * that is deleted too is deleted after it (deletes run in reverse dependency order), so that
   * block's observed value still holds when this delete runs (a rule's resource, for its path).
   */
  deleting?: boolean;
}

/** A block's attributes with its references resolved where their values are known at plan time. */
export interface ResolvedReferences {
  attributes: Record<string, unknown>;
  /** The references whose value is known only after apply: their places hold KNOWN_AFTER_APPLY. */
  pending: PendingReference[];
  /** A plan note per pending reference (`env.ORIGIN_IP = ${cloud_floating_ip.edge.floating_ip_address} (known after apply)`). */
  notes: string[];
  /**
   * The references that can have no value: a block they read exists, this apply leaves the
   * referenced field as it is, and the platform holds no value for it (a plan error each).
   */
  missing: MissingReference[];
}

/** A reference a block exists for but whose field the platform holds no value for. */
export interface MissingReference {
  reference: BlockReference;
  /** The block read (`TYPE.NAME`) and its field without a value. */
  address: string;
  field: string;
}

/**
 * Resolves a block's references from what the plan knows of their blocks: a block that exists
 * and whose referenced field this apply does not change (no-op, or an update of other fields)
 * gives its observed value; one that is created or replaced, or whose field is changing, does
 * not: the place holds KNOWN_AFTER_APPLY and the reference is pending (the executor resolves it
 * once its block is done). A block that exists, keeps the field and has no value for it gives
 * none, now or after apply: the reference is missing (a plan error). A block being deleted reads
 * a block deleted after it as observed (see ReferenceSources.deleting). Pure.
 */
export function resolveReferences(attributes: Record<string, unknown>, references: readonly BlockReference[], sources: ReferenceSources): ResolvedReferences {
  let out = attributes;
  const pending: PendingReference[] = [];
  const notes: string[] = [];
  const missing: MissingReference[] = [];
  for (const reference of references) {
    const absent = templateTargets(reference.parts).find((target) => holdsNoValue(target, sources));
    if (absent !== undefined) {
      missing.push({ reference, address: referenceAddress(absent), field: absent.field });
      continue;
    }
    const resolved = resolveTemplate(reference.parts, (target) => knownValue(target, sources));
    if (resolved.known) {
      out = setAtPath(out, reference.path, reference.stringify ? String(resolved.value) : resolved.value);
    } else {
      out = setAtPath(out, reference.path, KNOWN_AFTER_APPLY);
      pending.push({ path: reference.path, template: reference.template, ...(reference.stringify ? { stringify: true as const } : {}) });
      notes.push(`${formatPath(reference.path)} = ${reference.template} (known after apply)`);
    }
  }
  return { attributes: out, pending, notes, missing };
}

/**
 * Whether a reference's block exists, keeps the referenced field through this apply (no change,
 * a no-op, or an update of other fields) and has no value for it: the reference can never have
 * one (apply does not change the field, so nothing will give it a value).
 */
function holdsNoValue(target: ReferenceTarget, sources: ReferenceSources): boolean {
  const address = referenceAddress(target);
  const change = sources.changes.get(address);
  if (change && change.action !== 'no-op' && change.action !== 'update' && !(change.action === 'delete' && sources.deleting === true)) return false;
  if (change?.action === 'update' && change.changes.some((c) => c.path[0] === target.field)) return false;
  const read = sources.reads.get(address);
  if (!read?.ok || !read.observation.exists) return false;
  return readReferencedValue(target, read.observation.state) === undefined;
}

/** A reference's value when the plan knows it, else undefined. */
function knownValue(target: ReferenceTarget, sources: ReferenceSources): unknown {
  const address = referenceAddress(target);
  const change = sources.changes.get(address);
  if (change && (change.action === 'create' || change.action === 'replace' || (change.action === 'delete' && sources.deleting !== true))) return undefined;
  if (change?.action === 'update' && change.changes.some((c) => c.path[0] === target.field)) return undefined;
  const read = sources.reads.get(address);
  if (!read?.ok || !read.observation.exists) return undefined;
  return readReferencedValue(target, read.observation.state);
}

/**
 * A pending reference's value once its blocks are done (`stateOf` gives each address's state as
 * apply left it): the value to put in its place, or undefined when a block has none.
 */
export function resolvePending(reference: PendingReference, stateOf: (address: string) => Readonly<Record<string, unknown>> | undefined): { value: unknown } | undefined {
  const parts = parseTemplate(reference.template);
  if (parts === undefined) return undefined;
  const resolved = resolveTemplate(parts, (target) => {
    const state = stateOf(referenceAddress(target));
    return state === undefined ? undefined : readReferencedValue(target, state);
  });
  if (!resolved.known) return undefined;
  return { value: reference.stringify ? String(resolved.value) : resolved.value };
}

/** The addresses a pending reference reads. */
export function pendingSources(reference: PendingReference): string[] {
  return templateTargets(parseTemplate(reference.template) ?? []).map(referenceAddress);
}

/**
 * Why attributes whose pending references were resolved at apply are not valid for their kind
 * (the first issue, naming the field and the value), or undefined when they are. The block is
 * judged as the plan saw it: an issue the planned attributes (`planned`, KNOWN_AFTER_APPLY where
 * the references stand) already had outside the references' places is not news (the plan was
 * made with it: a `user_data` read from `user_data_file` beside that field), so only an issue at
 * a reference's place, or one its value newly brings about, refuses the change.
 */
export function checkResolvedAttributes(
  type: ResourceType,
  attributes: Record<string, unknown>,
  planned: Record<string, unknown>,
  pending: readonly Pick<PendingReference, 'path'>[],
): string | undefined {
  const schema = RESOURCE_KINDS[type].schema;
  const checked = schema.safeParse(attributes);
  if (checked.success) return undefined;
  const atReference = (path: readonly PropertyKey[]) => pending.some((p) => p.path.every((segment, i) => path[i] === segment));
  const key = (issue: { path: readonly PropertyKey[]; message: string }) => JSON.stringify([issue.path.map(String), issue.message]);
  const before = schema.safeParse(planned);
  const seen = new Set(before.success ? [] : before.error.issues.filter((i) => !atReference(i.path)).map(key));
  const issue = checked.error.issues.find((i) => atReference(i.path) || !seen.has(key(i)));
  if (issue === undefined) return undefined;
  const value = issue.path.reduce<unknown>((at, segment) => (at as Record<PropertyKey, unknown> | undefined)?.[segment], attributes);
  return `${formatPath(issue.path.map((p) => (typeof p === 'number' ? p : String(p))))}: the resolved value ${JSON.stringify(value)} is not valid: ${issue.message}`;
}

/**
 * Resolved attributes as the loader would have made them had the references been written out:
 * the kind's schema's output (its defaults filled in inside the fields that held references, which
 * the loader had to keep as written), or the attributes as they are when the schema refuses them
 * (a problem checkResolvedAttributes judges).
 */
export function parseResolvedAttributes(type: ResourceType, attributes: Record<string, unknown>): Record<string, unknown> {
  const parsed = RESOURCE_KINDS[type].schema.safeParse(attributes);
  return parsed.success ? (parsed.data as Record<string, unknown>) : attributes;
}
