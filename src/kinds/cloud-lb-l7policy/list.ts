import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList } from '../cloud-owned.js';
import { listAll, type CloudScope, type KindList } from '../kind-list.js';
import type { ProviderContext } from '../provider.js';

/** The fields of a policy answer (L7PolicySerializer) edgeform reads; its rules come as ids only. */
export const policyAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  listener_id: z.string(),
  action: z.string(),
  position: z.int(),
  redirect_url: z.string().nullish(),
  redirect_prefix: z.string().nullish(),
  redirect_pool_id: z.string().nullish(),
  redirect_http_code: z.int().nullish(),
  rules: z.array(z.looseObject({ id: z.string() })).nullish(),
  tags: z.array(z.string()).nullish(),
  provisioning_status: z.string().nullish(),
  task_id: z.string().nullish(),
});

/** A policy as edgeform reads it. */
export type Policy = z.infer<typeof policyAnswer>;

/** The fields of a rule answer (L7RuleSerializer) edgeform reads. */
const ruleAnswer = z.looseObject({
  id: z.string(),
  type: z.string(),
  compare_type: z.string(),
  key: z.string().nullish(),
  value: z.string(),
  invert: z.boolean().nullish(),
});

/** A rule as edgeform reads it. */
export type Rule = z.infer<typeof ruleAnswer>;

const rulePage = z.looseObject({ count: z.int().min(0), results: z.array(ruleAnswer) });

/** Every L7 policy of a project and region (L7PolicyCollectionSerializer, `limit`/`offset`, 1,000 a page). */
export const policyList = cloudTaggedList((s) => apiPath`/cloud/v1/l7policies/${s.project_id}/${s.region_id}`, policyAnswer);

/** The rules of one policy (L7RuleCollectionSerializer): the policy list names them by id only. */
const ruleList: KindList<CloudScope & { policy_id: string }, Rule> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/cloud/v1/l7policies/${s.project_id}/${s.region_id}/${s.policy_id}/rules`,
  async fetchPage(ctx, s, { limit, offset }) {
    const body = (await ctx.api.get(ruleList.path(s), { schema: rulePage, query: { limit, offset }, signal: ctx.signal })).body;
    return { items: body.results, total: body.count };
  },
};

/** A policy's item path. */
export const policyPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/l7policies/${p}/${r}/${id}`;

/** A policy's rules path (POST a rule). */
export const rulesPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/l7policies/${p}/${r}/${id}/rules`;

/** A rule's item path (DELETE a rule). */
export const rulePath = (p: number, r: number, id: string | number, ruleId: string) => apiPath`/cloud/v1/l7policies/${p}/${r}/${id}/rules/${ruleId}`;

/** A rule's fields as plans compare them (its id kept, for removal). */
export function ruleFields(r: Rule) {
  return { id: r.id, type: r.type, compare_type: r.compare_type, ...(r.key == null || r.key === '' ? {} : { key: r.key }), value: r.value, invert: r.invert ?? false };
}

/** A rule as plans compare it. */
export type RuleFields = ReturnType<typeof ruleFields>;

/** The rules of a policy (none asked for when the policy lists none). */
export async function readRules(ctx: ProviderContext, scope: CloudScope, policy: Policy): Promise<RuleFields[]> {
  if ((policy.rules ?? []).length === 0) return [];
  return (await listAll(ctx, ruleList, { ...scope, policy_id: policy.id }, (r) => r.id)).map(ruleFields);
}

/** A policy's fields as plans and import compare them; `rules` those read (null: not read). */
export function policyFields(p: Policy, rules: RuleFields[] | null) {
  return {
    l7policy_id: p.id,
    listener_id: p.listener_id,
    name: p.name,
    action: p.action,
    position: p.position,
    redirect_url: p.redirect_url ?? null,
    redirect_prefix: p.redirect_prefix ?? null,
    redirect_pool_id: p.redirect_pool_id ?? null,
    redirect_http_code: p.redirect_http_code ?? null,
    tags: [...(p.tags ?? [])],
    rule_ids: (p.rules ?? []).map((r) => r.id),
    ...(rules === null ? {} : { rules }),
  };
}
