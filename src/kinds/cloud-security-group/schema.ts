import { z } from 'zod';
import { lazily } from '../../lazily.js';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

/** The IP address library, loaded when a stack has an address or network to check. */
const ipaddr = lazily<typeof import('ipaddr.js')>('ipaddr.js');

/** The protocols a rule may name (the platform's SecurityGroupProtocolEnumV2); none is every protocol. */
export const RULE_PROTOCOLS = [
  'ah',
  'dccp',
  'egp',
  'esp',
  'gre',
  'icmp',
  'igmp',
  'ipencap',
  'ipip',
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  'ospf',
  'pgm',
  'rsvp',
  'sctp',
  'tcp',
  'udp',
  'udplite',
  'vrrp',
] as const;

/** The protocols whose rules may name ports. */
export const PORTED_PROTOCOLS: readonly string[] = ['tcp', 'udp', 'sctp', 'udplite', 'dccp'];

/** The value of `remote_group_id` that names the group the rule is in. */
export const SELF = 'self';

/**
 * A network prefix in its canonical form (`2001:DB8::/32` → `2001:db8::/32`), as the platform
 * shows it; the problem otherwise: not a network, host bits set, or not of the rule's ethertype.
 */
export function canonicalPrefix(text: string, ethertype: 'IPv4' | 'IPv6'): { prefix: string } | { problem: string } {
  if (!ipaddr().isValidCIDR(text)) return { problem: `"${text}" is not a network in CIDR notation (such as 10.0.0.0/8 or 2001:db8::/32)` };
  const [address, bits] = ipaddr().parseCIDR(text);
  const version = address.kind() === 'ipv4' ? 'IPv4' : 'IPv6';
  if (version !== ethertype) return { problem: `"${text}" is an ${version} network, the rule's ethertype is ${ethertype}` };
  const base = address.kind() === 'ipv4' ? ipaddr().IPv4.networkAddressFromCIDR(text) : ipaddr().IPv6.networkAddressFromCIDR(text);
  if (base.toString() !== address.toString()) return { problem: `"${text}" has host bits set: the network is ${base.toString()}/${bits}` };
  return { prefix: `${address.toString()}/${bits}` };
}

/** A name as the platform accepts it (3–63 characters). */
export const SECURITY_GROUP_NAME = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/;

const port = z.int().min(0, { error: 'a port is 0 to 65535' }).max(65535, { error: 'a port is 0 to 65535' });

/** One rule of a group, checked offline as the platform checks it. */
export const ruleShape = z
  .strictObject({
    direction: z.enum(['ingress', 'egress']).describe('ingress (traffic to the instances) or egress (traffic from them).'),
    ethertype: z.enum(['IPv4', 'IPv6']).default('IPv4').describe('IPv4 (default) or IPv6; a remote_ip_prefix must be of this version.'),
    protocol: z.enum(RULE_PROTOCOLS).optional().describe('tcp, udp, icmp, ...; omitted: every protocol.'),
    port_range_min: port.optional().describe(`The first port (protocols ${PORTED_PROTOCOLS.join(', ')} only).`),
    port_range_max: port.optional().describe('The last port (default port_range_min); not below port_range_min.'),
    remote_ip_prefix: z
      .string()
      .optional()
      .describe('The remote network in CIDR notation (10.0.0.0/8, 2001:db8::/32), of the rule ethertype. Omitted (and no remote_group_id): anywhere.'),
    remote_group_id: z
      .union([uuid, z.literal(SELF)])
      .optional()
      .describe('The remote security group: its id, usually ${cloud_security_group.NAME.id}, or "self" for the group the rule is in.'),
    description: z.string().max(255, { error: 'a rule description is at most 255 characters' }).optional().describe('A description of the rule.'),
  })
  .superRefine((rule, ctx) => {
    if (rule.remote_ip_prefix !== undefined) {
      const checked = canonicalPrefix(rule.remote_ip_prefix, rule.ethertype);
      if ('problem' in checked) ctx.addIssue({ code: 'custom', path: ['remote_ip_prefix'], message: checked.problem });
      if (rule.remote_group_id !== undefined)
        ctx.addIssue({ code: 'custom', path: ['remote_group_id'], message: 'must not be set together with remote_ip_prefix: a rule names a remote network or a remote group' });
    }
    const ports = rule.port_range_min !== undefined || rule.port_range_max !== undefined;
    if (ports && !PORTED_PROTOCOLS.includes(rule.protocol ?? '')) {
      ctx.addIssue({ code: 'custom', path: ['port_range_min'], message: `ports can only be given with protocol ${PORTED_PROTOCOLS.join(', ')}` });
    }
    if (rule.port_range_max !== undefined && rule.port_range_min === undefined) ctx.addIssue({ code: 'custom', path: ['port_range_max'], message: 'needs port_range_min' });
    if (rule.port_range_min !== undefined && rule.port_range_max !== undefined && rule.port_range_min > rule.port_range_max) {
      ctx.addIssue({ code: 'custom', path: ['port_range_max'], message: `must not be below port_range_min (${rule.port_range_min})` });
    }
  });

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    security_group_id: uuid
      .optional()
      .describe('The security group id (UUID) to adopt. Omit it to have edgeform create the group and find it by its ownership tags (the stack needs name:).'),
    name: z
      .string()
      .regex(SECURITY_GROUP_NAME, { error: 'must be 3–63 characters: letters, digits, spaces, ".", "_" and "-", starting with a letter or digit' })
      .optional()
      .describe('The group name; required when edgeform creates the group; a different live name is changed in place.'),
    description: z.string().optional().describe('The group description; a different live one is changed in place.'),
    rules: z.array(ruleShape).optional().describe('The rules, as a set (order does not matter). Absent: rules are not managed.'),
    rules_policy: z
      .enum(['keep_defaults', 'authoritative', 'merge'])
      .default('keep_defaults')
      .describe(
        "keep_defaults (default): live rules not listed are deleted, except the platform's default egress rules. authoritative: exactly the listed rules. merge: only listed rules are managed.",
      ),
    tags: userDeclaredTags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensureDeletable,
  });

/**
 * cloud_security_group: a security group and its rules, adopted by id or, without one, created
 * and found again by the ownership tags its create wrote; edgeform renames it, changes its
 * description, tags and rules (the smallest set of rule creates and deletes) and deletes it.
 */
export const cloudSecurityGroupKind = defineKind({
  type: 'cloud_security_group',
  kind: 'resource',
  description:
    'A cloud security group and its rules: adopted by id, or created and found again by its ownership tags; edgeform manages its name, description, tags and rules, and can delete it.',
  identity: ['security_group_id'],
  terraform: { resource: 'gcore_securitygroup', fields: { ...TERRAFORM_CLOUD_FIELDS, security_group_rules: 'rules' } },
  create: { idField: 'security_group_id', key: 'owner' },
  selfNames: { 'rules.*.remote_group_id': 'self' },
  readable: {
    id: { type: 'string', description: 'The security group id (UUID).', read: (s) => s.security_group_id },
    name: { type: 'string', description: 'The security group name.', read: (s) => s.name },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      if (block.security_group_id === undefined && block.ensure !== 'absent' && block.name === undefined) {
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'must be set: a security group edgeform creates needs a name' });
      }
      const seen = new Map<string, number>();
      block.rules?.forEach((rule, i) => {
        const key = JSON.stringify([
          rule.direction,
          rule.ethertype,
          rule.protocol,
          rule.port_range_min,
          rule.port_range_max ?? rule.port_range_min,
          rule.remote_ip_prefix,
          rule.remote_group_id,
        ]);
        const first = seen.get(key);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['rules', i], message: `is the same rule as rules[${first}]: the platform refuses a rule twice` });
        else seen.set(key, i);
      });
    }),
});
