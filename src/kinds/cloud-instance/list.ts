import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type CloudScope, type KindList } from '../kind-list.js';

/** The fields of an instance answer (InstanceSerializer) edgeform reads; the flavor id is nested. */
export const instanceAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  task_id: z.string().nullable(),
  flavor: z.looseObject({ flavor_id: z.string() }),
});

/** An instance as edgeform reads it. */
export type Instance = z.infer<typeof instanceAnswer>;

/** A page of the instance list (InstanceCollectionSerializer): its items are instance answers. */
const instancePage = z.looseObject({ count: z.int().min(0), results: z.array(instanceAnswer) });

/** The instances of a project and region (`limit`/`offset`, 1,000 a page): grouped reads and import page through it. */
export const instanceList: KindList<CloudScope, Instance> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/instances/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(instanceList.path(s), { schema: instancePage, query: { limit, offset }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
