import { z } from 'zod';
import type { ProviderContext } from './provider.js';
import { listAll, type AccountScope, type KindList, type ListAllOptions } from './kind-list.js';

/** The fields of a project (ProjectSerializer) import reads: its id, name and whether it is deleted. */
const projectAnswer = z.looseObject({ id: z.int().min(1), name: z.string(), deleted_at: z.string().nullish() });

/** The fields of a region (RegionSerializer) import reads: its id, name, state and whether it offers managed Kubernetes. */
const regionAnswer = z.looseObject({ id: z.int().min(1), display_name: z.string(), state: z.string(), has_k8s: z.boolean().optional() });

/** A cloud project of the account. */
export type CloudProject = z.infer<typeof projectAnswer>;

/** A cloud region. */
export type CloudRegion = z.infer<typeof regionAnswer>;

const projectPage = z.looseObject({ count: z.int().min(0), results: z.array(projectAnswer) });
const regionPage = z.looseObject({ count: z.int().min(0), results: z.array(regionAnswer) });

/** The account's cloud projects (ListProjectsSerializer, `limit`/`offset` up to 1,000, oldest first). */
export const projectList: KindList<AccountScope, CloudProject> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cloud/v1/projects',
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(projectList.path(s), { schema: projectPage, query: { limit, offset, order_by: 'created_at.asc' }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};

/** The platform's cloud regions (RegionCollectionSerializer, `limit`/`offset` up to 1,000, oldest first). */
export const regionList: KindList<AccountScope, CloudRegion> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cloud/v1/regions',
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(regionList.path(s), { schema: regionPage, query: { limit, offset, order_by: 'created_at.asc' }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};

/** The projects cloud resources may be imported from: every project the platform lists that is not deleted. */
export async function listProjects(ctx: ProviderContext, options?: ListAllOptions): Promise<CloudProject[]> {
  const projects = await listAll(ctx, projectList, {}, (p) => String(p.id), options);
  return projects.filter((p) => p.deleted_at === null || p.deleted_at === undefined);
}

/** The regions cloud resources may be imported from: every region the platform lists as ACTIVE. */
export async function listRegions(ctx: ProviderContext, options?: ListAllOptions): Promise<CloudRegion[]> {
  const regions = await listAll(ctx, regionList, {}, (r) => String(r.id), options);
  return regions.filter((r) => r.state === 'ACTIVE');
}

/** A quota block (GlobalQuotasSerializer, RegionalQuotasSerializer): limits and usage counts by name. */
const quotaBlock = z.record(z.string(), z.unknown());

/** The client quotas answer (AllClientQuotasSerializer): both parts optional in the vendor's schema. */
const clientQuotasAnswer = z.looseObject({ global_quotas: quotaBlock.nullish(), regional_quotas: z.array(quotaBlock).nullish() });

/** The numbers of a quota block, by name (anything else left out). */
const countsOf = (block: Readonly<Record<string, unknown>>): Record<string, number> =>
  Object.fromEntries(Object.entries(block).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));

/** The account's quota usage: the global counts, and each region's (only the regions the platform lists; counts by name). */
export interface QuotaUsage {
  global: Readonly<Record<string, number>> | undefined;
  regional: ReadonlyMap<number, Readonly<Record<string, number>>>;
}

/**
 * The account's client quotas (`GET /cloud/v2/client_quotas`): how many resources of each kind
 * the account has, in all and per region, over every project. Import lists a kind only where
 * these do not say there is none (KindImportSpec.quotaUsage).
 */
export async function readQuotaUsage(ctx: ProviderContext): Promise<QuotaUsage> {
  const body = (await ctx.api.get('/cloud/v2/client_quotas', { schema: clientQuotasAnswer, signal: ctx.signal })).body;
  const regional = new Map<number, Record<string, number>>();
  for (const block of body.regional_quotas ?? []) if (typeof block.region_id === 'number') regional.set(block.region_id, countsOf(block));
  return { global: body.global_quotas ? countsOf(body.global_quotas) : undefined, regional };
}

/** Whether quota usage counts say there is nothing to list: each of `keys` is counted, and 0. Unknown counts (or no keys) say nothing. */
export function countsNone(keys: readonly string[], counts: Readonly<Record<string, number>> | undefined): boolean {
  return counts !== undefined && keys.length > 0 && keys.every((key) => counts[key] === 0);
}
