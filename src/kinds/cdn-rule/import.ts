import type { ProviderContext } from '../provider.js';
import { listAll, type AccountScope, type KindList } from '../kind-list.js';
import { defineImport } from '../kind-list.js';
import { knownOptions } from '../cdn-options.js';
import { ruleList, type CdnRule } from './list.js';
import { z } from 'zod';

/** A rule with the resource it belongs to. */
export interface ResourceRule {
  resource_id: number;
  rule: CdnRule;
}

const resourceIds = z.union([z.array(z.looseObject({ id: z.int() })), z.looseObject({ count: z.int().min(0), results: z.array(z.looseObject({ id: z.int() })) })]);

/** The account's CDN resources, only their ids (`GET /cdn/resources`), paged as the resource list is. */
const resourceIdList: KindList<AccountScope, { id: number }> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cdn/resources',
  async fetchPage(ctx, s, { limit, offset }) {
    const page = (await ctx.api.get(resourceIdList.path(s), { schema: resourceIds, query: { limit, offset }, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};

/**
 * Every rule of the account: the resource list, then one rule list per resource (each read to
 * its end), answered as one page.
 */
export const accountRuleList: KindList<AccountScope, ResourceRule> = {
  paging: { kind: 'none' },
  path: () => '/cdn/resources/{resource_id}/rules',
  async fetchPage(ctx) {
    const resources = await listAll(ctx, resourceIdList, {}, (r) => String(r.id));
    return {
      items: await rulesOf(
        ctx,
        resources.map((r) => r.id),
      ),
    };
  },
};

/** The rules of the resources with these ids only (an import of named resources), answered as one page. */
const namedResourcesRuleList = (ids: readonly string[]): KindList<AccountScope, ResourceRule> => ({
  paging: { kind: 'none' },
  path: () => '/cdn/resources/{resource_id}/rules',
  async fetchPage(ctx) {
    return { items: await rulesOf(ctx, ids.map(Number)) };
  },
});

/** Each rule of these resources (one rule list each, read to its end), with its resource. */
async function rulesOf(ctx: ProviderContext, resourceIds: readonly number[]): Promise<ResourceRule[]> {
  const items: ResourceRule[] = [];
  for (const resource_id of resourceIds) {
    for (const rule of await listAll(ctx, ruleList, { resource_id }, (r) => String(r.id))) items.push({ resource_id, rule });
  }
  return items;
}

/**
 * Importing CDN rules: every rule of every resource of the account, pinned by its id, with its
 * resource (a reference when that resource is imported too), pattern, type, weight, activity,
 * origin group, protocol override and the options the platform shows set. Named after the rule.
 */
export const ruleImport = defineImport('cdn_rule', {
  scope: 'account',
  list: accountRuleList,
  itemId: ({ rule }) => String(rule.id),
  attributes: ({ resource_id, rule }) => {
    const options = knownOptions('rule', rule.options);
    return {
      rule_id: rule.id,
      resource_id,
      name: rule.name,
      ...(rule.rule === undefined ? {} : { rule: rule.rule }),
      ...(rule.ruleType === 0 || rule.ruleType === 1 ? { rule_type: rule.ruleType as 0 | 1 } : {}),
      ...(rule.weight === null || rule.weight === undefined ? {} : { weight: rule.weight }),
      ...(rule.active === undefined ? {} : { active: rule.active }),
      origin_group: rule.originGroup ?? null,
      // The platform's value as it is: import writes it as data, and reading the stack back checks it against the kind's schema.
      override_origin_protocol: (rule.overrideOriginProtocol ?? null) as never,
      // The same for the rule's options.
      ...(Object.keys(options).length > 0 ? { options: options as never } : {}),
    };
  },
  blockName: ({ rule }) => rule.name,
  facts: ({ resource_id, rule }) => [
    ['resource', resource_id],
    ['name', rule.name],
  ],
  refersTo: { resource_id: 'cdn_resource', origin_group: 'cdn_origin_group' },
  within: { type: 'cdn_resource', list: namedResourcesRuleList },
});
