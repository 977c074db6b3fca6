import { defineImport } from '../kind-list.js';
import { originGroupList } from './list.js';
import { originsOf } from './state.js';

/**
 * Importing origin groups: every group of the account, pinned by its id, with its name, its
 * host origins and failover settings. Named after the group.
 */
export const originGroupImport = defineImport('cdn_origin_group', {
  scope: 'account',
  list: originGroupList,
  itemId: (group) => String(group.id),
  attributes: (group) => ({
    origin_group_id: group.id,
    name: group.name,
    origins: originsOf(group),
    ...(group.use_next === undefined ? {} : { use_next: group.use_next }),
    ...(group.proxy_next_upstream ? { proxy_next_upstream: [...group.proxy_next_upstream].sort() as never } : {}),
  }),
  blockName: (group) => group.name,
  facts: (group) => [['name', group.name]],
});
