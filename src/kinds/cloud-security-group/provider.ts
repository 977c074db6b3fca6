import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { StoppedError } from '../../errors.js';
import type { FieldChange } from '../../plan/types.js';
import { defineOwnedCloud, patchHolds, tagsPatchPayload } from '../cloud-owned.js';
import { withCreateFacts } from '../create.js';
import { listAll } from '../kind-list.js';
import { isWrittenOut, knownIn, notAmong } from '../refusals.js';
import { cloudTaskScope, defineLifecycle, type ChangeRequest, type TaskCheck } from '../lifecycle.js';
import type { ApplyResult, Observation, ProviderContext, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { securityGroupImport } from './import.js';
import { securityGroupAnswer, securityGroupList, type SecurityGroup } from './list.js';
import { SELF, describeRule, diffRules, matchOf, sameMatch, type DeclaredRule, type LiveRule, type RuleBody, type RulesPolicy } from './rules.js';

type Desired = ResourceAttributes['cloud_security_group'];

const groupPath = (p: number, r: number, id: string) => apiPath`/cloud/v1/securitygroups/${p}/${r}/${id}`;
const v2Path = (p: number, r: number) => apiPath`/cloud/v2/security_groups/${p}/${r}`;
const v2GroupPath = (p: number, r: number, id: string) => apiPath`/cloud/v2/security_groups/${p}/${r}/${id}`;

const ruleBody = z.object({
  direction: z.enum(['ingress', 'egress']),
  ethertype: z.enum(['IPv4', 'IPv6']),
  protocol: z.string().nullable(),
  port_range_min: z.int().nullable(),
  port_range_max: z.int().nullable(),
  remote_ip_prefix: z.string().nullable(),
  remote_group_id: z.string().nullable(),
  description: z.string().optional(),
});

/** An update: the v2 PATCH of name, description and tags (absent: none), then one rule delete per id and one rule create per rule. */
const payloadSchema = z.object({
  patch: z.object({ name: z.string().optional(), description: z.string().optional(), tags: tagsPatchPayload.optional() }).optional(),
  remove: z.array(z.string()),
  add: z.array(ruleBody),
});
type Payload = z.infer<typeof payloadSchema>;

/** A create: the v2 create body (its rules without those naming the group itself), and the rules that are set once the group exists. */
const createPayloadSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  rules: z.array(ruleBody),
  tags: z.record(z.string(), z.string()),
  after_create: z.array(ruleBody.extend({ remote_group_id: z.string().nullable() })),
  policy: z.enum(['keep_defaults', 'authoritative', 'merge']),
});

const get = async (ctx: ProviderContext, d: Desired, id: string) =>
  (await ctx.api.get(groupPath(d.project_id, d.region_id, id), { schema: securityGroupAnswer, signal: ctx.signal })).body;

/** The rules of an answer, as the diff reads them. */
function liveRules(g: SecurityGroup): LiveRule[] {
  return g.security_group_rules.map((r) => ({
    id: r.id,
    direction: r.direction,
    ethertype: r.ethertype ?? 'IPv4',
    protocol: r.protocol,
    port_range_min: r.port_range_min,
    port_range_max: r.port_range_max,
    remote_ip_prefix: r.remote_ip_prefix,
    remote_group_id: r.remote_group_id,
    description: r.description,
  }));
}

/** The projection of a group answer into an Observation (single read, list page, identity or prune listing). The group shows no lock. */
function observe(g: SecurityGroup): Observation & { exists: true } {
  return {
    exists: true,
    state: {
      security_group_id: g.id,
      name: g.name,
      description: g.description ?? null,
      tags: g.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
      rules: liveRules(g),
    },
  };
}

const owned = defineOwnedCloud<'cloud_security_group', SecurityGroup>({
  type: 'cloud_security_group',
  noun: 'security group',
  list: securityGroupList,
  get,
  observe,
});

/** The rules a block declares (the schema's output, `ethertype` defaulted). */
const declaredRules = (d: Desired): DeclaredRule[] => d.rules ?? [];

/** The rule changes a diff makes, each rule one line (`rules.<line>`). */
function ruleChanges(diff: ReturnType<typeof diffRules>, groupId: string): FieldChange[] {
  return [
    ...diff.remove.map((r): FieldChange => ({ path: ['rules', describeRule(r, groupId)], op: 'remove', before: describeRule(r, groupId) })),
    ...diff.add.map((r): FieldChange => ({ path: ['rules', describeRule(r, groupId)], op: 'add', after: describeRule(r, groupId) })),
  ];
}

/** The rule lines a state shows (every live rule), sorted: `before` and `after` compare as sets. */
const ruleLines = (rules: readonly (LiveRule | RuleBody)[], groupId: string) => rules.map((r) => describeRule({ description: null, ...r }, groupId)).sort();

/**
 * Sends one task-starting request per rule change, in order (deletes first, so a rule changed in
 * place is never there twice), each recovered by re-reading the group; an interrupt stops between
 * rules.
 */
async function sendRuleChanges(
  ctx: ProviderContext,
  d: Desired,
  id: string,
  remove: readonly string[],
  add: readonly RuleBody[],
  send: (request: ChangeRequest, check: TaskCheck<SecurityGroup>) => Promise<ApplyResult>,
): Promise<void> {
  const reread = () => owned.readOrGone(ctx, d, id);
  const rulesPath = (ruleId?: string) =>
    ruleId === undefined
      ? apiPath`/cloud/v2/security_groups/${d.project_id}/${d.region_id}/${id}/rules`
      : apiPath`/cloud/v2/security_groups/${d.project_id}/${d.region_id}/${id}/rules/${ruleId}`;
  let steps = 0;
  const step = () => {
    if (steps++ > 0 && ctx.stopping?.aborted)
      throw new StoppedError(`stopped after ${steps - 1} of ${remove.length + add.length} rule changes because of the interrupt. Run apply again to continue.`);
  };
  for (const ruleId of remove) {
    step();
    await send({ method: 'DELETE', path: rulesPath(ruleId) }, { resend: true, reread, done: (g) => g === null || !g.security_group_rules.some((r) => r.id === ruleId) });
  }
  for (const rule of add) {
    step();
    const body = Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== null));
    // The platform refuses the same rule twice (409), so a create sent again after a lost answer cannot make two.
    await send({ method: 'POST', path: rulesPath(), body }, { resend: true, reread, done: (g) => g !== null && liveRules(g).some((l) => sameMatch(l, rule)) });
  }
}

const lifecycle = defineLifecycle('cloud_security_group', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: () => null },
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload: { name, description, rules, tags } }) => ({
      method: 'POST',
      path: v2Path(d.project_id, d.region_id),
      body: { name, ...(description === undefined ? {} : { description }), rules: rules.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null))), tags },
    }),
    tasks: {
      type: 'create_security_group',
      reread: (ctx, { change, desired, payload: { tags } }) =>
        owned.findOwned(ctx, desired, { address: tags['edgeform-address'] ?? change.address, stack: tags['edgeform-stack'] ?? null }),
      done: (g) => g !== null,
    },
    created: { key: 'security_groups', noun: 'security group' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'update_security_group',
    async run(ctx, { desired: d, payload, id }, send) {
      const groupId = String(id);
      if (payload.patch !== undefined) {
        const patch = payload.patch;
        await send(
          { method: 'PATCH', path: v2GroupPath(d.project_id, d.region_id, groupId), body: patch },
          {
            resend: true,
            reread: () => owned.readOrGone(ctx, d, groupId),
            done: (g) =>
              g !== null &&
              (patch.name === undefined || g.name === patch.name) &&
              (patch.description === undefined || g.description === patch.description) &&
              (patch.tags === undefined || patchHolds(g.tags, patch.tags)),
          },
        );
      }
      await sendRuleChanges(ctx, d, groupId, payload.remove, payload.add, send);
    },
  },
  delete: {
    // The platform deletes a group synchronously (204); one an instance uses is refused (409) with the instances named.
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: groupPath(d.project_id, d.region_id, String(id)) }),
  },
});

/** The diff of a block against a live group (see the provider's comment). */
function planGroup(d: Desired, state: Record<string, unknown>): ProviderPlan {
  const groupId = state.security_group_id as string;
  const live = state.rules as LiveRule[];
  const liveTags = state.tags as LiveTag[];
  const before: Record<string, unknown> = {
    security_group_id: groupId,
    name: state.name,
    description: state.description,
    rules: ruleLines(live, groupId),
    tags: userTags(liveTags),
  };
  const after: Record<string, unknown> = { ...before };
  const changes: FieldChange[] = [];
  const patch: NonNullable<Payload['patch']> = {};
  if (d.name !== undefined && d.name !== state.name) {
    changes.push({ path: ['name'], op: 'update', before: state.name, after: d.name });
    patch.name = after.name = d.name;
  }
  if (d.description !== undefined && d.description !== (state.description ?? '')) {
    changes.push({ path: ['description'], op: state.description === null ? 'add' : 'update', before: state.description, after: d.description });
    patch.description = after.description = d.description;
  }
  const tags = owned.planTags(d, liveTags);
  changes.push(...tags.changes);
  if (tags.patch !== undefined) patch.tags = tags.patch;
  if (tags.after !== undefined) after.tags = tags.after;
  let remove: string[] = [];
  let add: RuleBody[] = [];
  const notes = [...tags.notes];
  if (d.rules !== undefined) {
    const diff = diffRules(live, declaredRules(d), d.rules_policy as RulesPolicy, groupId);
    remove = diff.remove.map((r) => r.id);
    add = diff.add;
    changes.push(...ruleChanges(diff, groupId));
    after.rules = ruleLines([...diff.kept, ...diff.ignored, ...diff.add], groupId);
    if (diff.ignored.length > 0 && d.rules_policy === 'keep_defaults')
      notes.push(`the platform's default egress rules are kept (rules_policy: keep_defaults): ${diff.ignored.map((r) => describeRule(r)).join('; ')}`);
  }
  const changed = changes.length > 0;
  return {
    action: changed ? 'update' : 'no-op',
    before,
    after,
    changes,
    unchanged_elements: { tags: tags.unchanged },
    payload: changed ? { ...(Object.keys(patch).length > 0 ? { patch } : {}), remove, add } : undefined,
    errors: tags.errors,
    warnings: [],
    notes,
  };
}

/**
 * What a group's create plan checks: the place's security groups, when a rule names another group
 * by an id written out (one list a place, shared by the blocks).
 */
const readsWithFacts = withCreateFacts(owned, async (ctx, d) =>
  d.security_group_id === undefined && d.ensure !== 'absent' && (d.rules ?? []).some((r) => r.remote_group_id !== SELF && isWrittenOut(r.remote_group_id))
    ? { security_groups: (await listAll(ctx, securityGroupList, { project_id: d.project_id, region_id: d.region_id }, (g) => g.id)).map((g) => ({ key: g.id, label: g.name })) }
    : undefined,
);

/**
 * Cloud security groups: edgeform creates them (v2 POST with the declared rules, a task), renames
 * them, changes their description and tags (v2 PATCH, a task; the tags a JSON Merge Patch), and
 * changes their rules by the smallest set of rule deletes and creates (v2, a task each: rules
 * compare as a set, see rules.ts), and deletes them (v1 DELETE, synchronous; the platform refuses
 * a group an instance uses, naming the instances). The platform gives a new group default egress
 * rules (any protocol, IPv4 and IPv6) when its create names no egress rule: they are neither
 * drift nor deleted unless `rules_policy: authoritative`.
 *
 * A rule's `remote_group_id: self` is the group itself. The group's id is not known before it is
 * created, so a create sends its other rules with the POST and, once the create task finished,
 * creates the `self` rules (and, with `rules_policy: authoritative`, deletes the default egress
 * rules the platform added) by rule creates and deletes, as an update would.
 *
 * A block without `security_group_id` is found by its ownership tags (cloud-owned.ts): the groups
 * of one project and region with one list read.
 */
export const cloudSecurityGroup: ResourceProvider<'cloud_security_group'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_security_group',

  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: securityGroupImport,

  async apply(ctx, change) {
    const result = await lifecycle.apply(ctx, change);
    if (change.action !== 'create' && change.action !== 'replace') return result;
    const payload = createPayloadSchema.safeParse(change.payload);
    if (!payload.success || (payload.data.after_create.length === 0 && payload.data.policy !== 'authoritative')) return result;
    // The follow-up rule changes of a create (see the provider's comment): against the group as created.
    const d = change.desired;
    const ref = { address: payload.data.tags['edgeform-address'] ?? change.address, stack: payload.data.tags['edgeform-stack'] ?? null };
    const group = d.security_group_id === undefined ? await owned.findOwned(ctx, d, ref) : await owned.readOrGone(ctx, d, d.security_group_id);
    if (group === null) return 'unacknowledged';
    const diff = diffRules(liveRules(group), declaredRules(d), d.rules_policy as RulesPolicy, group.id);
    if (diff.add.length === 0 && diff.remove.length === 0) return result;
    const followUp: Payload = { remove: diff.remove.map((r) => r.id), add: diff.add };
    ctx.progress(`${followUp.add.length} rule create(s) and ${followUp.remove.length} rule delete(s) once the group exists`);
    await lifecycle.apply(ctx, { ...change, action: 'update', before: { ...change.before, security_group_id: group.id }, payload: followUp });
    return result;
  },

  create: {
    plan(d, ref, facts) {
      const rules = declaredRules(d);
      const now = rules.filter((r) => r.remote_group_id !== SELF);
      const later = rules.filter((r) => r.remote_group_id === SELF);
      const body = {
        name: d.name ?? '',
        ...(d.description === undefined ? {} : { description: d.description }),
        rules: now.map((r) => ({ ...matchOf(r, ''), ...(r.description === undefined ? {} : { description: r.description }) })),
        after_create: later.map((r) => ({ ...matchOf(r, SELF), ...(r.description === undefined ? {} : { description: r.description }) })),
        policy: d.rules_policy,
      };
      const declared = {
        name: d.name,
        description: d.description,
        ...(d.rules === undefined ? {} : { rules: rules.map((r) => describeRule({ ...matchOf(r, SELF), description: r.description ?? null }, SELF)).sort() }),
      };
      const plan = owned.createPlan(d, ref, declared, body);
      const notes = [...plan.notes];
      if (later.length > 0) notes.push(`the rules naming the group itself (remote_group_id: self) are created once the group exists: ${later.length}`);
      if (d.rules_policy === 'authoritative' && !rules.some((r) => r.direction === 'egress'))
        notes.push("the platform's default egress rules the create adds are deleted once the group exists (rules_policy: authoritative)");
      const groups = knownIn(facts, 'security_groups');
      const unknown = groups
        ? (d.rules ?? []).flatMap((r, i) => {
            const problem =
              r.remote_group_id === SELF
                ? null
                : notAmong(r.remote_group_id, groups, {
                    field: 'rules',
                    path: `rules[${i}].remote_group_id`,
                    noun: 'security group',
                    where: `in project ${d.project_id}, region ${d.region_id}`,
                  });
            return problem === null ? [] : [problem];
          })
        : [];
      return { ...plan, notes, errors: [...plan.errors, ...unknown] };
    },
    identity: owned.create.identity,
  },

  ownership: owned.ownership((d, state) => planGroup(d, state)),

  summarize: (state) => ({
    security_group_id: state.security_group_id,
    name: state.name,
    description: state.description,
    rules: ruleLines(state.rules as LiveRule[], state.security_group_id as string),
    tags: userTags(state.tags as LiveTag[]),
  }),

  plan: planGroup,
};
