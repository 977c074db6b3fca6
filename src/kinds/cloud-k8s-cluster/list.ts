import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type CloudScope, type KindList } from '../kind-list.js';

/** The fields of a cluster answer (K8sClusterV2Serializer) edgeform reads; `task_id` defaults to null. */
export const clusterAnswer = z.looseObject({
  name: z.string(),
  version: z.string(),
  status: z.string(),
  task_id: z.string().nullish(),
});

/** A cluster as edgeform reads it. */
export type Cluster = z.infer<typeof clusterAnswer>;

/** The cluster list (K8sClusterV2CollectionSerializer): every cluster of a project and region in one answer. */
const clusterListAnswer = z.looseObject({ count: z.int().min(0), results: z.array(clusterAnswer) });

/** The clusters of a project and region, all in one answer (no paging): grouped reads and import read it. */
export const clusterList: KindList<CloudScope, Cluster> = {
  paging: { kind: 'none' },
  path: (s) => apiPath`/cloud/v2/k8s/clusters/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s) {
    const list = (await ctx.api.get(clusterList.path(s), { schema: clusterListAnswer, signal: ctx.signal })).body;
    return { items: list.results, total: list.count };
  },
};
