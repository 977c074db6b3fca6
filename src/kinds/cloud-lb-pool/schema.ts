import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, regionId, uuid } from '../fields.js';

/** A timeout in milliseconds (0–86,400,000), null: none set. */
const lbTimeout = z.int().min(0).max(86_400_000, { error: 'must be at most 86400000 (a day)' }).nullable();

/** An IPv4 or IPv6 address, in the form the platform answers it (checked loosely; the platform checks it again). */
const ipAddress = z.string().regex(/^[0-9a-fA-F.:]+$/, { error: 'must be an IP address, such as 10.0.0.10' });

/** A member (CreateLbPoolMemberSerializer): found in the pool by address and port. */
export const memberSchema = z.strictObject({
  address: ipAddress.describe('The member address, usually ${cloud_instance.NAME.fixed_ip_address}.'),
  protocol_port: z.int().min(1).max(65535).describe('The port the member serves on.'),
  weight: z.int().min(1).max(256).optional().describe('Its share of the traffic (1–256; the platform default 1).'),
  instance_id: uuid.optional().describe('The instance the address is on, usually ${cloud_instance.NAME.id}; sent with the member, not answered.'),
  subnet_id: uuid.optional().describe("The subnet holding the address (the instance's port's subnet when omitted)."),
  backup: z.boolean().optional().describe('Whether it only serves when every other member is down (default false).'),
  admin_state_up: z.boolean().optional().describe('Whether it serves (default true).'),
  monitor_address: ipAddress.nullable().optional().describe('Another address the health monitor checks.'),
  monitor_port: z.int().min(1).max(65535).nullable().optional().describe('Another port the health monitor checks.'),
});

/** A health monitor (CreateLbHealthMonitorSerializer). */
export const monitorSchema = z.strictObject({
  type: z.enum(['HTTP', 'HTTPS', 'K8S', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT']).describe('The check; a different type removes the monitor and adds the new one.'),
  delay: z.int().min(1).describe('Seconds between checks.'),
  timeout: z.int().min(0).describe('Seconds a check may take; less than delay.'),
  max_retries: z.int().min(1).max(10).describe('Successes that make a member ONLINE (1–10).'),
  max_retries_down: z.int().min(1).max(10).optional().describe('Failures that make it ERROR (1–10; default 3).'),
  http_method: z.enum(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']).optional().describe('HTTP(S) monitors: the method (default GET).'),
  url_path: z
    .string()
    .regex(/^\/([^/?#%][^?#%]*)?$/, { error: 'must be a path starting with "/"' })
    .optional()
    .describe('HTTP(S) monitors: the path (default /).'),
  expected_codes: z
    .string()
    .regex(/^\d{3}(-\d{3})?(,\d{3}(-\d{3})?)*$/, { error: 'must be codes or ranges, comma-separated (200,202,300-302)' })
    .optional()
    .describe('HTTP(S) monitors: the status codes counted as healthy (default 200).'),
  http_version: z.enum(['1.0', '1.1']).optional().describe('HTTP(S) monitors: the HTTP version (default 1.0).'),
  domain_name: z.string().optional().describe('HTTP(S) monitors: the Host header (needs http_version 1.1).'),
});

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    pool_id: uuid.optional().describe('The pool id (UUID) to adopt. Omit it to have edgeform find the pool by its balancer and name, or create it.'),
    load_balancer_id: uuid.describe('The balancer the pool is on, usually ${cloud_load_balancer.NAME.id}; a different one replaces the pool.'),
    listener_id: uuid
      .optional()
      .describe('The listener whose pool it is, usually ${cloud_lb_listener.NAME.id} (one pool a listener); set at create: a different one replaces the pool.'),
    name: cloudResourceName.describe('The pool name (3–63 characters), unique within its balancer: how a block finds its pool.'),
    lb_algorithm: z
      .enum(['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP'])
      .optional()
      .describe('How members are chosen (ROUND_ROBIN, LEAST_CONNECTIONS, SOURCE_IP). Required to create; changed in place.'),
    protocol: z.enum(['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP', 'UDP']).optional().describe('The protocol to the members. Required to create; changed in place.'),
    session_persistence: z
      .strictObject({
        type: z.enum(['APP_COOKIE', 'HTTP_COOKIE', 'SOURCE_IP']),
        cookie_name: z.string().optional(),
        persistence_granularity: z.string().optional(),
        persistence_timeout: z.int().min(0).optional(),
      })
      .nullable()
      .optional()
      .describe('Session stickiness ({type, cookie_name (APP_COOKIE)}); null: none; changed in place.'),
    timeout_client_data: lbTimeout.optional().describe('Client inactivity timeout in ms; changed in place.'),
    timeout_member_connect: lbTimeout.optional().describe('Member connect timeout in ms; changed in place.'),
    timeout_member_data: lbTimeout.optional().describe('Member inactivity timeout in ms; changed in place.'),
    secret_id: uuid.nullable().optional().describe('TLS to the members: the client certificate (${cloud_secret.NAME.id}); changed in place.'),
    ca_secret_id: uuid.nullable().optional().describe('TLS to the members: the CA certificate that checks them; changed in place.'),
    crl_secret_id: uuid.nullable().optional().describe('TLS to the members: the revocation list; changed in place.'),
    members: z
      .array(memberSchema)
      .optional()
      .describe('The members, compared as a set by address and port: a changed list is one pool PATCH that keeps the unchanged members ([] for none).'),
    healthmonitor: monitorSchema.nullable().optional().describe('The health monitor; null: none; changed in place.'),
    ensure: ensureDeletable,
  });

/**
 * cloud_lb_pool: a pool of a load balancer (on a listener or on the balancer alone) with its
 * members and health monitor inline, adopted by `pool_id` or found by its balancer and name,
 * created when none has it; members are compared as a set by address and port.
 */
export const cloudLbPoolKind = defineKind({
  type: 'cloud_lb_pool',
  kind: 'resource',
  description: 'A pool of a cloud load balancer with its members and health monitor, by pool_id or by name within its balancer; a changed member list is one PATCH.',
  identity: ['pool_id', 'name'],
  secretIds: ['secret_id', 'ca_secret_id', 'crl_secret_id'],
  terraform: {
    resource: 'gcore_lbpool',
    fields: { project_name: 'project_id', region_name: 'region_id', loadbalancer_id: 'load_balancer_id', health_monitor: 'healthmonitor' },
  },
  formerNames: { certificate_id: 'secret_id', ca_certificate_id: 'ca_secret_id', crl_id: 'crl_secret_id' },
  idField: 'pool_id',
  create: { key: ['load_balancer_id', 'name'] },
  resolvedBeforeRead: ['load_balancer_id'],
  readable: {
    id: { type: 'string', description: 'The pool id (UUID).', read: (s) => s.pool_id },
    name: { type: 'string', description: 'The pool name.', read: (s) => s.name },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      const creating = value.pool_id === undefined && value.ensure === 'present';
      for (const field of ['lb_algorithm', 'protocol'] as const) {
        if (creating && value[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'must be set when pool_id is not: edgeform creates the pool with it' });
      }
      const seen = new Map<string, number>();
      (value.members ?? []).forEach((m, i) => {
        const key = `${m.address}:${m.protocol_port}`;
        if (seen.has(key))
          ctx.addIssue({
            code: 'custom',
            path: ['members', i, 'address'],
            message: `repeats member ${key} (members ${seen.get(key)} and ${i}): a pool has one member per address and port`,
          });
        else seen.set(key, i);
      });
      const hm = value.healthmonitor;
      if (hm) {
        if (hm.timeout >= hm.delay) ctx.addIssue({ code: 'custom', path: ['healthmonitor', 'timeout'], message: `must be less than delay (${hm.delay})` });
        const http = hm.type === 'HTTP' || hm.type === 'HTTPS';
        for (const key of ['http_method', 'url_path', 'expected_codes', 'http_version', 'domain_name'] as const)
          if (!http && hm[key] !== undefined) ctx.addIssue({ code: 'custom', path: ['healthmonitor', key], message: `is only for HTTP and HTTPS monitors, not ${hm.type}` });
        if (hm.domain_name !== undefined && hm.http_version !== '1.1')
          ctx.addIssue({ code: 'custom', path: ['healthmonitor', 'domain_name'], message: 'needs http_version: "1.1"' });
      }
      const sp = value.session_persistence;
      if (sp && sp.type === 'APP_COOKIE' && sp.cookie_name === undefined)
        ctx.addIssue({ code: 'custom', path: ['session_persistence', 'cookie_name'], message: 'must be set for APP_COOKIE persistence' });
      if (sp && sp.type !== 'APP_COOKIE' && sp.cookie_name !== undefined)
        ctx.addIssue({ code: 'custom', path: ['session_persistence', 'cookie_name'], message: `is only for APP_COOKIE persistence, not ${sp.type}` });
    }),
});
