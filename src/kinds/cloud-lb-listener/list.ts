import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { CloudScope, KindList } from '../kind-list.js';

/** The fields of a listener answer (LbListenerSerializer) edgeform reads; every nullable field the spec allows null. */
export const listenerAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  load_balancer_id: z.string().nullish(),
  protocol: z.string(),
  protocol_port: z.int(),
  allowed_cidrs: z.array(z.string()).nullish(),
  connection_limit: z.int().nullish(),
  insert_headers: z.record(z.string(), z.unknown()).nullish(),
  secret_id: z.string().nullish(),
  sni_secret_id: z.array(z.string()).nullish(),
  timeout_client_data: z.int().nullish(),
  timeout_member_connect: z.int().nullish(),
  timeout_member_data: z.int().nullish(),
  user_list: z.array(z.looseObject({ username: z.string(), encrypted_password: z.string() })).nullish(),
  provisioning_status: z.string().nullish(),
  task_id: z.string().nullish(),
});

/** A listener as edgeform reads it. */
export type Listener = z.infer<typeof listenerAnswer>;

const page = z.looseObject({ count: z.int().min(0), results: z.array(listenerAnswer) });

/** Every listener of a project and region (`{count, results}`, `limit`/`offset`, 1,000 a page). */
export const listenerList: KindList<CloudScope, Listener> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/lblisteners/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const body = (await ctx.api.get(listenerList.path(s), { schema: page, query: { limit, offset }, signal: ctx.signal })).body;
    return { items: body.results, total: body.count };
  },
};

/** A listener's item path. */
export const listenerPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/lblisteners/${p}/${r}/${id}`;

/** A listener's fields as plans and import compare them: lists the platform leaves null are empty. */
export function listenerFields(l: Listener) {
  return {
    listener_id: l.id,
    load_balancer_id: l.load_balancer_id ?? null,
    name: l.name,
    protocol: l.protocol,
    protocol_port: l.protocol_port,
    allowed_cidrs: [...(l.allowed_cidrs ?? [])],
    connection_limit: l.connection_limit ?? null,
    insert_x_forwarded: Object.keys(l.insert_headers ?? {}).some((h) => h.toLowerCase().startsWith('x-forwarded')),
    timeout_client_data: l.timeout_client_data ?? null,
    timeout_member_connect: l.timeout_member_connect ?? null,
    timeout_member_data: l.timeout_member_data ?? null,
    secret_id: l.secret_id ?? null,
    sni_secret_id: [...(l.sni_secret_id ?? [])],
    user_list: (l.user_list ?? []).map((u) => ({ username: u.username, encrypted_password: u.encrypted_password })),
  };
}
