import { defineImport, type CloudScope, type KindList } from '../kind-list.js';
import { policyFields, policyList, readRules, type Policy, type RuleFields } from './list.js';

/** A policy with the rules its rule list answered. */
type Detailed = Policy & { read_rules: RuleFields[] };

/** The policies of a place with their rules (the policy list names rules by id only: one rule list a policy that has any). */
const detailedList: KindList<CloudScope, Detailed> = {
  paging: policyList.paging,
  path: policyList.path,
  async fetchPage(ctx, s, page) {
    const got = await policyList.fetchPage(ctx, s, page);
    const items = await Promise.all(got.items.map(async (p) => ({ ...p, read_rules: await readRules(ctx, s, p) })));
    return { ...got, items };
  },
};

/**
 * Importing L7 policies: those of a project and region, each pinned by its id, with its listener
 * (written `${cloud_lb_listener.NAME.id}` when imported with it), action, redirect (a pool as
 * `${cloud_lb_pool.NAME.id}`), position, tags and rules. Imported with the balancers
 * (`import cloud_load_balancer` brings them).
 */
export const policyImport = defineImport('cloud_lb_l7policy', {
  scope: 'cloud',
  quotaUsage: ['loadbalancer_count_usage'],
  list: detailedList,
  itemId: (p) => p.id,
  attributes: (p, s) => {
    const f = policyFields(p, p.read_rules);
    const redirects = (['redirect_url', 'redirect_prefix', 'redirect_pool_id', 'redirect_http_code'] as const).filter((k) => f[k] !== null);
    return {
      project_id: s.project_id,
      region_id: s.region_id,
      l7policy_id: f.l7policy_id,
      listener_id: f.listener_id,
      name: f.name,
      action: f.action as 'REJECT',
      position: f.position,
      ...Object.fromEntries(redirects.map((k) => [k, f[k]])),
      ...(f.tags.length === 0 ? {} : { tags: f.tags }),
      rules: (f.rules ?? []).map(({ id: _id, ...r }) => ({ ...r, type: r.type as 'PATH', compare_type: r.compare_type as 'EQUAL_TO' })),
    };
  },
  blockName: (p) => p.name,
  facts: (p) => [
    ['name', p.name],
    ['action', p.action],
  ],
  refersTo: { listener_id: 'cloud_lb_listener', redirect_pool_id: 'cloud_lb_pool' },
});
