import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/** The fields of a volume answer (VolumeSerializer) edgeform reads. */
export const volumeAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  size: z.int(),
  status: z.string(),
  volume_type: z.string(),
  volume_image_metadata: z.record(z.string(), z.string()).nullish(),
  attachments: z.array(z.looseObject({ server_id: z.string().nullish(), instance_name: z.string().nullish() })).nullish(),
  tags: liveTagsAnswer,
  task_id: z.string().nullish(),
});

/** A volume as edgeform reads it. */
export type Volume = z.infer<typeof volumeAnswer>;

/** The volumes of a project and region (`limit`/`offset`, 1,000 a page; tag filters): grouped reads, the find by ownership tags, prune and import. */
export const volumeList = cloudTaggedList((s) => apiPath`/cloud/v1/volumes/${s.project_id}/${s.region_id}`, volumeAnswer);
