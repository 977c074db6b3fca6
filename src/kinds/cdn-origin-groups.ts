import { z } from 'zod';
import { listAll, type AccountScope, type KindList } from './kind-list.js';
import type { PlanProblem, ProviderContext } from './provider.js';
import { isWrittenOutId, knownIn, notAmong } from './refusals.js';

/**
 * The account's CDN origin groups: the cdn_origin_group kind's list, and what a CDN resource's or
 * rule's create plan checks its origin_group against.
 */

/** An S3 origin's config as the platform shows it (S3Config; the keys are always `SECRET_VALUE`, so not read). */
const s3ConfigAnswer = z.looseObject({
  s3_type: z.string(),
  s3_bucket_name: z.string(),
  s3_region: z.string().nullish(),
  s3_storage_hostname: z.string().nullish(),
});

/** An origin of a group as the platform shows it: a host `source`, or `origin_type` s3 (or fastedge, read but not managed) with its `config`. */
const sourceAnswer = z
  .looseObject({
    source: z.string().nullish(),
    origin_type: z.string().optional(),
    config: z.record(z.string(), z.unknown()).nullish(),
    backup: z.boolean().optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine((source, ctx) => {
    if (source.origin_type !== 's3') return;
    const checked = s3ConfigAnswer.safeParse(source.config);
    for (const issue of checked.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', path: ['config', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], message: issue.message });
  });

/** The fields of an origin group answer (OriginGroupsResponse) edgeform reads. */
export const originGroupAnswer = z.looseObject({
  id: z.int(),
  name: z.string(),
  use_next: z.boolean().optional(),
  proxy_next_upstream: z.array(z.string()).nullish(),
  sources: z.array(sourceAnswer).nullish(),
});

/** An S3 origin's config as edgeform reads it. */
export type S3ConfigAnswer = z.infer<typeof s3ConfigAnswer>;

/** The config of an S3 source (`origin_type: s3`, checked when the answer was parsed), or undefined for any other source. */
export function s3ConfigOf(source: { origin_type?: string | undefined; config?: Record<string, unknown> | null | undefined }): S3ConfigAnswer | undefined {
  return source.origin_type === 's3' ? (source.config as S3ConfigAnswer) : undefined;
}

/** An origin group as edgeform reads it. */
export type OriginGroup = z.infer<typeof originGroupAnswer>;

/** A page of the origin group list: paginated (`{count, results}`) when `limit` is given, else a plain array. */
const originGroupPage = z.union([z.array(originGroupAnswer), z.looseObject({ count: z.int().min(0), results: z.array(originGroupAnswer) })]);

/** The account's origin groups (`limit`/`offset`, up to 1,000 a page); `name` filters them (the caller keeps only the exact name). */
export const originGroupList: KindList<AccountScope & { name?: string }, OriginGroup> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cdn/origin_groups',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { limit, offset, ...(s.name === undefined ? {} : { name: s.name }) };
    const page = (await ctx.api.get(originGroupList.path(s), { schema: originGroupPage, query, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};

/**
 * The create facts of a block naming an origin group by an id written out: the account's origin
 * groups (one list a reading, shared with the cdn_origin_group blocks' reads of the same page).
 */
export async function originGroupFacts(ctx: ProviderContext, originGroup: unknown): Promise<Record<string, unknown> | undefined> {
  if (!isWrittenOutId(originGroup)) return undefined;
  const groups = await listAll(ctx, originGroupList, {}, (g) => String(g.id));
  return { origin_groups: groups.map((g) => ({ key: String(g.id), label: g.name })) };
}

/** The plan error of an origin_group no origin group of the account has (from originGroupFacts), or null. Pure. */
export function originGroupProblem(originGroup: unknown, facts: Readonly<Record<string, unknown>> | undefined): PlanProblem | null {
  const groups = knownIn(facts, 'origin_groups');
  if (groups === undefined || typeof originGroup !== 'number') return null;
  return notAmong(String(originGroup), groups, {
    field: 'origin_group',
    noun: 'CDN origin group',
    where: 'in the account',
    suggest: false,
    instead: 'To have edgeform create the group first, declare a cdn_origin_group block and write origin_group: ${cdn_origin_group.NAME.id}.',
  });
}
