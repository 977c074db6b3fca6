import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { applyTagsPatch, userTagMap } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { securityGroupRoutes } from './routes.js';
import {
  RULE_PROTOCOLS,
  defaultEgressRules,
  matchOf,
  newRule,
  reconcileRules,
  type SecurityGroupEffect,
  type SecurityGroupRecord,
  type SecurityGroupRuleEffect,
  type SecurityGroupRuleRecord,
  type SecurityGroupSlice,
} from './model.js';

export * from './model.js';

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
