import { isOwnershipTag } from '../fields.js';
import { defineImport } from '../kind-list.js';
import { ownerOf } from '../cloud-owned.js';
import { securityGroupList } from './list.js';
import { RULE_PROTOCOLS, SELF, isDefaultEgress, type RuleMatch } from './rules.js';

/**
 * Importing security groups: those of a project and region, each pinned by its id, with its name,
 * description, user tags and rules (the platform's default egress rules left out: the default
 * `rules_policy` keeps them). A rule's remote group is written as `self` when it is the group
 * itself, else as the literal id (a reference in a nested field is not written by import).
 */
export const securityGroupImport = defineImport('cloud_security_group', {
  scope: 'cloud',
  quotaUsage: ['firewall_count_usage'],
  list: securityGroupList,
  itemId: (g) => g.id,
  attributes: (g, s) => ({
    project_id: s.project_id,
    region_id: s.region_id,
    security_group_id: g.id,
    name: g.name,
    ...(g.description ? { description: g.description } : {}),
    rules: g.security_group_rules
      .filter((r) => !isDefaultEgress({ ...r, ethertype: r.ethertype ?? 'IPv4' } as RuleMatch))
      .map((r) => ({
        direction: r.direction,
        ethertype: r.ethertype ?? 'IPv4',
        ...(r.protocol === null ? {} : { protocol: r.protocol as (typeof RULE_PROTOCOLS)[number] }),
        ...(r.port_range_min === null ? {} : { port_range_min: r.port_range_min }),
        ...(r.port_range_max === null || r.port_range_max === r.port_range_min ? {} : { port_range_max: r.port_range_max }),
        ...(r.remote_ip_prefix === null ? {} : { remote_ip_prefix: r.remote_ip_prefix }),
        ...(r.remote_group_id === null ? {} : { remote_group_id: r.remote_group_id === g.id ? SELF : r.remote_group_id }),
        ...(r.description ? { description: r.description } : {}),
      })),
    tags: Object.fromEntries(g.tags.filter((t) => !t.read_only && !isOwnershipTag(t.key)).map((t) => [t.key, t.value])),
  }),
  blockName: (g) => g.name,
  facts: (g) => [['name', g.name]],
  ownedBy: (g) => {
    const owner = ownerOf(g.tags);
    return owner && owner.address !== '' ? owner : undefined;
  },
});
