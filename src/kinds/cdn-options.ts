import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { CDN_DEPRECATED_OPTIONS, CDN_RESOURCE_OPTION_NAMES, CDN_RULE_OPTION_NAMES, cdnResourceOptionsSchema, cdnRuleOptionsSchema } from './cdn-options-schema.js';
import { suggest } from './did-you-mean.js';
import type { BlockWarning } from './kind-spec.js';

export {
  CDN_DEPRECATED_OPTIONS,
  CDN_OPTIONS_SOURCE,
  CDN_OPTION_FIELD_DEFAULTS,
  CDN_RESOURCE_OPTION_NAMES,
  CDN_RULE_OPTION_NAMES,
  cdnResourceOptionsSchema,
  cdnRuleOptionsSchema,
} from './cdn-options-schema.js';

/**
 * The Gcore Terraform provider's names of the CDN options it spells otherwise (snake case where
 * the vendor's API is camel case), as `options.NAME` entries of a kind's `terraform.fields`.
 */
export const TERRAFORM_OPTION_NAMES: Readonly<Record<string, string>> = {
  'options.allowed_http_methods': 'allowedHttpMethods',
  'options.gzip_on': 'gzipOn',
  'options.host_header': 'hostHeader',
  'options.ignore_query_string': 'ignoreQueryString',
  'options.static_request_headers': 'staticRequestHeaders',
};

/** Which option set: a CDN resource's (`resource_options`) or a rule's (`rule_options`). */
export type CdnOptionSet = 'resource' | 'rule';

/** One problem of an `options` mapping: where (under `options`), what, and the likely intended name for an unknown one. */
export interface CdnOptionIssue {
  path: (string | number)[];
  message: string;
  suggestion?: string;
}

/** The generated zod schema of a set (from the vendor's spec: scripts/generate-cdn-options.mjs). */
export function cdnOptionsSchema(set: CdnOptionSet): z.ZodType {
  return set === 'resource' ? cdnResourceOptionsSchema() : cdnRuleOptionsSchema();
}

/** The option names of a set, in the spec's order. */
export function cdnOptionNames(set: CdnOptionSet): readonly string[] {
  return set === 'resource' ? CDN_RESOURCE_OPTION_NAMES : CDN_RULE_OPTION_NAMES;
}

/** The schema under optional and nullable wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let at = schema;
  while ((at.def.type === 'optional' || at.def.type === 'nullable') && 'innerType' in at.def) at = at.def.innerType as z.ZodType;
  return at;
}

/** The field names the object schema at `path` accepts ([] when there is none). */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (at === undefined) return [];
    const def = at.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; valueType?: z.ZodType };
    if (def.type === 'object' && typeof segment === 'string') at = def.shape?.[segment];
    else if (def.type === 'array') at = def.element;
    else if (def.type === 'record') at = def.valueType;
    else return [];
    if (at !== undefined) at = unwrap(at);
  }
  return at?.def.type === 'object' ? Object.keys((at.def as unknown as { shape: Record<string, z.ZodType> }).shape) : [];
}

/**
 * An answer's options as a block may declare them (import): the options of the set the answer
 * shows set (not null), each object only with the fields the set's schema knows, nested objects
 * alike. An option or a field a later version of the vendor's answers adds is left out, so it
 * never makes the block invalid (and the resource left out of the import). Pure.
 */
export function knownOptions(set: CdnOptionSet, options: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> {
  const schema = cdnOptionsSchema(set);
  const known = (value: unknown, path: readonly string[]): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = fieldsAt(schema, path);
    if (fields.length === 0) return value;
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (fields.includes(k) ? [[k, known(v, [...path, k])]] : [])));
  };
  const names = cdnOptionNames(set);
  return Object.fromEntries(Object.entries(options ?? {}).flatMap(([name, v]) => (v !== null && names.includes(name) ? [[name, known(v, [name])]] : [])));
}

/**
 * Checks an `options` value against the vendor's schema of the set, offline: every problem
 * with its path under `options` (`['gzipOn', 'value']`), an unknown option or field with the
 * nearest known name as `suggestion`. Empty when the value is valid. Pure.
 */
export function validateCdnOptions(value: unknown, set: CdnOptionSet): CdnOptionIssue[] {
  const schema = cdnOptionsSchema(set);
  const result = schema.safeParse(value);
  if (result.success) return [];
  const issues: CdnOptionIssue[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, path);
      for (const key of issue.keys) {
        const match = suggest(key, known);
        const message = path.length === 0 ? `unknown ${set === 'resource' ? 'CDN resource' : 'CDN rule'} option "${key}"` : `unknown field "${key}" in option ${path.join('.')}`;
        issues.push({ path: [...path, key], message, ...(match === undefined ? {} : { suggestion: match }) });
      }
      continue;
    }
    issues.push({ path, message: issue.message });
  }
  return issues;
}

/**
 * A `deprecated` warning for each declared option (or option field) the vendor's spec marks
 * deprecated (CDN_DEPRECATED_OPTIONS), naming the option to use instead: the option still works,
 * but the vendor may remove it. For a kind's `warnings` (`options` of a resource or a rule). Pure.
 */
export function deprecatedOptionWarnings(options: Readonly<Record<string, unknown>> | undefined): BlockWarning[] {
  const warnings: BlockWarning[] = [];
  for (const [name, value] of Object.entries(options ?? {})) {
    const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
    for (const path of [[name], ...fields.map((field) => [name, field])]) {
      const key = path.join('.');
      if (!Object.hasOwn(CDN_DEPRECATED_OPTIONS, key)) continue;
      const instead = CDN_DEPRECATED_OPTIONS[key];
      warnings.push({
        path: ['options', ...path],
        code: 'deprecated',
        message: `${path.length === 1 ? 'option' : 'option field'} ${key} is deprecated by the vendor${instead ? `: use ${instead} instead` : ''}`,
        detail: `The platform still applies it, but its API reference marks it deprecated${instead ? ` and names ${instead} as its replacement` : ''}.`,
      });
    }
  }
  return warnings;
}

/** One declared option whose live value differs: the live value cut to the declared fields (`before`), and the declared one (`after`). */
export interface CdnOptionChange {
  option: string;
  before: unknown;
  after: unknown;
}

/**
 * The live options cut to what `desired` declares: for each declared option, the live
 * option's fields of the same names (a field the platform does not show is null; a declared
 * null is compared with the whole live value, which is null when the option is not set).
 * Options not declared are left out, so extra live options and fields the platform fills in
 * (defaults) never show as a difference. Pure.
 */
export function projectDeclaredOptions(desired: Readonly<Record<string, unknown>>, live: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, want] of Object.entries(desired)) {
    if (want === undefined) continue;
    const have = live?.[name] ?? null;
    if (want !== null && typeof want === 'object' && !Array.isArray(want) && have !== null && typeof have === 'object' && !Array.isArray(have)) {
      const fields = have as Record<string, unknown>;
      out[name] = Object.fromEntries(Object.keys(want).map((field) => [field, fields[field] ?? null]));
    } else {
      out[name] = have;
    }
  }
  return out;
}

/**
 * The declared options whose live value differs (in the order declared): an option declared
 * compares against the live option's same fields; options not declared are ignored. Pure.
 */
export function declaredOptionsDiff(desired: Readonly<Record<string, unknown>>, live: Readonly<Record<string, unknown>> | null | undefined): CdnOptionChange[] {
  const before = projectDeclaredOptions(desired, live);
  const changes: CdnOptionChange[] = [];
  for (const [option, after] of Object.entries(desired)) {
    if (after === undefined) continue;
    if (!isDeepStrictEqual(before[option], after)) changes.push({ option, before: before[option], after });
  }
  return changes;
}
