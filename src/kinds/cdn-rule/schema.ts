import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cdnRuleOptionsSchema } from '../cdn-options.js';
import { ensureDeletable, positiveId } from '../fields.js';

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
  create: { idField: 'rule_id', key: ['resource_id', 'name'] },
  resolvedBeforeRead: ['resource_id'],
  readable: {
    id: { type: 'number', description: 'The rule id (integer).', read: (s) => s.rule_id },
  },
  shape,
});
