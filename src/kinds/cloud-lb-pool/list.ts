import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { CloudScope, KindList } from '../kind-list.js';

/** A member as the detailed pool answers it (DetailedLbPoolMemberSerializer). */
const memberAnswer = z.looseObject({
  id: z.string(),
  address: z.string(),
  protocol_port: z.int(),
  weight: z.int().nullish(),
  subnet_id: z.string().nullish(),
  backup: z.boolean().nullish(),
  admin_state_up: z.boolean().nullish(),
  monitor_address: z.string().nullish(),
  monitor_port: z.int().nullish(),
  operating_status: z.string().nullish(),
});

/** A health monitor answer (LbHealthMonitorSerializer). */
const monitorAnswer = z.looseObject({
  id: z.string().nullish(),
  type: z.string(),
  delay: z.int(),
  timeout: z.int(),
  max_retries: z.int(),
  max_retries_down: z.int().nullish(),
  http_method: z.string().nullish(),
  url_path: z.string().nullish(),
  expected_codes: z.string().nullish(),
  http_version: z.string().nullish(),
  domain_name: z.string().nullish(),
});

/** The fields of a pool answer (LbPoolSerializer, members detailed) edgeform reads. */
export const poolAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  lb_algorithm: z.string(),
  protocol: z.string(),
  loadbalancers: z.array(z.looseObject({ id: z.string() })).nullish(),
  listeners: z.array(z.looseObject({ id: z.string() })).nullish(),
  members: z.array(memberAnswer).nullish(),
  healthmonitor: monitorAnswer.nullish(),
  session_persistence: z
    .looseObject({ type: z.string(), cookie_name: z.string().nullish(), persistence_granularity: z.string().nullish(), persistence_timeout: z.int().nullish() })
    .nullish(),
  timeout_client_data: z.int().nullish(),
  timeout_member_connect: z.int().nullish(),
  timeout_member_data: z.int().nullish(),
  secret_id: z.string().nullish(),
  ca_secret_id: z.string().nullish(),
  crl_secret_id: z.string().nullish(),
  operating_status: z.string().nullish(),
  task_id: z.string().nullish(),
});

/** A pool as edgeform reads it. */
export type Pool = z.infer<typeof poolAnswer>;

const page = z.looseObject({ count: z.int().min(0), results: z.array(poolAnswer) });

/** Every pool of a project and region, members and monitor detailed (`details=true`; `{count, results}`, `limit`/`offset`, 1,000 a page). */
export const poolList: KindList<CloudScope, Pool> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/lbpools/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const body = (await ctx.api.get(poolList.path(s), { schema: page, query: { details: 'true', limit, offset }, signal: ctx.signal })).body;
    return { items: body.results, total: body.count };
  },
};

/** A pool's item path. */
export const poolPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/lbpools/${p}/${r}/${id}`;

/** A member's key in its pool: its address and port. */
export const memberKey = (m: { address: string; protocol_port: number }) => `${m.address}:${m.protocol_port}`;

/** A pool's fields as plans and import compare them: members with the platform's defaults, absent lists empty. */
export function poolFields(p: Pool) {
  const hm = p.healthmonitor ?? null;
  const sp = p.session_persistence ?? null;
  return {
    pool_id: p.id,
    load_balancer_id: p.loadbalancers?.[0]?.id ?? null,
    listener_id: p.listeners?.[0]?.id ?? null,
    name: p.name,
    lb_algorithm: p.lb_algorithm,
    protocol: p.protocol,
    session_persistence:
      sp === null
        ? null
        : {
            type: sp.type,
            ...(sp.cookie_name == null ? {} : { cookie_name: sp.cookie_name }),
            ...(sp.persistence_granularity == null ? {} : { persistence_granularity: sp.persistence_granularity }),
            ...(sp.persistence_timeout == null ? {} : { persistence_timeout: sp.persistence_timeout }),
          },
    timeout_client_data: p.timeout_client_data ?? null,
    timeout_member_connect: p.timeout_member_connect ?? null,
    timeout_member_data: p.timeout_member_data ?? null,
    secret_id: p.secret_id ?? null,
    ca_secret_id: p.ca_secret_id ?? null,
    crl_secret_id: p.crl_secret_id ?? null,
    members: (p.members ?? []).map((m) => ({
      address: m.address,
      protocol_port: m.protocol_port,
      weight: m.weight ?? 1,
      ...(m.subnet_id == null ? {} : { subnet_id: m.subnet_id }),
      backup: m.backup ?? false,
      admin_state_up: m.admin_state_up ?? true,
      monitor_address: m.monitor_address ?? null,
      monitor_port: m.monitor_port ?? null,
    })),
    healthmonitor:
      hm === null
        ? null
        : Object.fromEntries(
            Object.entries({
              type: hm.type,
              delay: hm.delay,
              timeout: hm.timeout,
              max_retries: hm.max_retries,
              max_retries_down: hm.max_retries_down,
              http_method: hm.http_method,
              url_path: hm.url_path,
              expected_codes: hm.expected_codes,
              http_version: hm.http_version,
              domain_name: hm.domain_name,
            }).filter(([, v]) => v !== null && v !== undefined),
          ),
  };
}
