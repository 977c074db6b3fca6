import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture, type Placement } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { applyTagsPatch, userTagMap, type Tag, type TagsPatch } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { securityGroupRoutes } from './routes.js';

/** The protocols a rule may name (SecurityGroupProtocolEnumV2; null is every protocol). */
export const RULE_PROTOCOLS = [
  'ah',
  'dccp',
  'egp',
  'esp',
  'gre',
  'icmp',
  'igmp',
  'ipencap',
  'ipip',
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  'ospf',
  'pgm',
  'rsvp',
  'sctp',
  'tcp',
  'udp',
  'udplite',
  'vrrp',
] as const;

/** What a rule matches: the fields of CreateSecurityGroupRuleSerializerV2 (description aside). */
export interface RuleMatch {
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
  remote_group_id: string | null;
}

/** A security group rule as held in memory. */
export interface SecurityGroupRuleRecord extends RuleMatch {
  id: string;
  security_group_id: string;
  description: string | null;
  revision_number: number;
  created_at: number;
  updated_at: number;
  /** The task creating or deleting it, or null. */
  task_id: string | null;
  next_task_error: string | null;
}

/** A security group as held in memory (its rules in creation order). */
export interface SecurityGroupRecord extends Placement {
  id: string;
  name: string;
  description: string | null;
  tags: Tag[];
  rules: SecurityGroupRuleRecord[];
  revision_number: number;
  created_at: number;
  updated_at: number;
  /** The task changing it (create, update), or null: held, never shown (the vendor's group has no lock field). */
  task_id: string | null;
  next_task_error: string | null;
}

/** The security group service's slice: the groups, and which group each rule id belongs to. */
export interface SecurityGroupSlice {
  readonly securityGroups: Map<string, SecurityGroupRecord>;
  readonly securityGroupOfRule: Map<string, string>;
}

/** What a security group task does when it finishes. */
export type SecurityGroupEffect =
  | { type: 'create_security_group' }
  | {
      type: 'update_security_group';
      name?: string | undefined;
      description?: string | undefined;
      tags?: TagsPatch | undefined;
      /** The rules as the desired final set: those missing are created, those not listed deleted. */
      rules?: RequestedRule[] | undefined;
    };

/** A rule of a request: what it matches and its description. */
export type RequestedRule = RuleMatch & { description: string | null };

/** What a rule task does when it finishes: a create keeps the rule made at the POST (a failed one removes it), a delete removes it. */
export type SecurityGroupRuleEffect = { type: 'create_security_group_rule' } | { type: 'delete_security_group_rule' };

/** The platform's default egress rules of a new group (no egress rule in its create): any protocol to anywhere, IPv4 and IPv6. */
export function defaultEgressRules(): RuleMatch[] {
  return (['IPv4', 'IPv6'] as const).map((ethertype) => ({
    direction: 'egress',
    ethertype,
    protocol: null,
    port_range_min: null,
    port_range_max: null,
    remote_ip_prefix: null,
    remote_group_id: null,
  }));
}

const ruleFixture = z.strictObject({
  id: uuid.optional(),
  direction: z.enum(['ingress', 'egress']),
  ethertype: z.enum(['IPv4', 'IPv6']).default('IPv4'),
  protocol: z.enum(RULE_PROTOCOLS).nullable().default(null),
  port_range_min: z.int().min(0).max(65535).nullable().default(null),
  port_range_max: z.int().min(0).max(65535).nullable().default(null),
  remote_ip_prefix: z.string().nullable().default(null),
  remote_group_id: uuid.nullable().default(null),
  description: z.string().nullable().default(null),
});

const securityGroupFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  description: z.string().nullable().default(null),
  /** Absent: the platform's default egress rules. */
  rules: z.array(ruleFixture).optional(),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  created_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const groupTasks: TaskTarget<'security_group', SecurityGroupRecord, SecurityGroupEffect, SecurityGroupSlice> = {
  kind: 'security_group',
  find: (state, id) => state.securityGroups.get(id),
  finish(state, group, task, ok) {
    const { effect } = task;
    if (effect.type === 'create_security_group') {
      if (!ok) {
        state.securityGroups.delete(group.id);
        for (const rule of group.rules) state.securityGroupOfRule.delete(rule.id);
      } else state.recordMutation(task.finish_at, 'security_group', group.id, 'create_security_group', { name: group.name, tags: userTagMap(group.tags) }, task.id);
      return;
    }
    if (!ok) return;
    const after: Record<string, unknown> = {};
    if (effect.name !== undefined) group.name = after.name = effect.name;
    if (effect.description !== undefined) group.description = after.description = effect.description;
    if (effect.tags !== undefined) {
      group.tags = applyTagsPatch(group.tags, effect.tags);
      after.tags = userTagMap(group.tags);
    }
    if (effect.rules !== undefined) {
      const { keep, add } = reconcileRules(group.rules, effect.rules);
      for (const rule of group.rules) if (!keep.includes(rule)) state.securityGroupOfRule.delete(rule.id);
      const made = add.map((r, i) => newRule(group, stableUuid(`security-group-rule/${task.id}/${i}`), matchOf(r), r.description, task.finish_at));
      for (const rule of made) state.securityGroupOfRule.set(rule.id, group.id);
      group.rules = [...keep, ...made];
      after.rules = group.rules.map(matchOf);
    }
    group.revision_number++;
    group.updated_at = task.finish_at;
    state.recordMutation(task.finish_at, 'security_group', group.id, 'update_security_group', after, task.id);
  },
};

const ruleTasks: TaskTarget<'security_group_rule', SecurityGroupRuleRecord, SecurityGroupRuleEffect, SecurityGroupSlice> = {
  kind: 'security_group_rule',
  find(state, id) {
    const group = state.securityGroups.get(state.securityGroupOfRule.get(id) ?? '');
    return group?.rules.find((r) => r.id === id);
  },
  finish(state, rule, task, ok) {
    const group = state.securityGroups.get(rule.security_group_id);
    if (!group) return;
    const remove = () => {
      group.rules = group.rules.filter((r) => r.id !== rule.id);
      state.securityGroupOfRule.delete(rule.id);
      group.revision_number++;
      group.updated_at = task.finish_at;
    };
    if (task.effect.type === 'create_security_group_rule') {
      if (!ok) return remove();
      state.recordMutation(task.finish_at, 'security_group_rule', rule.id, 'create_security_group_rule', { security_group_id: group.id, ...matchOf(rule) }, task.id);
      return;
    }
    if (!ok) return;
    remove();
    state.recordMutation(task.finish_at, 'security_group_rule', rule.id, 'delete_security_group_rule', { security_group_id: group.id }, task.id);
  },
};

/** The match fields of a rule. */
export function matchOf(rule: RuleMatch): RuleMatch {
  const { direction, ethertype, protocol, port_range_min, port_range_max, remote_ip_prefix, remote_group_id } = rule;
  return { direction, ethertype, protocol, port_range_min, port_range_max, remote_ip_prefix, remote_group_id };
}

/** Whether two rules match the same traffic. */
export function sameMatch(a: RuleMatch, b: RuleMatch): boolean {
  return (
    a.direction === b.direction &&
    a.ethertype === b.ethertype &&
    a.protocol === b.protocol &&
    a.port_range_min === b.port_range_min &&
    a.port_range_max === b.port_range_max &&
    a.remote_ip_prefix === b.remote_ip_prefix &&
    a.remote_group_id === b.remote_group_id
  );
}

/** A group's rules against a desired set: the live rules kept (one per desired match) and the desired ones to create. */
export function reconcileRules(live: readonly SecurityGroupRuleRecord[], desired: readonly RequestedRule[]): { keep: SecurityGroupRuleRecord[]; add: RequestedRule[] } {
  const keep: SecurityGroupRuleRecord[] = [];
  const add: RequestedRule[] = [];
  for (const want of desired) {
    const found = live.find((r) => !keep.includes(r) && sameMatch(r, want));
    if (found) keep.push(found);
    else add.push(want);
  }
  return { keep, add };
}

/** A rule record made now in a group. */
export function newRule(group: SecurityGroupRecord, id: string, match: RuleMatch, description: string | null, now: number): SecurityGroupRuleRecord {
  return { id, security_group_id: group.id, ...match, description, revision_number: 0, created_at: now, updated_at: now, task_id: null, next_task_error: null };
}

/**
 * Cloud security groups: v2 create (task create_security_group; a group without egress rules gets
 * the platform's default egress rules), v2 PATCH (task update_security_group: name, description,
 * tags merge patch, rules as the desired final set), v2 rule create and delete (tasks), v1 list
 * (tag filters, paged), GET, deprecated PATCH and synchronous DELETE (409 while an instance uses the
 * group). Fixtures: `security_groups`.
 */
export const securityGroupsService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { security_groups: listSection(securityGroupFixture) },
  fixtureIds: { security_groups: (x) => x.id },
  createState: (): SecurityGroupSlice => ({ securityGroups: new Map(), securityGroupOfRule: new Map() }),
  load(slice, { security_groups }, world) {
    slice.securityGroups.clear();
    slice.securityGroupOfRule.clear();
    for (const x of security_groups) {
      const created = fixtureDate(x.created_at);
      const group: SecurityGroupRecord = {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        description: x.description,
        tags: fixtureTags(x.tags, x.read_only_tags),
        rules: [],
        revision_number: 0,
        created_at: created,
        updated_at: created,
        task_id: null,
        next_task_error: x.next_task_error,
      };
      const rules = x.rules ?? defaultEgressRules().map((m) => ({ ...m, id: undefined, description: null }));
      rules.forEach((r, i) => {
        const rule = newRule(group, r.id ?? stableUuid(`security-group-rule/${x.id}/${i}`), matchOf(r), r.description, created);
        group.rules.push(rule);
        slice.securityGroupOfRule.set(rule.id, group.id);
      });
      slice.securityGroups.set(x.id, group);
    }
  },
  dump: (state) => ({ security_groups: [...state.securityGroups.values()] }),
  routes: securityGroupRoutes,
  mutationKinds: ['security_group', 'security_group_rule'],
  taskTargets: [groupTasks, ruleTasks],
});
