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
