import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, regionId, uuid } from '../fields.js';

/** What a policy does with a request its rules match (PolicyActionEnum). */
export const L7_ACTIONS = ['REDIRECT_TO_URL', 'REDIRECT_PREFIX', 'REDIRECT_TO_POOL', 'REJECT'] as const;
/** The redirect codes the platform takes (the spec's description: 301, 302, 303, 307 or 308). */
export const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;
/** What a rule looks at (L7RuleTypeEnum). */
const RULE_TYPES = ['COOKIE', 'FILE_TYPE', 'HEADER', 'HOST_NAME', 'PATH', 'SSL_CONN_HAS_CERT', 'SSL_DN_FIELD', 'SSL_VERIFY_RESULT'] as const;
/** How a rule compares (CompareTypeEnum). */
const COMPARE_TYPES = ['CONTAINS', 'ENDS_WITH', 'EQUAL_TO', 'REGEX', 'STARTS_WITH'] as const;

/** The redirect field each action needs (REJECT: none). */
export const ACTION_TARGET = { REDIRECT_TO_URL: 'redirect_url', REDIRECT_PREFIX: 'redirect_prefix', REDIRECT_TO_POOL: 'redirect_pool_id', REJECT: null } as const;
const TARGETS = ['redirect_url', 'redirect_prefix', 'redirect_pool_id'] as const;

/** An absolute http(s) URL, as the platform takes a redirect target. */
const redirectUrl = z
  .string()
  .max(255)
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { error: 'must be an absolute http or https URL, such as https://example.com' },
  );

/** A rule (CreateL7RuleSerializer), compared with the live ones as a set by all its fields. */
export const ruleSchema = z.strictObject({
  type: z.enum(RULE_TYPES).describe('What the rule looks at: PATH, HOST_NAME, HEADER, COOKIE, FILE_TYPE, SSL_*.'),
  compare_type: z.enum(COMPARE_TYPES).describe('How it compares: STARTS_WITH, EQUAL_TO, ENDS_WITH, CONTAINS, REGEX.'),
  value: z.string().min(1).max(255).describe('What it compares with.'),
  key: z.string().min(1).max(255).optional().describe('The header or cookie name (HEADER and COOKIE rules only, required there).'),
  invert: z.boolean().optional().describe('Whether the rule matches when the comparison fails (default false).'),
});

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    l7policy_id: uuid.optional().describe('The policy id (UUID) to adopt. Omit it to have edgeform find the policy by its listener and name, or create it.'),
    listener_id: uuid.describe('The listener the policy is on (HTTP or TERMINATED_HTTPS), usually ${cloud_lb_listener.NAME.id}; a different one replaces the policy.'),
    name: cloudResourceName.describe('The policy name (3–63 characters), unique within its listener: how a block finds its policy.'),
    action: z.enum(L7_ACTIONS).describe('What a matched request gets: REDIRECT_TO_URL, REDIRECT_PREFIX, REDIRECT_TO_POOL or REJECT; changed in place.'),
    redirect_url: redirectUrl.optional().describe('REDIRECT_TO_URL: the URL every matched request goes to; changed in place.'),
    redirect_prefix: redirectUrl.optional().describe('REDIRECT_PREFIX: the scheme and host put before the request path (https://example.com); changed in place.'),
    redirect_pool_id: uuid.optional().describe('REDIRECT_TO_POOL: a pool of the same balancer, usually ${cloud_lb_pool.NAME.id}; changed in place.'),
    redirect_http_code: z
      .union(REDIRECT_CODES.map((c) => z.literal(c)))
      .optional()
      .describe('REDIRECT_TO_URL and REDIRECT_PREFIX: the status of the redirect (301, 302, 303, 307, 308; the platform default 302); changed in place.'),
    position: z
      .int()
      .min(1)
      .optional()
      .describe("Its place among the listener's policies, from 1 (the first evaluated); the platform numbers them 1, 2, ... in order; changed in place."),
    rules: z
      .array(ruleSchema)
      .optional()
      .describe('The rules, all of which a request must match; compared as a set: a changed list deletes the rules no longer declared and adds the new ones.'),
    tags: z.array(z.string().min(1)).optional().describe('Tags (plain strings); the whole list is managed; changed in place.'),
    ensure: ensureDeletable,
  });

/** A block of the kind as the schema reads it. */
type Block = z.output<ReturnType<typeof shape>>;

/** The problems the platform would answer 400 for, known from the block alone: each action's fields, rule keys, repeated rules. */
function checkBlock(value: Block, addIssue: (path: (string | number)[], message: string) => void): void {
  const target = ACTION_TARGET[value.action];
  if (target !== null && value[target] === undefined && value.ensure === 'present') addIssue([target], `must be set for a ${value.action} policy`);
  for (const field of TARGETS)
    if (field !== target && value[field] !== undefined)
      addIssue([field], `is only for a ${Object.entries(ACTION_TARGET).find(([, t]) => t === field)![0]} policy, not ${value.action}`);
  if (value.redirect_http_code !== undefined && value.action !== 'REDIRECT_TO_URL' && value.action !== 'REDIRECT_PREFIX')
    addIssue(['redirect_http_code'], `is only for REDIRECT_TO_URL and REDIRECT_PREFIX policies, not ${value.action}`);
  const seen = new Map<string, number>();
  (value.rules ?? []).forEach((rule, i) => {
    const keyed = rule.type === 'HEADER' || rule.type === 'COOKIE';
    if (keyed && rule.key === undefined) addIssue(['rules', i, 'key'], `must be set for a ${rule.type} rule (the ${rule.type.toLowerCase()} name)`);
    if (!keyed && rule.key !== undefined) addIssue(['rules', i, 'key'], `is only for HEADER and COOKIE rules, not ${rule.type}`);
    const id = ruleKey(rule);
    if (seen.has(id)) addIssue(['rules', i], `repeats rule ${seen.get(id)}: a policy's rules are a set`);
    else seen.set(id, i);
  });
}

/** A rule's identity in its policy's set: every field, the defaults filled in. */
export function ruleKey(rule: { type: string; compare_type: string; value: string; key?: string | null | undefined; invert?: boolean | undefined }): string {
  return JSON.stringify([rule.type, rule.compare_type, rule.key ?? null, rule.value, rule.invert ?? false]);
}

/**
 * cloud_lb_l7policy: an L7 policy of an HTTP or TERMINATED_HTTPS listener (a redirect to a URL,
 * to a prefix, to a pool, or a reject) with its rules inline, adopted by `l7policy_id` or found by
 * its listener and name, created when none has it.
 */
export const cloudLbL7policyKind = defineKind({
  type: 'cloud_lb_l7policy',
  kind: 'resource',
  description:
    'An L7 policy of a load balancer listener (redirect to a URL, a prefix or a pool, or reject) with its rules, by l7policy_id or by name within its listener; the listener is set at create (-/+), the rest changes in place.',
  identity: ['l7policy_id', 'name'],
  idField: 'l7policy_id',
  create: { key: ['listener_id', 'name'] },
  resolvedBeforeRead: ['listener_id', 'redirect_pool_id'],
  readable: {
    id: { type: 'string', description: 'The policy id (UUID).', read: (s) => s.l7policy_id },
    name: { type: 'string', description: 'The policy name.', read: (s) => s.name },
    position: { type: 'number', description: "Its place among the listener's policies.", read: (s) => s.position },
  },
  shape,
  schema: (shape) => shape.superRefine((value, ctx) => checkBlock(value, (path, message) => ctx.addIssue({ code: 'custom', path, message }))),
});
