import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/** The fields of a network answer (NetworkSerializer) edgeform reads: what it plans from, its lock, and its subnets (shown). */
export const networkAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  subnets: z.array(z.string()),
  external: z.boolean().optional(),
  shared: z.boolean().optional(),
  tags: liveTagsAnswer,
  task_id: z.string().nullable(),
});

/** A network as edgeform reads it. */
export type Network = z.infer<typeof networkAnswer>;

/** The networks of a project and region (NetworkCollectionSerializer, `limit`/`offset`, 1,000 a page), filtered by tags or not. */
export const networkList = cloudTaggedList((s) => apiPath`/cloud/v1/networks/${s.project_id}/${s.region_id}`, networkAnswer);

/** A network's item path. */
export const networkPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/networks/${p}/${r}/${id}`;
