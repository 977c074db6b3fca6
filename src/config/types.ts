import { must } from '../errors.js';
import { CHECK_KINDS, type CheckAttributes, type CheckType, type ResourceAttributes, type ResourceType } from '../kinds/registry.js';
import type { SourceRange } from './diagnostics.js';
import type { TemplatePart } from '../model/references.js';

/**
 * The top-level keys of a stack file, in the order `edgeform fmt` and `import` write them: what
 * the stack is (its version, name, former name, whether it prunes), where the platform is, then
 * what every block inherits, the blocks, and the checks.
 */
export const TOP_LEVEL_KEYS = ['version', 'name', 'renamed_from', 'prune', 'provider', 'defaults', 'resources', 'checks'] as const;

/** Whether an address (TYPE.NAME) names a check rather than a resource. */
export function isCheckAddress(address: string): boolean {
  return Object.hasOwn(CHECK_KINDS, address.replace(/\..*/s, ''));
}

/** What every block of a stack carries besides its attributes. */
interface BlockBase {
  /** The key under `resources:` or `checks:`. */
  name: string;
  /** TYPE.NAME, unique across the whole stack (resources and checks). */
  address: string;
  /** Addresses this block waits for; validated to exist and to form no cycle. */
  dependsOn: string[];
  /** Where the block's key stands. */
  range: SourceRange;
  /**
   * Where each attribute's value stands (top-level attribute name → its source), for plan
   * errors: a range is computed when read, as almost none ever is.
   */
  fieldSources: Record<string, { readonly range: SourceRange }>;
  /**
   * Where the resource was before a rename, resolved: the ownership tags it carried (stack and
   * address) as `moved_from:` or the stack's `renamed_from:` says, and where that value stands.
   */
  movedFrom?: MovedFrom;
  /**
   * The `${TYPE.NAME.FIELD}` references of the block's attributes, where they stand; each
   * attribute holding one holds the template as written (see writeTemplate). Absent when none.
   * Their blocks are also in dependsOn.
   */
  references?: BlockReference[];
}

/** One string of a block's attributes that holds references. */
export interface BlockReference {
  /** Where in the attributes: ["env", "ORIGIN_IP"]. */
  path: (string | number)[];
  /** The template as written (`${cloud_floating_ip.edge.floating_ip_address}`, `http://${...}/`). */
  template: string;
  parts: TemplatePart[];
  /** Where the value stands. */
  range: SourceRange;
  /** A whole reference to a number or boolean in a string field: its value is written as text. */
  stringify?: true;
}

/** A block's old ownership tags (see BlockBase.movedFrom). */
export interface MovedFrom {
  stack: string;
  address: string;
  range: SourceRange;
}

/**
 * One resource block, discriminated by `type`; `ResourceBlock<T>` is a block of kind T, and
 * inside a function generic over T its `attributes` are that kind's (ResourceAttributes[T]).
 */
export type ResourceBlock<K extends ResourceType = ResourceType> = {
  [T in K]: BlockBase & { kind: 'resource'; type: T; attributes: ResourceAttributes[T] };
}[K];

/** One check block, discriminated by `type` (see ResourceBlock). */
export type CheckBlock<K extends CheckType = CheckType> = {
  [T in K]: BlockBase & { kind: 'check'; type: T; attributes: CheckAttributes[T] };
}[K];

export type Block = ResourceBlock | CheckBlock;

/** A parsed, validated stack: one file or a directory of *.yaml files merged. */
export interface Stack {
  version: 1;
  /** The files read, in the order they were merged. */
  sources: string[];
  /** `name:`, what the ownership tags of what the stack creates carry; absent when the stack has none. */
  name?: string;
  /** `prune:`: destroy what carries this stack's ownership tags but is no longer declared. */
  prune: boolean;
  /** `renamed_from:`: the stack's former name; what carries it in its ownership tags is re-tagged, not created anew. */
  renamedFrom?: string;
  provider: { base_url?: string };
  resources: ResourceBlock[];
  checks: CheckBlock[];
  /**
   * The text of each sensitive file its blocks name (FileField.sensitive), by the variable their
   * attribute's `${env:NAME}` reference names (see withSensitiveFiles); absent when none. Never
   * written anywhere: the digest covers the variable's name, a fingerprint of the text.
   */
  sensitiveFiles?: Readonly<Record<string, string>>;
  /** sha256 (hex) of the canonical JSON of the resolved stack; a saved plan records it. */
  digest: string;
}
