import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { planDeclaredOptions } from '../cdn-options-plan.js';
import { originGroupFacts, originGroupProblem } from '../cdn-origin-groups.js';
import { createPlan, onlyMatch, withCreateFacts } from '../create.js';
import { diffDeclared } from '../declared-fields.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import { deactivateBeforeDelete } from '../cdn-deactivate.js';
import { destroyedOriginGroups, groupDependency } from '../cdn-prune.js';
import { planRulePurge, readPurgeRecord, runPurgeFollowUp, withRulePurged } from '../cdn-purge.js';
import type { GroupRead, MemberRead, Observation, OwnedResource, PlanProblem, PruneListing, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import type { FieldChange } from '../../plan/types.js';
import { ruleImport } from './import.js';
import { ruleAnswer, ruleList, type CdnRule } from './list.js';
import { rulePatternProblem } from './schema.js';

const rulesPath = (resourceId: number | string) => apiPath`/cdn/resources/${resourceId}/rules`;
const rulePath = (resourceId: number | string, id: number | string) => apiPath`/cdn/resources/${resourceId}/rules/${id}`;

type Desired = ResourceAttributes['cdn_rule'];

/** Block fields compared as values, and the platform's name of each. */
const SCALARS = {
  name: 'name',
  rule: 'rule',
  rule_type: 'ruleType',
  weight: 'weight',
  active: 'active',
  origin_group: 'originGroup',
  override_origin_protocol: 'overrideOriginProtocol',
} as const;
const SCALAR_FIELDS = Object.keys(SCALARS) as Array<keyof typeof SCALARS>;

/** Whether the block's resource is known: a reference to a resource still to be created is not (its rules cannot exist yet). */
const resourceKnown = (desired: Desired): boolean => typeof desired.resource_id === 'number';

/** The state of a rule: what plans compare and references read. */
function ruleState(resourceId: number, rule: CdnRule): Record<string, unknown> {
  return {
    rule_id: rule.id,
    resource_id: resourceId,
    name: rule.name,
    rule: rule.rule ?? null,
    rule_type: rule.ruleType ?? null,
    weight: rule.weight ?? null,
    active: rule.active ?? null,
    origin_group: rule.originGroup ?? null,
    override_origin_protocol: rule.overrideOriginProtocol ?? null,
    options: rule.options ?? {},
  };
}

/** A request body in the platform's names from block fields. */
function bodyOf(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [field in SCALARS ? SCALARS[field as keyof typeof SCALARS] : field, value]));
}

const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()) });

/** The one rule of the block's name within its resource. */
function pickByName(desired: Desired, rules: readonly CdnRule[]): { item: CdnRule; foundBy: string } | null {
  const identity = `name ${JSON.stringify(desired.name)} in resource ${desired.resource_id}`;
  const item = onlyMatch(
    rules.filter((r) => r.name === desired.name),
    (r) => r.id,
    { type: 'cdn_rule', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cdn_rule', CdnRule>({
  readOne: (ctx, desired) =>
    resourceKnown(desired)
      ? readOrGone(async () => (await ctx.api.get(rulePath(desired.resource_id, must(desired.rule_id, 'desired.rule_id')), { schema: ruleAnswer, signal: ctx.signal })).body)
      : Promise.resolve(null),
  project: (_ctx, desired, rule) => ({ exists: true, state: ruleState(desired.resource_id, rule) }),
  hasId: (desired) => desired.rule_id !== undefined,
  async find(ctx, desired) {
    if (!resourceKnown(desired)) return null;
    const rules = await listAll(ctx, ruleList, { resource_id: desired.resource_id }, (r) => String(r.id));
    return pickByName(desired, rules);
  },
  findInList: {
    key: (desired) => desired.name,
    itemKey: (rule) => rule.name,
    pick: pickByName,
    list: {
      paging: ruleList.paging,
      canMatch: () => true,
      describe: ([desired]) => `GET ${ruleList.path({ resource_id: desired.resource_id })}`,
      fetchPage: (ctx, [desired], _refs, page) =>
        resourceKnown(desired) ? fetchListPage(ctx, ruleList, { resource_id: desired.resource_id }, page) : Promise.resolve({ items: [], total: 0 }),
    },
  },
  list: {
    group: (desired) => String(desired.resource_id),
    memberId: (desired) => String(desired.rule_id),
    itemId: (rule) => String(rule.id),
    paging: ruleList.paging,
    describe: ([desired]) => `GET ${ruleList.path({ resource_id: desired.resource_id })}`,
    fetchPage: (ctx, [desired], page) =>
      resourceKnown(desired) ? fetchListPage(ctx, ruleList, { resource_id: desired.resource_id }, page) : Promise.resolve({ items: [], total: 0 }),
  },
});

/** Whether a rule block's read also reads what its resource records of its purges (it declares purge.when). */
const wantsPurged = (desired: Desired): boolean => desired.purge?.when !== undefined && resourceKnown(desired);

/** The single read, with `purge_when` for a block that declares purge.when (one GET of its resource). */
const read: ResourceProvider<'cdn_rule'>['read'] = async (ctx, desired, ref) => {
  const observation = await reads.read(ctx, desired, ref);
  return wantsPurged(desired) && observation.exists ? withRulePurged(observation, await readPurgeRecord(ctx, desired.resource_id)) : observation;
};

/** The grouped read (one resource's rules), with `purge_when` for the blocks that declare purge.when: their resource read once. */
const groupRead: GroupRead<'cdn_rule'> = {
  ...reads.groupRead,
  async read(ctx, members, refs) {
    const results = await reads.groupRead.read(ctx, members, refs);
    const wanting = members.map((m, i) => wantsPurged(m) && must(results[i], 'results[i]').ok && (results[i] as { observation: Observation }).observation.exists);
    const at = wanting.indexOf(true);
    if (at === -1) return results;
    try {
      const record = await ctx.schedule(() => readPurgeRecord(ctx, must(members[at], 'members[at]').resource_id));
      return results.map((r, i): MemberRead => (wanting[i] && r.ok ? { ok: true, observation: withRulePurged(r.observation, record) } : r));
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return results.map((r, i): MemberRead => (wanting[i] ? { ok: false, error } : r));
    }
  },
};

/**
 * What a rule's create plan checks: the patterns of its resource's other rules (the platform keeps
 * them distinct), from the resource's rule list, which finding the block by name read already
 * (readOnce: no second request).
 */
const readsWithFacts = withCreateFacts({ read, groupRead }, async (ctx, d) => {
  if (d.rule_id !== undefined || d.ensure === 'absent') return undefined;
  const [patterns, groups] = await Promise.all([
    resourceKnown(d) && d.rule !== undefined
      ? listAll(ctx, ruleList, { resource_id: d.resource_id }, (r) => String(r.id)).then((rules) => rules.map((r) => ({ pattern: r.rule ?? null, name: r.name })))
      : undefined,
    originGroupFacts(ctx, d.origin_group),
  ]);
  return { ...(patterns === undefined ? {} : { rule_patterns: patterns }), ...groups };
});

/**
 * The rules a stack owns without declaring them, for prune: the rules of each CDN resource a
 * `cdn_resource` block of the stack declares (not `ensure: absent`, whose rules go with it), as
 * its read found it (by `resource_id` or `cname`; one still to be created has none, so nothing is
 * listed), one list of its rules each (the page its rule blocks' read fetched is not fetched
 * again: readOnce), but those a `cdn_rule` block declares: by `rule_id`, or found by a block's
 * read; and, for a block whose read failed (two rules of its name), every rule of its name in its
 * resource, or in any when its resource is a reference (so a failed read never makes its rule
 * look undeclared). Rules of resources the stack does not declare
 * are never listed. Each is addressed `cdn_rule.RESOURCE_ID/RULE_ID` (its platform path), which
 * no block name can be.
 */
const pruneListing: PruneListing<'cdn_rule'> = {
  afterReads: true,
  async list(ctx, declared, stack) {
    const stackName = stack?.name ?? null;
    if (stack?.read === undefined || stackName === null) return [];
    const taken = new Set<number>();
    for (const d of declared) if (typeof d.rule_id === 'number') taken.add(d.rule_id);
    const ruleBlocks = stack.read('cdn_rule');
    for (const block of ruleBlocks) if (block.observation?.exists === true) taken.add(block.observation.state.rule_id as number);
    // A block whose read failed (two rules of its name) may be any rule of its name in its resource.
    const unread = ruleBlocks.filter((block) => block.observation === undefined).map((block) => block.attributes);
    const named = (resourceId: number, name: string) => unread.some((d) => d.name === name && (!resourceKnown(d) || d.resource_id === resourceId));
    const resources = new Map<number, string>();
    for (const block of stack.read('cdn_resource')) {
      if (block.attributes.ensure === 'absent' || block.observation?.exists !== true) continue;
      const id = block.observation.state.resource_id as number;
      if (!resources.has(id)) resources.set(id, block.address);
    }
    const groups = destroyedOriginGroups(stack);
    const listed = await Promise.all(
      [...resources].map(async ([resourceId, address]) => {
        const rules = (await readOrGone(() => listAll(ctx, ruleList, { resource_id: resourceId }, (r) => String(r.id)))) ?? [];
        return rules.flatMap((rule): OwnedResource<'cdn_rule'>[] => {
          if (taken.has(rule.id) || named(resourceId, rule.name)) return [];
          return [
            {
              stack: stackName,
              address: `cdn_rule.${resourceId}/${rule.id}`,
              place: String(resourceId),
              desired: { rule_id: rule.id, resource_id: resourceId, name: rule.name, ensure: 'absent' } as Desired,
              observation: { exists: true, state: ruleState(resourceId, rule) },
              pruneReason: `no block declares it, and it is a rule (${JSON.stringify(rule.name)}) of ${address}, which this stack declares (prune: true)`,
              ...groupDependency(groups, rule.originGroup),
            },
          ];
        });
      }),
    );
    return listed.flat();
  },
};

/** Create (POST), update (PATCH of the fields that differ) and delete of a resource's rule; no tasks. */
const lifecycle = defineLifecycle('cdn_rule', {
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ desired, payload }) => ({ method: 'POST', path: rulesPath(desired.resource_id), body: payload.body }) },
  update: { payload: payloadSchema, request: ({ desired, payload, id }) => ({ method: 'PATCH', path: rulePath(desired.resource_id, id), body: payload.body }) },
  delete: { request: ({ desired, id }) => ({ method: 'DELETE', path: rulePath(desired.resource_id, id) }) },
});

/**
 * Rules of CDN resources (synchronous API). A rule belongs to the resource `resource_id` names
 * (usually a reference); a block names its `rule_id` (adopt) or its `name`, unique within the
 * resource. The rules of one resource are read with one list of that resource's rules (its
 * pages), whatever the number of blocks; a resource still to be created has no rules, so its
 * rules are known absent without a request. Only declared fields are compared and sent, and of
 * `options` only the declared options and fields (src/kinds/cdn-options.ts). An active rule is
 * deactivated before its delete, which the platform refuses otherwise. With `prune: true`, the
 * rules of a resource the stack declares that no block declares are destroyed (see pruneListing).
 */
export const cdnRule: ResourceProvider<'cdn_rule'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cdn_rule',
  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: ruleImport,
  pruneListing,

  async apply(ctx, change) {
    if (change.action === 'delete' || change.action === 'replace') {
      const id = change.desired.rule_id ?? change.before?.rule_id;
      await deactivateBeforeDelete(ctx, typeof id === 'number' ? rulePath(change.desired.resource_id, id) : null, change.before?.active);
    }
    return lifecycle.apply(ctx, change);
  },

  destroyNote: (state) => (state.active === false ? undefined : 'deactivates first'),

  // purge: within its pattern, when its `when` differs from the value its resource records for it (cdn-purge.ts).
  followUp: { plan: planRulePurge, run: runPurgeFollowUp },

  summarize: (state) => ({ rule_id: state.rule_id, resource_id: state.resource_id, name: state.name, active: state.active }),

  plan(desired, state) {
    const want: Record<string, unknown> = {};
    for (const field of SCALAR_FIELDS) if (desired[field] !== undefined) want[field] = desired[field];
    const diff = diffDeclared(want, state, SCALAR_FIELDS);
    const changes: FieldChange[] = [...diff.changes];
    const before: Record<string, unknown> = { rule_id: state.rule_id, resource_id: state.resource_id };
    for (const field of SCALAR_FIELDS) if (want[field] !== undefined) before[field] = state[field] ?? null;
    const options = planDeclaredOptions(desired.options, state.options as Record<string, unknown>);
    changes.push(...options.changes);
    if (options.before !== undefined) before.options = options.before;
    const after: Record<string, unknown> = { ...before, ...want, ...(desired.options === undefined ? {} : { options: desired.options }) };
    const changed = Object.fromEntries(diff.changed.map((field) => [field, want[field]]));
    // A pattern declared without rule_type meets the live type's rule (validate checked the rest).
    const problem = desired.rule !== undefined && desired.rule_type === undefined && state.rule_type === 0 ? rulePatternProblem(desired.rule, 0) : null;
    if (problem !== null) {
      return {
        action: 'no-op',
        before,
        after,
        changes: [],
        errors: [
          { field: 'rule', summary: `rule ${problem}`, detail: 'The rule has rule_type 0 on the platform: write the pattern from its leading "/", or declare rule_type: 1.' },
        ],
        warnings: [],
        notes: [],
      };
    }
    return {
      action: changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes,
      ...(changes.length > 0 ? { payload: { body: { ...bodyOf(changed), ...options.body } } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  },

  create: {
    plan(desired, _ref, facts) {
      const fields: Record<string, unknown> = {};
      for (const field of SCALAR_FIELDS) if (desired[field] !== undefined) fields[field] = desired[field];
      if (desired.options !== undefined) fields.options = desired.options;
      const missing = (['rule', 'rule_type'] as const).filter((f) => desired[f] === undefined);
      const errors: PlanProblem[] = missing.map((field) => ({
        field: 'name',
        summary: `creating a cdn_rule needs ${field}`,
        detail: 'Add it to the block, or set rule_id to adopt an existing rule.',
      }));
      const twin = (facts?.rule_patterns as Array<{ pattern: string | null; name: string }> | undefined)?.find((r) => r.pattern === desired.rule);
      if (twin)
        errors.push({
          field: 'rule',
          summary: `rule ${JSON.stringify(desired.rule)} is already the pattern of rule ${JSON.stringify(twin.name)} of resource ${desired.resource_id}`,
          detail: "A resource's rules have distinct patterns: change this one, or adopt that rule (rule_id, or its name). The platform would refuse the create; nothing was sent.",
        });
      const group = originGroupProblem(desired.origin_group, facts);
      if (group !== null) errors.push(group);
      return createPlan({ resource_id: desired.resource_id, ...fields }, 'rule_id', { body: bodyOf(fields) }, { errors });
    },
    identity: (desired) => (desired.rule_id === undefined ? `name ${JSON.stringify(desired.name)} in its resource` : null),
  },
};
