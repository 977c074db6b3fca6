import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cdnRuleOptionsSchema, deprecatedOptionWarnings, TERRAFORM_OPTION_NAMES } from '../cdn-options.js';
import { ensureDeletable, positiveId } from '../fields.js';
import { purgeField, ruleScopeProblems } from '../cdn-purge-schema.js';

/**
 * A CDN rule's path pattern as the platform accepts it (the vendor's `rule` and `ruleType`): a
 * regular expression of at most 300 characters; with rule type 0 it must start with `/` or `^/`
 * (type 1, legacy, has `/` put before it). The platform compiles patterns as PCRE: syntax only
 * PCRE has (atomic groups, possessive quantifiers, inline flags, `\A`, `\Z`, `(?P<name>...)`,
 * comments) is accepted; anything that is no regular expression in either (an unclosed group or
 * class, a quantifier with nothing to repeat, a range out of order) is refused. Pure.
 */

/** PCRE-only syntax, each rewritten to an ECMAScript equivalent of the same shape before compiling. */
const PCRE_ONLY: ReadonlyArray<readonly [RegExp, string]> = [
  [/\(\?#[^)]*\)/g, ''], // (?# comment)
  [/\(\?>/g, '(?:'], // atomic group
  [/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>'], // Python-style named group
  [/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>'], // its back reference
  [/\(\?[imsxU-]+\)/g, ''], // inline flags for the rest of the pattern
  [/\(\?[imsxU-]+:/g, '(?:'], // inline flags of a group
  [/\\[AZzG]/g, ''], // anchors ECMAScript does not have
  [/([*+?}])\+/g, '$1'], // possessive quantifiers
];

/** Why `pattern` is not a regular expression the platform compiles, or null when it is one. */
export function regexProblem(pattern: string): string | null {
  let text = pattern;
  for (const [pcre, ecma] of PCRE_ONLY) text = text.replace(pcre, ecma);
  try {
    new RegExp(text);
    return null;
  } catch (error) {
    // V8's message names the pattern and the reason: "Invalid regular expression: /x(/: Unterminated group".
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return `must be a regular expression the platform compiles: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
  }
}

/** Why a rule of `ruleType` (0 or 1) cannot have `pattern`, or null. */
export function rulePatternProblem(pattern: string, ruleType: 0 | 1): string | null {
  if (ruleType === 0 && !pattern.startsWith('/') && !pattern.startsWith('^/'))
    return `must start with "/" or "^/" (rule_type 0 matches the whole path), e.g. "/${pattern.replace(/^\^/, '')}"`;
  return regexProblem(pattern);
}

const shape = () =>
  z.strictObject({
    rule_id: positiveId.optional().describe('The rule id (integer). Omit it to have edgeform find the rule by name within its resource, or create it.'),
    resource_id: positiveId.describe('The CDN resource the rule belongs to, usually ${cdn_resource.NAME.id}.'),
    name: z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(255, { error: 'a rule name must be at most 255 characters' })
      .describe('The rule name, unique within its resource: how a block finds its rule.'),
    rule: z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(300, { error: 'a rule pattern must be at most 300 characters' })
      .optional()
      .describe('The path pattern (a regular expression, e.g. /images/.*\\.png$). Required to create a rule.'),
    rule_type: z
      .union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' })
      .optional()
      .describe('0 (the pattern matches a path) or 1 (a regular expression). Required to create a rule.'),
    weight: z
      .int()
      .min(1, { error: 'must be at least 1' })
      .max(2147483647, { error: 'must be at most 2147483647' })
      .optional()
      .describe('The order rules are tried in, lowest first.'),
    active: z.boolean().optional().describe('Whether the rule applies.'),
    origin_group: positiveId.nullable().optional().describe("The origin group the matched requests go to (${cdn_origin_group.NAME.id}); null: the resource's."),
    override_origin_protocol: z
      .enum(['HTTP', 'HTTPS', 'MATCH'], { error: 'must be HTTP, HTTPS or MATCH' })
      .nullable()
      .optional()
      .describe("The protocol to the origin for matched requests; null: the resource's."),
    options: cdnRuleOptionsSchema().optional().describe("The rule's CDN options by name, as the vendor's schema (rule_options) has them; only the options declared are managed."),
    purge: purgeField
      .optional()
      .describe(
        "What to purge from the cache within the rule's pattern (paths, urls, or all: true for the pattern's literal prefix) and when (usually ${env:RELEASE}); as a cdn_resource's purge.",
      ),
    ensure: ensureDeletable,
  });

/**
 * cdn_rule: a rule of a CDN resource (options applied to the paths its pattern matches), adopted
 * by `rule_id` or found by its `name` within `resource_id`, created when none has it.
 */
export const cdnRuleKind = defineKind({
  type: 'cdn_rule',
  kind: 'resource',
  description: 'A rule of a CDN resource (options for the paths its pattern matches), by rule_id or by name within its resource; edgeform creates, changes and deletes it.',
  identity: ['rule_id', 'name'],
  terraform: { resource: 'gcore_cdn_rule', fields: { ...TERRAFORM_OPTION_NAMES, origin_protocol: 'override_origin_protocol' } },
  create: { idField: 'rule_id', key: ['resource_id', 'name'] },
  resolvedBeforeRead: ['resource_id'],
  readable: {
    id: { type: 'number', description: 'The rule id (integer).', read: (s) => s.rule_id },
  },
  warnings: (block) => deprecatedOptionWarnings(block['options'] as Record<string, unknown> | undefined),
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      // A pattern holding a reference is checked once the reference is known (the plan checks the resolved block again).
      if (block.rule === undefined || block.rule.includes('${')) return;
      // rule_type 0 needs a leading "/"; without rule_type (an adopted rule) the live type decides, at plan.
      const problem = block.rule_type === undefined ? regexProblem(block.rule) : rulePatternProblem(block.rule, block.rule_type);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['rule'], message: problem });
      // A rule's purge stays within its pattern.
      if (block.purge === undefined) return;
      for (const purgeProblem of ruleScopeProblems(block.purge, block.rule, block.rule_type)) {
        ctx.addIssue({ code: 'custom', path: ['purge', purgeProblem.field, purgeProblem.index], message: purgeProblem.message });
      }
    }),
});
