import type { CdnResource } from './list.js';
import { splitPurgeRecord } from '../cdn-purge-record.js';
import { splitMark } from './mark.js';

/**
 * The state of a CDN resource: what plans compare and references read, in the stack's field
 * names. The description is the user's text (the stack mark apart, in `stack_mark` and `owner_mark`,
 * and the purge record, the last token, in `purge_record`: cdn-purge-record.ts), the
 * secondary hostnames sorted (a set), the options as the platform shows them.
 */
export function resourceState(resource: CdnResource): Record<string, unknown> {
  const { rest, record } = splitPurgeRecord(resource.description);
  const { text, stack, mark } = splitMark(rest);
  return {
    resource_id: resource.id,
    cname: resource.cname,
    status: resource.status ?? null,
    active: resource.active ?? null,
    description: text,
    stack_mark: stack,
    owner_mark: mark ?? null,
    purge_record: record,
    origin_group: resource.originGroup ?? null,
    origin_protocol: resource.originProtocol ?? null,
    secondary_hostnames: [...(resource.secondaryHostnames ?? [])].sort(),
    ssl_enabled: resource.sslEnabled ?? false,
    ssl_data: resource.sslData ?? null,
    options: resource.options ?? {},
  };
}
