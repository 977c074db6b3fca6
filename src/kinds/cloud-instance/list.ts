import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type CloudScope, type KindList } from '../kind-list.js';

/**
 * The fields of an instance answer (InstanceSerializer) edgeform reads: the flavor id is nested;
 * the tags (ownership and user), the volumes (which an existing-volume create attached: not
 * deleted on termination), the SSH key and the addresses (per network: fixed, then floating) are
 * what it plans and references read.
 */
export const instanceAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  task_id: z.string().nullable(),
  flavor: z.looseObject({ flavor_id: z.string() }),
  // Read as empty when the answer leaves them out: an instance edgeform only resizes needs none of them.
  tags: z.array(z.looseObject({ key: z.string(), value: z.string(), read_only: z.boolean() })).default([]),
  volumes: z.array(z.looseObject({ id: z.string(), delete_on_termination: z.boolean() })).default([]),
  ssh_key_name: z.string().nullish(),
  addresses: z.record(z.string(), z.array(z.looseObject({ addr: z.string(), type: z.string() }))).default({}),
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

/** Instances of a project and region carrying tags: the list's `tag_key_value` filter (a JSON object of key → value, each carried). */
export interface TaggedScope extends CloudScope {
  tagKeyValue: string;
}

/**
 * The instances of a project and region carrying tags, paged as the whole list is: the find by
 * ownership tags reads it. The platform's filter is not trusted: callers check each item's tags.
 */
export const instanceTaggedList: KindList<TaggedScope, Instance> = {
  paging: instanceList.paging,
  path: (s) => instanceList.path(s),
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(instanceList.path(s), { schema: instancePage, query: { tag_key_value: s.tagKeyValue, limit, offset }, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
