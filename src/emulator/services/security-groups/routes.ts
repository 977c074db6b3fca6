import { parseNetwork } from '../../cidr.js';
import {
  CLOUD_PRODUCT,
  cloudCreatedTags,
  cloudError,
  cloudName,
  cloudObjectBody,
  cloudPages,
  type CloudScope,
  cloudTagsPatch,
  matchesTagFilter,
  placedIn,
  tagFilter,
  type TagFilter,
  defineCloudCollection,
  patchTags,
} from '../../cloud-common.js';
import { defineCollection, tasksReply, type Created } from '../../collection.js';
import { stableUuid } from '../../fixture-parts.js';
import { UUID_PATTERN, formatOffsetDate, isPlainObject } from '../../format.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import { applyTagsPatch, sameTags } from '../../tags.js';
import type { InstanceSlice } from '../instances/index.js';
import {
  RULE_PROTOCOLS,
  defaultEgressRules,
  newRule,
  reconcileRules,
  sameMatch,
  type RequestedRule,
  type SecurityGroupRecord,
  type SecurityGroupRuleRecord,
  type SecurityGroupSlice,
} from './model.js';

/** The group routes read the instances too: a group an instance uses cannot be deleted. */
type State = SecurityGroupSlice & InstanceSlice;
type Ctx = RouteContext<State>;

/** Protocols whose rules may name ports (the others match whole protocols). */
const PORTED = ['tcp', 'udp', 'sctp', 'udplite', 'dccp'];

const bad = (ctx: Ctx, message: string): never => fail(cloudError(400, message, ctx.requestId));

/**
 * A rule in the SecurityGroupRuleSerializer shape. A rule of every protocol reads `"protocol":
 * "any"`, as on the platform: the v1 answers use SecurityGroupProtocolEnum, which has `any`;
 * only the v2 requests' enum drops it for null.
 */
function renderRule(rule: SecurityGroupRuleRecord): Record<string, unknown> {
  return {
    created_at: formatOffsetDate(rule.created_at),
    description: rule.description,
    direction: rule.direction,
    ethertype: rule.ethertype,
    id: rule.id,
    port_range_max: rule.port_range_max,
    port_range_min: rule.port_range_min,
    protocol: rule.protocol ?? 'any',
    remote_group_id: rule.remote_group_id,
    remote_ip_prefix: rule.remote_ip_prefix,
    revision_number: rule.revision_number,
    security_group_id: rule.security_group_id,
    updated_at: formatOffsetDate(rule.updated_at),
  };
}

/** A security group in the SecurityGroupSerializer shape (tags as `tags_v2`). */
export function renderSecurityGroup(group: SecurityGroupRecord): Record<string, unknown> {
  return {
    created_at: formatOffsetDate(group.created_at),
    description: group.description,
    id: group.id,
    name: group.name,
    project_id: group.project_id,
    region: group.region,
    region_id: group.region_id,
    revision_number: group.revision_number,
    security_group_rules: group.rules.map(renderRule),
    tags_v2: group.tags.map((t) => ({ ...t })),
    updated_at: formatOffsetDate(group.updated_at),
  };
}

/** A network in CIDR notation of the given ethertype (pydantic's ipvanynetwork: host bits must be zero); 400 otherwise. */
function readPrefix(ctx: Ctx, text: unknown, field: string, ethertype: 'IPv4' | 'IPv6'): string {
  const network = typeof text === 'string' ? parseNetwork(text) : { error: 'value is not a valid IPv4 or IPv6 network' };
  if ('error' in network) return bad(ctx, `${field}: ${network.error}`);
  const version = network.version === 4 ? 'IPv4' : 'IPv6';
  if (version !== ethertype) bad(ctx, `${field}: the prefix ${String(text)} is ${version}, the rule's ethertype is ${ethertype}`);
  return `${network.address.toString()}/${network.bits}`;
}

/** A port or null; 400 when outside 0..65535. */
function readPort(ctx: Ctx, value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) bad(ctx, `${field}: Input should be an integer between 0 and 65535 or null`);
  return value as number;
}

/**
 * A rule of a request (CreateSecurityGroupRuleSerializerV2), checked as the platform checks it:
 * direction required, ethertype IPv4 unless told, a protocol of the enum or null (every protocol),
 * ports only for protocols with ports and min ≤ max, a remote prefix matching the ethertype or a
 * remote group of the same project and region (`self` is the group being created), not both.
 */
function readRule(ctx: Ctx, value: unknown, field: string, scope: CloudScope, self: string | undefined): RequestedRule {
  if (!isPlainObject(value)) return bad(ctx, `${field}: Input should be a valid dictionary`);
  const known = ['description', 'direction', 'ethertype', 'port_range_max', 'port_range_min', 'protocol', 'remote_group_id', 'remote_ip_prefix'];
  const extra = Object.keys(value).find((k) => !known.includes(k));
  if (extra !== undefined) bad(ctx, `${field}.${extra}: Extra inputs are not permitted`);
  const { direction, ethertype = 'IPv4', protocol = null, description = null } = value;
  if (direction !== 'ingress' && direction !== 'egress') bad(ctx, `${field}.direction: Input should be 'egress' or 'ingress'`);
  if (ethertype !== 'IPv4' && ethertype !== 'IPv6') bad(ctx, `${field}.ethertype: Input should be 'IPv4' or 'IPv6'`);
  if (protocol !== null && !(RULE_PROTOCOLS as readonly unknown[]).includes(protocol)) bad(ctx, `${field}.protocol: Input should be one of ${RULE_PROTOCOLS.join(', ')} or null`);
  if (description !== null && (typeof description !== 'string' || description.length > 255)) bad(ctx, `${field}.description: String should have at most 255 characters`);
  const min = readPort(ctx, value.port_range_min, `${field}.port_range_min`);
  const max = readPort(ctx, value.port_range_max, `${field}.port_range_max`);
  if ((min !== null || max !== null) && !PORTED.includes(protocol as string)) bad(ctx, `${field}: ports can only be given for the protocols ${PORTED.join(', ')}`);
  if (min !== null && max !== null && min > max) bad(ctx, `${field}: port_range_min ${min} is greater than port_range_max ${max}`);
  const ether = ethertype as 'IPv4' | 'IPv6';
  const prefix = value.remote_ip_prefix === undefined || value.remote_ip_prefix === null ? null : readPrefix(ctx, value.remote_ip_prefix, `${field}.remote_ip_prefix`, ether);
  let remoteGroup: string | null = null;
  if (value.remote_group_id !== undefined) {
    if (typeof value.remote_group_id !== 'string' || !UUID_PATTERN.test(value.remote_group_id)) bad(ctx, `${field}.remote_group_id: Input should be a valid UUID`);
    remoteGroup = value.remote_group_id as string;
    const other = ctx.state.securityGroups.get(remoteGroup);
    if (remoteGroup !== self && (other === undefined || !placedIn(other, scope))) fail(cloudError(404, `Security group ${remoteGroup} not found`, ctx.requestId));
  }
  if (prefix !== null && remoteGroup !== null) bad(ctx, `${field}: only one of remote_ip_prefix and remote_group_id can be given`);
  return {
    direction: direction as 'ingress' | 'egress',
    ethertype: ether,
    protocol: protocol as string | null,
    port_range_min: min,
    port_range_max: min !== null && max === null ? min : max,
    remote_ip_prefix: prefix,
    remote_group_id: remoteGroup,
    description: description as string | null,
  };
}

/** The rules of a request (a list; two equal rules are refused as the platform refuses a duplicate). */
function readRules(ctx: Ctx, value: unknown, scope: CloudScope, self: string): RequestedRule[] {
  if (!Array.isArray(value)) return bad(ctx, 'rules: Input should be a valid list');
  const rules = value.map((r, i) => readRule(ctx, r, `rules.${i}`, scope, self));
  rules.forEach((r, i) => {
    if (rules.findIndex((o) => sameMatch(o, r)) !== i) fail(cloudError(409, `rules.${i}: Security group rule already exists`, ctx.requestId));
  });
  return rules;
}

/**
 * POST /cloud/v2/security_groups/{p}/{r} (CreateSecurityGroupSerializerV2): makes the group at
 * once with its rules, locked by its create_security_group task (a failed task removes it). No
 * egress rule in the request: the platform's default egress rules (IPv4 and IPv6, any) are added;
 * `rules: []` makes none.
 */
function buildGroup(ctx: Ctx, scope: CloudScope): Created<SecurityGroupRecord> {
  const body = cloudObjectBody(ctx);
  const known = ['name', 'description', 'rules', 'tags'];
  const extra = Object.keys(body).find((k) => !known.includes(k));
  if (extra !== undefined) bad(ctx, `${extra}: Extra inputs are not permitted`);
  const name = cloudName(ctx, body);
  if (body.description !== undefined && typeof body.description !== 'string') bad(ctx, 'description: Input should be a valid string');
  const tags = cloudCreatedTags(ctx, body.tags);
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === 'create_security_group').length;
  let id = stableUuid(`created-security-group/${scope.projectId}/${scope.regionId}/${n}`);
  while (ctx.state.securityGroups.has(id)) id = stableUuid(`created-security-group/${scope.projectId}/${scope.regionId}/${++n}`);
  const requested = body.rules === undefined ? [] : readRules(ctx, body.rules, scope, id);
  const rules =
    body.rules === undefined || !requested.some((r) => r.direction === 'egress') ? [...requested, ...defaultEgressRules().map((m) => ({ ...m, description: null }))] : requested;
  if (Array.isArray(body.rules) && body.rules.length === 0) rules.length = 0;
  const region = [...ctx.state.securityGroups.values()].find((g) => g.region_id === scope.regionId)?.region ?? ctx.state.defaults.region;
  const group: SecurityGroupRecord = {
    id,
    project_id: scope.projectId,
    region_id: scope.regionId,
    region,
    name,
    description: (body.description as string | undefined) ?? null,
    tags,
    rules: [],
    revision_number: 0,
    created_at: ctx.now,
    updated_at: ctx.now,
    task_id: null,
    next_task_error: null,
  };
  group.rules = rules.map((r, i) => newRule(group, stableUuid(`security-group-rule/${id}/${i}`), r, r.description, ctx.now));
  for (const rule of group.rules) ctx.state.securityGroupOfRule.set(rule.id, id);
  return { record: group, task: { type: 'create_security_group', data: body, createdResources: { security_groups: [id] } } };
}

/** The instances of the group's project and region that use it (by id, or by name as instance answers list groups). */
export function instancesUsing(state: State, group: SecurityGroupRecord): string[] {
  const using: string[] = [];
  for (const vm of state.instances.values()) {
    if (placedIn(vm, { projectId: group.project_id, regionId: group.region_id }) && (vm.security_groups.includes(group.id) || vm.security_groups.includes(group.name))) {
      using.push(`${vm.name} (${vm.id})`);
    }
  }
  return using;
}

interface ListQuery extends TagFilter {
  name: string | null;
}

/**
 * Security groups: v1 list (`{count, results}`, limit 1..1000 default 10, offset; filters `name`,
 * `tag_key`, `tag_key_value`), GET, deprecated synchronous PATCH (name, description, tags merge
 * patch), DELETE (synchronous 204; 409 naming the instances while any uses it); v2 create and
 * PATCH (tasks).
 */
export const securityGroups = defineCloudCollection<State, SecurityGroupRecord, ListQuery>({
  path: '/cloud/v1/securitygroups/{project_id}/{region_id}',
  createPath: '/cloud/v2/security_groups/{project_id}/{region_id}',
  idParam: 'group_id',
  noun: 'Security group',
  store: (ctx) => ctx.state.securityGroups,
  kind: 'security_group',
  list: {
    paging: cloudPages(1000, 10),
    query: (ctx) => ({ name: ctx.query.get('name'), ...tagFilter(ctx) }),
    where: (g, q) => (q.name === null || g.name === q.name) && matchesTagFilter(g.tags, q),
    render: (g) => renderSecurityGroup(g),
  },
  get: renderSecurityGroup,
  create: { build: buildGroup },
  updates: [
    {
      method: 'PATCH',
      change(ctx, group) {
        const body = cloudObjectBody(ctx);
        const changed: Record<string, unknown> = {};
        const name = body.name === undefined ? undefined : cloudName(ctx, body);
        if (body.description !== undefined && typeof body.description !== 'string') bad(ctx, 'description: Input should be a valid string');
        const tags = 'tags' in body ? cloudTagsPatch(ctx, group.tags, body.tags) : undefined;
        if (name !== undefined && name !== group.name) group.name = changed.name = name;
        if (typeof body.description === 'string' && body.description !== group.description) group.description = changed.description = body.description;
        patchTags(group, tags, changed);
        if (Object.keys(changed).length > 0) {
          group.revision_number++;
          group.updated_at = ctx.now;
        }
        return changed;
      },
      answer: (group) => jsonReply(200, renderSecurityGroup(group)),
    },
    {
      method: 'PATCH',
      path: '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}',
      task(ctx, group, scope, checkLock) {
        const body = cloudObjectBody(ctx);
        const name = body.name === undefined ? undefined : cloudName(ctx, body);
        if (body.description !== undefined && typeof body.description !== 'string') bad(ctx, 'description: Input should be a valid string');
        const tags = 'tags' in body ? cloudTagsPatch(ctx, group.tags, body.tags) : undefined;
        const rules = body.rules === undefined ? undefined : readRules(ctx, body.rules, scope, group.id);
        checkLock();
        const effect = {
          type: 'update_security_group' as const,
          name: name !== undefined && name !== group.name ? name : undefined,
          description: typeof body.description === 'string' && body.description !== group.description ? body.description : undefined,
          tags: tags !== undefined && !sameTags(applyTagsPatch(group.tags, tags), group.tags) ? tags : undefined,
          rules: rules !== undefined && (reconcileRules(group.rules, rules).add.length > 0 || group.rules.length !== rules.length) ? rules : undefined,
        };
        if (effect.name === undefined && effect.description === undefined && effect.tags === undefined && effect.rules === undefined) return undefined;
        return { type: 'update_security_group', effect, data: body };
      },
    },
  ],
  delete: {
    check(ctx, group) {
      const using = instancesUsing(ctx.state, group);
      if (using.length > 0) fail(cloudError(409, `Security group ${group.id} is in use by instance${using.length === 1 ? '' : 's'} ${using.join(', ')}`, ctx.requestId));
    },
    remove(ctx, group) {
      securityGroups.assertUnlocked(ctx, group);
      for (const rule of group.rules) ctx.state.securityGroupOfRule.delete(rule.id);
      ctx.state.securityGroups.delete(group.id);
    },
  },
});

/** POST /cloud/v2/security_groups/{p}/{r}/{group_id}/rules: the rule made at once, its task create_security_group_rule; 409 for a duplicate. */
function createRule(ctx: Ctx): ReturnType<typeof tasksReply> {
  const { record: group, scope } = securityGroups.locate(ctx);
  const requested = readRule(ctx, cloudObjectBody(ctx), 'body', scope, group.id);
  if (group.rules.some((r) => sameMatch(r, requested))) fail(cloudError(409, 'Security group rule already exists', ctx.requestId));
  let n = group.rules.length;
  let id = stableUuid(`security-group-rule/${group.id}/${n}`);
  while (ctx.state.securityGroupOfRule.has(id)) id = stableUuid(`security-group-rule/${group.id}/${++n}`);
  const rule = newRule(group, id, requested, requested.description, ctx.now);
  group.rules.push(rule);
  ctx.state.securityGroupOfRule.set(id, group.id);
  group.revision_number++;
  return tasksReply(rules.startTask(ctx, rule, { type: 'create_security_group_rule', data: ctx.body, createdResources: { security_group_rules: [id] } }));
}

/** DELETE /cloud/v2/security_groups/{p}/{r}/{group_id}/rules/{rule_id}: task delete_security_group_rule (409 while the rule's own task runs). */
function deleteRule(ctx: Ctx): ReturnType<typeof tasksReply> {
  const group = securityGroups.find(ctx);
  const ruleId = ctx.params.rule_id ?? '';
  if (!UUID_PATTERN.test(ruleId)) bad(ctx, `rule_id: Input should be a valid UUID, got "${ruleId}"`);
  const rule = group.rules.find((r) => r.id === ruleId);
  if (rule === undefined) return fail(cloudError(404, `Security group rule ${ruleId} not found`, ctx.requestId));
  rules.assertUnlocked(ctx, rule);
  return tasksReply(rules.startTask(ctx, rule, { type: 'delete_security_group_rule', data: null }));
}

/** The rules' task starts (the collection's task plumbing on the rule target). */
const rules = defineCollection<State, SecurityGroupRuleRecord, undefined, undefined, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules',
  idParam: 'rule_id',
  idSyntax: 'uuid',
  noun: 'Security group rule',
  store: () => [],
  idOf: (rule) => rule.id,
  tasks: { kind: 'security_group_rule' },
});

/** Every security group route: the collection's, then the v2 rule create and delete. */
export const securityGroupRoutes: ServiceRoute<State>[] = [
  ...securityGroups.routes,
  { method: 'POST', pattern: '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules', handler: createRule },
  { method: 'DELETE', pattern: '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules/{rule_id}', handler: deleteRule },
];
