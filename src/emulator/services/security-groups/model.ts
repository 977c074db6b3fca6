import type { Placement } from '../../cloud-common.js';
import { SECURITY_GROUP_RULE_PROTOCOLS } from '../../cloud-vendor-values.js';
import type { Tag, TagsPatch } from '../../tags.js';

/** The protocols a rule may name (SecurityGroupProtocolEnumV2, generated from the spec; null is every protocol). */
export const RULE_PROTOCOLS = SECURITY_GROUP_RULE_PROTOCOLS;

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
