import { z } from 'zod';
import { apiPath } from '../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from './cloud-owned.js';
import type { CloudScope, KindList } from './kind-list.js';

/**
 * Cloud lists more than one kind reads: a kind's own list (the SSH keys its blocks are read from)
 * that another kind's create plan also checks its values against (an instance's ssh_key_name),
 * and the platform's catalogues no kind manages (a region's images). One list object each, so
 * that within one reading of a stack a page asked for by both is fetched once (readOnce).
 */

/** The fields of an SSH key answer (SSHKeySerializer) edgeform reads. */
export const sshKeyAnswer = z.looseObject({ id: z.string(), name: z.string(), public_key: z.string(), fingerprint: z.string() });

/** An SSH key as edgeform reads it. */
export type SshKey = z.infer<typeof sshKeyAnswer>;

const sshKeyPage = z.looseObject({ count: z.int().min(0), results: z.array(sshKeyAnswer) });

/** A project's SSH keys, all or those of one name (the list's `name` filter). */
export interface SshKeyScope {
  project_id: number;
  name?: string;
}

/** The SSH keys of a project (SSHKeyCollectionSerializer, `limit`/`offset`, 1,000 a page, oldest first), optionally by name. */
export const sshKeyList: KindList<SshKeyScope, SshKey> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/ssh_keys/${s.project_id}`,
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { ...(s.name === undefined ? {} : { name: s.name }), order_by: 'created_at.asc', limit, offset };
    const page = (await ctx.api.get(sshKeyList.path(s), { schema: sshKeyPage, query, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};

/** The fields of an image answer (ImageSerializer) edgeform reads. */
const imageAnswer = z.looseObject({ id: z.string(), name: z.string() });

/** An image of a region as edgeform reads it. */
export type Image = z.infer<typeof imageAnswer>;

const imagePage = z.looseObject({ count: z.int().min(0).optional(), results: z.array(imageAnswer) });

/** The images a project sees in a region (ImageCollectionSerializer: the region's public ones and the project's own; one answer, unpaged). */
export const imageList: KindList<CloudScope, Image> = {
  paging: { kind: 'none' },
  path: (s) => apiPath`/cloud/v1/images/${s.project_id}/${s.region_id}`,
  async fetchPage(ctx, s) {
    const page = (await ctx.api.get(imageList.path(s), { schema: imagePage, signal: ctx.signal })).body;
    return page.count === undefined ? { items: page.results } : { items: page.results, total: page.count };
  },
};

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

/** What an instance's create plan reads of the things it names in its place: their ids, names, and whether they are taken. */
const placeItem = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  network_id: z.string().nullish(),
  port_id: z.string().nullish(),
  attachments: z.array(z.unknown()).nullish(),
  /** A floating IP's address (what an instance's state shows of the floating IP it holds). */
  floating_ip_address: z.string().nullish(),
});

/** A thing of a place an instance names (a subnet, security group, volume or floating IP), as its create plan reads it. */
export type PlaceItem = z.infer<typeof placeItem>;

/** The subnets, security groups, volumes and floating IPs of a project and region (`limit`/`offset`, 1,000 a page), for an instance's create plan. */
export const placeLists = {
  subnets: cloudTaggedList((s) => apiPath`/cloud/v1/subnets/${s.project_id}/${s.region_id}`, placeItem),
  security_groups: cloudTaggedList((s) => apiPath`/cloud/v1/securitygroups/${s.project_id}/${s.region_id}`, placeItem),
  volumes: cloudTaggedList((s) => apiPath`/cloud/v1/volumes/${s.project_id}/${s.region_id}`, placeItem),
  floating_ips: cloudTaggedList((s) => apiPath`/cloud/v1/floatingips/${s.project_id}/${s.region_id}`, placeItem),
};
