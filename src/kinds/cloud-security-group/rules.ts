import { KNOWN_AFTER_APPLY } from '../../plan/types.js';
import { SELF, canonicalPrefix } from './schema.js';

export { PORTED_PROTOCOLS, RULE_PROTOCOLS, SELF, canonicalPrefix } from './schema.js';

/** What a rule matches, as the platform shows it (every field present, null for "any"). */
export interface RuleMatch {
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
  remote_group_id: string | null;
}

/** A live rule: its id, what it matches and its description. */
export interface LiveRule extends RuleMatch {
  id: string;
  description: string | null;
}

/** A rule as a block declares it (see the schema): `remote_group_id: self` is the group itself. */
export interface DeclaredRule {
  direction: 'ingress' | 'egress';
  ethertype: 'IPv4' | 'IPv6';
  protocol?: string | undefined;
  port_range_min?: number | undefined;
  port_range_max?: number | undefined;
  remote_ip_prefix?: string | undefined;
  remote_group_id?: string | undefined;
  description?: string | undefined;
}

/** A declared rule as the create or rule-create request sends it (the match, and the description when declared). */
export type RuleBody = RuleMatch & { description?: string };

/** The match of a declared rule in the platform's form, `self` standing for `groupId` (unknown before the group exists). */
export function matchOf(rule: DeclaredRule, groupId: string): RuleMatch {
  const prefix = rule.remote_ip_prefix === undefined ? null : canonicalPrefix(rule.remote_ip_prefix, rule.ethertype);
  return {
    direction: rule.direction,
    ethertype: rule.ethertype,
    protocol: rule.protocol ?? null,
    port_range_min: rule.port_range_min ?? null,
    port_range_max: rule.port_range_max ?? rule.port_range_min ?? null,
    remote_ip_prefix: prefix === null ? null : 'prefix' in prefix ? prefix.prefix : (rule.remote_ip_prefix ?? null),
    remote_group_id: rule.remote_group_id === SELF ? groupId : (rule.remote_group_id ?? null),
  };
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

/** Whether a rule is one of the platform's default egress rules of a new group (any protocol to anywhere, IPv4 or IPv6). */
export function isDefaultEgress(rule: RuleMatch): boolean {
  return (
    rule.direction === 'egress' &&
    rule.protocol === null &&
    rule.port_range_min === null &&
    rule.port_range_max === null &&
    rule.remote_ip_prefix === null &&
    rule.remote_group_id === null
  );
}

/** How `rules` is applied (see the schema). */
export type RulesPolicy = 'keep_defaults' | 'authoritative' | 'merge';

/** The smallest set of rule changes that makes the live rules the declared set. */
export interface RulesDiff {
  /** Declared rules no live rule matches: each is one rule create. */
  add: RuleBody[];
  /** Live rules the declared set does not hold (and the policy removes): each is one rule delete. */
  remove: LiveRule[];
  /** Live rules that match a declared one. */
  kept: LiveRule[];
  /** Live rules left alone: the platform's default egress rules (keep_defaults), every unlisted rule (merge). */
  ignored: LiveRule[];
}

/**
 * Rules compare as a set: each declared rule is matched with one live rule of the same match
 * (and, when the block declares one, the same description); what is left on either side is a
 * create or a delete. The platform's default egress rules are left alone unless the policy is
 * `authoritative`; with `merge` no unlisted rule is removed. A declared rule whose remote group
 * is not known yet (a reference to a group apply creates) matches nothing: it is created. Pure.
 */
export function diffRules(live: readonly LiveRule[], declared: readonly DeclaredRule[], policy: RulesPolicy, groupId: string): RulesDiff {
  const kept: LiveRule[] = [];
  const add: RuleBody[] = [];
  for (const rule of declared) {
    const want = matchOf(rule, groupId);
    const found = live.find((l) => !kept.includes(l) && sameMatch(l, want) && (rule.description === undefined || (l.description ?? '') === rule.description));
    if (found !== undefined && want.remote_group_id !== KNOWN_AFTER_APPLY) kept.push(found);
    else add.push({ ...want, ...(rule.description === undefined ? {} : { description: rule.description }) });
  }
  const rest = live.filter((l) => !kept.includes(l));
  const leave = (l: LiveRule) => policy === 'merge' || (policy === 'keep_defaults' && isDefaultEgress(l));
  return { add, remove: rest.filter((l) => !leave(l)), kept, ignored: rest.filter(leave) };
}

/** A rule in one line, for plans and messages: `ingress IPv4 tcp 22 from 10.0.0.0/8`. */
export function describeRule(rule: RuleMatch & { description?: string | null | undefined }, groupId?: string): string {
  const ports =
    rule.port_range_min === null
      ? ''
      : rule.port_range_max === null || rule.port_range_max === rule.port_range_min
        ? ` ${rule.port_range_min}`
        : ` ${rule.port_range_min}-${rule.port_range_max}`;
  const remote =
    rule.remote_group_id !== null
      ? ` group ${rule.remote_group_id === groupId ? SELF : rule.remote_group_id}`
      : rule.remote_ip_prefix !== null
        ? ` ${rule.remote_ip_prefix}`
        : ' any';
  const note = rule.description ? ` (${rule.description})` : '';
  return `${rule.direction} ${rule.ethertype} ${rule.protocol ?? 'any'}${ports} ${rule.direction === 'ingress' ? 'from' : 'to'}${remote}${note}`;
}
