import { must } from '../../errors.js';
import { z } from 'zod';
import { lazily } from '../../lazily.js';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

/** The IP address library, loaded when a stack has an address or network to check. */
const ipaddr = lazily<typeof import('ipaddr.js')>('ipaddr.js');

/** Whether text is an IPv4 (four-part decimal) or IPv6 address; its version, or undefined. */
export function ipVersionOf(text: string): 4 | 6 | undefined {
  if (ipaddr().IPv4.isValidFourPartDecimal(text)) return 4;
  return text.includes(':') && ipaddr().IPv6.isValid(text) ? 6 : undefined;
}

/** Why text is not a network in CIDR notation (`10.0.0.0/24`, `fd00::/64`, host bits zero), or undefined when it is one; `version` its IP version. */
export function cidrProblem(text: string): { problem: string } | { version: 4 | 6 } {
  const slash = text.indexOf('/');
  const version = slash < 0 ? undefined : ipVersionOf(text.slice(0, slash));
  const prefix = slash < 0 ? '' : text.slice(slash + 1);
  if (version === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128))
    return { problem: 'must be a network in CIDR notation, such as 10.0.0.0/24 or fd00::/64' };
  const base = (version === 4 ? ipaddr().IPv4 : ipaddr().IPv6).networkAddressFromCIDR(text).toString();
  if (base !== ipaddr().parseCIDR(text)[0].toString()) return { problem: `has host bits set: the network is ${base}/${prefix}` };
  return { version };
}

/** Whether two networks in CIDR notation share an address (false when either is not one). */
export function cidrsOverlap(a: string, b: string): boolean {
  try {
    const [x, xBits] = ipaddr().parseCIDR(a);
    const [y, yBits] = ipaddr().parseCIDR(b);
    if (x.kind() !== y.kind()) return false;
    // match takes an address of its own kind; the kinds are equal here (checked above).
    return xBits <= yBits ? y.match(x as never, xBits) : x.match(y as never, yBits);
  } catch {
    return false;
  }
}

/** An IP address (IPv4 four-part decimal or IPv6). */
const ipAddress = z.string().refine((text) => ipVersionOf(text) !== undefined, { error: 'must be an IPv4 or IPv6 address, such as 10.0.0.1' });

/** A network in CIDR notation. */
const cidr = z.string().superRefine((text, ctx) => {
  const checked = cidrProblem(text);
  if ('problem' in checked) ctx.addIssue({ code: 'custom', input: text, message: checked.problem });
});

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    subnet_id: uuid.optional().describe('The subnet id (UUID) to adopt. Omit it to have edgeform create the subnet and find it by its ownership tags.'),
    name: cloudResourceName.optional().describe('The subnet name (3–63 characters). Required to create a subnet; changed in place.'),
    network_id: uuid.optional().describe('The network the subnet is in, usually ${cloud_network.NAME.id}. Required to create a subnet; a different one replaces the subnet.'),
    cidr: cidr.optional().describe('The subnet addresses in CIDR notation (10.0.0.0/24). Required to create a subnet; a different one replaces the subnet.'),
    ip_version: z
      .union([z.literal(4), z.literal(6)], { error: 'must be 4 or 6' })
      .optional()
      .describe('4 or 6; by default that of cidr. Set at create: a different one replaces the subnet.'),
    enable_dhcp: z.boolean().optional().describe('Whether DHCP is on (the platform default true); changed in place.'),
    dns_nameservers: z.array(ipAddress).optional().describe('DNS servers advertised by DHCP; the whole list is managed ([] for none).'),
    host_routes: z
      .array(z.strictObject({ destination: cidr, nexthop: ipAddress }))
      .optional()
      .describe('Static routes advertised by DHCP ({destination: CIDR, nexthop: address}); the whole list is managed ([] for none).'),
    gateway_ip: ipAddress
      .nullable()
      .optional()
      .describe("The gateway address, inside cidr; null: no gateway (then connect_to_network_router must be false). Omitted: the platform's (the first host)."),
    connect_to_network_router: z.boolean().optional().describe("Whether the network's router gets a gateway in this subnet (the platform default true); only sent at create."),
    tags: userDeclaredTags.optional(),
    tags_policy: tagsPolicy,
    ensure: ensureDeletable,
  });

/**
 * cloud_subnet: a subnet of a network, adopted by id or, without one, found by the ownership tags
 * its create wrote and created when none carries them; name, DNS servers, routes, gateway, DHCP
 * and user tags change in place, a different network, CIDR or IP version replaces it.
 */
export const cloudSubnetKind = defineKind({
  type: 'cloud_subnet',
  kind: 'resource',
  description: 'A cloud subnet of a network: adopted by id, or created and found again by its ownership tags; a different network_id, cidr or ip_version replaces it.',
  identity: ['subnet_id'],
  terraform: { resource: 'gcore_subnet', fields: TERRAFORM_CLOUD_FIELDS },
  idField: 'subnet_id',
  create: { key: 'owner' },
  readable: {
    id: { type: 'string', description: 'The subnet id (UUID).', read: (s) => s.subnet_id },
    cidr: { type: 'string', description: 'The subnet addresses in CIDR notation.', read: (s) => s.cidr },
    gateway_ip: { type: 'string', description: 'The gateway address (null without a gateway).', read: (s) => s.gateway_ip },
    network_id: { type: 'string', description: 'The id of the network the subnet is in.', read: (s) => s.network_id },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      const creating = value.subnet_id === undefined && value.ensure === 'present';
      for (const field of ['name', 'network_id', 'cidr'] as const) {
        if (creating && value[field] === undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: `must be set when subnet_id is not: edgeform creates the subnet with it` });
      }
      const version = value.cidr === undefined ? undefined : cidrProblem(value.cidr);
      if (version && 'version' in version && value.ip_version !== undefined && value.ip_version !== version.version)
        ctx.addIssue({ code: 'custom', path: ['cidr'], message: `is an IPv${version.version} network, but ip_version is ${value.ip_version}` });
      // A gateway that is not an address (a reference's stand-in) is judged by its own field's rule.
      if (version && 'version' in version && typeof value.gateway_ip === 'string' && ipVersionOf(value.gateway_ip) !== undefined) {
        const [net, bits] = ipaddr().parseCIDR(must(value.cidr, 'value.cidr'));
        const gateway = ipaddr().parse(value.gateway_ip);
        // match takes an address of its own kind, which the first test makes sure of.
        if (gateway.kind() !== net.kind() || !gateway.match(net as never, bits))
          ctx.addIssue({ code: 'custom', path: ['gateway_ip'], message: `must be inside cidr ${must(value.cidr, 'value.cidr')}` });
      }
      if (value.gateway_ip === null && value.connect_to_network_router !== false)
        ctx.addIssue({ code: 'custom', path: ['connect_to_network_router'], message: 'must be false when gateway_ip is null (the platform requires it)' });
    }),
});
