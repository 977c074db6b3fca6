import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { CloudScope, KindList } from '../kind-list.js';

/** The fields of a secret answer (SecretSerializer) edgeform reads: its metadata (the platform never answers the payload). */
export const secretAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  secret_type: z.string().nullish(),
  expiration: z.string().nullish(),
  status: z.string().nullish(),
});

/** A secret as edgeform reads it. */
export type Secret = z.infer<typeof secretAnswer>;

const page = z.looseObject({ count: z.int().min(0), results: z.array(secretAnswer) });

/** The secrets of a project and region (`{count, results}`, `limit`/`offset`, 1,000 a page; no filter: a secret is found by name in it). */
export const secretList: KindList<CloudScope, Secret> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/secrets/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const body = (await ctx.api.get(secretList.path(s), { schema: page, query: { limit, offset }, signal: ctx.signal })).body;
    return { items: body.results, total: body.count };
  },
};

/** A secret's item path. */
export const secretPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/secrets/${p}/${r}/${id}`;

/** An expiration as plans compare it: the instant, whatever the platform's spelling of it; null: none. */
export function expirationInstant(text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}
