import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/**
 * The fields of a floating IP answer (FloatingIPSerializer) edgeform reads: the tags and the
 * lock it plans from are required; the address and status are only shown.
 */
export const floatingIpAnswer = z.looseObject({
  id: z.string(),
  floating_ip_address: z.string().nullish(),
  status: z.string().nullish(),
  tags: liveTagsAnswer,
  task_id: z.string().nullable(),
});

/** A floating IP as edgeform reads it. */
export type FloatingIp = z.infer<typeof floatingIpAnswer>;

/**
 * The floating IPs of a project and region (FloatingIPDetailedCollectionSerializer, `limit`/`offset`,
 * 1,000 a page), filtered by tags or not: grouped reads, import, the find by ownership tags and
 * prune page through it.
 */
export const floatingIpList = cloudTaggedList((s) => apiPath`/cloud/v1/floatingips/${s.project_id}/${s.region_id}`, floatingIpAnswer);
