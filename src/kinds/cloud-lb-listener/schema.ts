import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { cloudResourceName, ensureDeletable, projectId, regionId, uuid } from '../fields.js';

/** A timeout in milliseconds, as the vendor bounds it (0–86,400,000); null: the platform's default. */
export const lbTimeout = z.int().min(0, { error: 'must be 0 or more' }).max(86_400_000, { error: 'must be at most 86400000 (a day)' }).nullable();

/** A network in CIDR notation (the platform checks the host bits; validate the form). */
const cidr = z.string().regex(/^[0-9a-fA-F.:]+\/\d{1,3}$/, { error: 'must be a network in CIDR notation, such as 10.0.0.0/8' });

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    listener_id: uuid.optional().describe('The listener id (UUID) to adopt. Omit it to have edgeform find the listener by its balancer and name, or create it.'),
    load_balancer_id: uuid.describe('The balancer the listener is on, usually ${cloud_load_balancer.NAME.id}; a different one replaces the listener.'),
    name: cloudResourceName.describe('The listener name (3–63 characters), unique within its balancer: how a block finds its listener.'),
    protocol: z
      .enum(['HTTP', 'HTTPS', 'TCP', 'UDP', 'TERMINATED_HTTPS', 'PROMETHEUS'])
      .optional()
      .describe('The protocol. Required to create a listener; a different one replaces it.'),
    protocol_port: z.int().min(1).max(65535).optional().describe('The port (1–65535). Required to create a listener; a different one replaces it.'),
    allowed_cidrs: z.array(cidr).optional().describe('The networks allowed to connect; the whole list is managed ([] for every address); changed in place.'),
    connection_limit: z.int().min(-1).max(1_000_000).optional().describe('The most connections at once (-1: no limit, answered as 100000); changed in place.'),
    insert_x_forwarded: z
      .boolean()
      .optional()
      .describe('Whether X-Forwarded-For, -Port and -Proto are added (HTTP and TERMINATED_HTTPS); set at create: a different value replaces the listener.'),
    timeout_client_data: lbTimeout.optional().describe('Client inactivity timeout in ms; null: the platform default (50000); changed in place.'),
    timeout_member_connect: lbTimeout.optional().describe('Backend connect timeout in ms; null: the platform default (5000); changed in place.'),
    timeout_member_data: lbTimeout.optional().describe('Backend inactivity timeout in ms; null: the platform default (50000); changed in place.'),
    secret_id: uuid.nullable().optional().describe('The certificate of a TERMINATED_HTTPS listener, usually ${cloud_secret.NAME.id}; changed in place.'),
    sni_secret_id: z.array(uuid).optional().describe('More certificates chosen by SNI, usually [${cloud_secret.NAME.id}, ...]; the whole list is managed; changed in place.'),
    user_list: z
      .array(z.strictObject({ username: z.string().min(1), encrypted_password: z.string().min(1) }))
      .optional()
      .describe('Basic authentication users ({username, encrypted_password}: a crypt hash); the whole list is managed; changed in place.'),
    ensure: ensureDeletable,
  });

/**
 * cloud_lb_listener: a listener of a load balancer, adopted by `listener_id` or found by its
 * balancer and name, created when none has it; its balancer, protocol, port and X-Forwarded
 * headers are set at create, the rest changes in place.
 */
export const cloudLbListenerKind = defineKind({
  type: 'cloud_lb_listener',
  kind: 'resource',
  description:
    'A listener of a cloud load balancer, by listener_id or by name within its balancer; protocol, port and balancer are set at create (-/+), the rest changes in place.',
  identity: ['listener_id', 'name'],
  secretIds: ['secret_id', 'sni_secret_id'],
  terraform: { resource: 'gcore_lblistener', fields: { project_name: 'project_id', region_name: 'region_id', loadbalancer_id: 'load_balancer_id' } },
  formerNames: { certificate_id: 'secret_id', sni_certificate_ids: 'sni_secret_id', sni_secret_ids: 'sni_secret_id' },
  idField: 'listener_id',
  create: { key: ['load_balancer_id', 'name'] },
  resolvedBeforeRead: ['load_balancer_id'],
  readable: {
    id: { type: 'string', description: 'The listener id (UUID).', read: (s) => s.listener_id },
    name: { type: 'string', description: 'The listener name.', read: (s) => s.name },
    protocol_port: { type: 'number', description: 'The port.', read: (s) => s.protocol_port },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      const creating = value.listener_id === undefined && value.ensure === 'present';
      for (const field of ['protocol', 'protocol_port'] as const) {
        if (creating && value[field] === undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'must be set when listener_id is not: edgeform creates the listener with it' });
      }
      const https = value.protocol === 'TERMINATED_HTTPS';
      if (value.protocol !== undefined && https && creating && (value.secret_id === undefined || value.secret_id === null))
        ctx.addIssue({ code: 'custom', path: ['secret_id'], message: 'must be set for a TERMINATED_HTTPS listener (its certificate, usually ${cloud_secret.NAME.id})' });
      if (value.protocol !== undefined && !https && value.protocol !== 'PROMETHEUS') {
        if (value.secret_id !== undefined && value.secret_id !== null)
          ctx.addIssue({ code: 'custom', path: ['secret_id'], message: `is only for TERMINATED_HTTPS and PROMETHEUS listeners, not ${value.protocol}` });
        if (value.sni_secret_id !== undefined && value.sni_secret_id.length > 0)
          ctx.addIssue({ code: 'custom', path: ['sni_secret_id'], message: `are only for TERMINATED_HTTPS and PROMETHEUS listeners, not ${value.protocol}` });
      }
      if (value.insert_x_forwarded === true && value.protocol !== undefined && value.protocol !== 'HTTP' && !https)
        ctx.addIssue({ code: 'custom', path: ['insert_x_forwarded'], message: `is only for HTTP and TERMINATED_HTTPS listeners, not ${value.protocol}` });
    }),
});
