import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { KindList } from '../kind-list.js';

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

/** An SSH key's item path. */
export const sshKeyPath = (p: number, id: string | number) => apiPath`/cloud/v1/ssh_keys/${p}/${id}`;
