import { defineImport } from '../kind-list.js';
import { originGroupList } from './list.js';
import { originsOf } from './state.js';

/**
 * Importing origin groups: every group of the account, pinned by its id, with its name, its
 * host and S3 origins and failover settings. Named after the group. The platform never shows an
 * S3 origin's keys, which a block takes only from the environment: a group with an S3 origin
 * makes no valid block (its keys are missing) and is left out, named with that reason.
 */
export const originGroupImport = defineImport('cdn_origin_group', {
  scope: 'account',
  list: originGroupList,
  itemId: (group) => String(group.id),
  attributes: (group) => ({
    origin_group_id: group.id,
    name: group.name,
    // An S3 origin lacks its keys (write-only): the block is refused, and the group left out.
    // The platform's values as they are: import writes them as data, and reading the stack back checks them against the kind's schema.
    origins: originsOf(group) as never,
    ...(group.use_next === undefined ? {} : { use_next: group.use_next }),
    // The same for its upstream conditions.
    ...(group.proxy_next_upstream ? { proxy_next_upstream: [...group.proxy_next_upstream].sort() as never } : {}),
  }),
  blockName: (group) => group.name,
  facts: (group) => [['name', group.name]],
});
