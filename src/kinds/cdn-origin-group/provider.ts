import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { createPlan, onlyMatch } from '../create.js';
import { diffDeclared } from '../declared-fields.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import { ENV_REFERENCE } from '../fields.js';
import type { ProviderPlan, ResourceProvider } from '../provider.js';
import { SENSITIVE, type SensitiveValue } from '../../plan/types.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import { originGroupImport } from './import.js';
import { originGroupAnswer, originGroupList, type OriginGroup } from './list.js';
import { groupState, type OriginState } from './state.js';

const GROUPS = originGroupList.path({});
const groupPath = (id: number | string) => apiPath`/cdn/origin_groups/${id}`;

type Desired = ResourceAttributes['cdn_origin_group'];

/** The declared fields, as compared and sent (`proxy_next_upstream` sorted: a set). */
const FIELDS = ['name', 'origins', 'use_next', 'proxy_next_upstream'] as const;

type DesiredOrigin = NonNullable<Desired['origins']>[number];

/** An origin as plans compare it (see OriginState): an S3 origin's keys `(sensitive)`, as the state has them: write-only. */
function comparable(o: DesiredOrigin): OriginState {
  const flags = { backup: o.backup, enabled: o.enabled };
  if (o.s3 === undefined) return { source: must(o.source, 'o.source'), ...flags };
  const { type, bucket_name, region, storage_hostname } = o.s3;
  const s3 = { type, bucket_name, ...(region === undefined ? {} : { region }), ...(storage_hostname === undefined ? {} : { storage_hostname }) };
  return { s3: { ...s3, access_key_id: SENSITIVE, secret_access_key: SENSITIVE }, ...flags };
}

/** The block's declared fields, normalized as the state is (origins with their defaults, S3 keys left out, the set sorted). */
function declared(desired: Desired): Record<string, unknown> {
  const out: Record<string, unknown> = { name: desired.name };
  if (desired.origins !== undefined) out.origins = desired.origins.map(comparable);
  if (desired.use_next !== undefined) out.use_next = desired.use_next;
  if (desired.proxy_next_upstream !== undefined) out.proxy_next_upstream = [...desired.proxy_next_upstream].sort();
  return out;
}

/**
 * The request payload of a create or an update (ChangeOriginGroup, None Auth: S3 origins go in
 * `sources` with `origin_type` and `config`, the vendor's current form; the deprecated group-wide
 * `auth` is never sent). `origins` are the block's, when sent: the whole list, each S3 origin
 * with both keys (the vendor's S3Config requires them), as their `${env:NAME}` references, which
 * apply replaces with the variables' values (`sensitive`).
 */
function payloadOf(fields: Record<string, unknown>, origins: readonly DesiredOrigin[] | undefined): Pick<ProviderPlan, 'payload' | 'sensitive'> {
  const { origins: _compared, ...rest } = fields;
  const sensitive: SensitiveValue[] = [];
  const sources = origins?.map((o, i) => {
    const flags = { backup: o.backup, enabled: o.enabled };
    if (o.s3 === undefined) return { source: must(o.source, 'o.source'), ...flags };
    const keys = { s3_access_key_id: o.s3.access_key_id, s3_secret_access_key: o.s3.secret_access_key };
    for (const [field, reference] of Object.entries(keys)) sensitive.push({ path: ['body', 'sources', i, 'config', field], env: envName(reference) });
    const config = {
      s3_type: o.s3.type,
      s3_bucket_name: o.s3.bucket_name,
      ...(o.s3.region === undefined ? {} : { s3_region: o.s3.region }),
      ...(o.s3.storage_hostname === undefined ? {} : { s3_storage_hostname: o.s3.storage_hostname }),
      ...keys,
    };
    return { origin_type: 's3' as const, config, ...flags };
  });
  return { payload: { body: { ...rest, ...(sources === undefined ? {} : { sources }) } }, ...(sensitive.length > 0 ? { sensitive } : {}) };
}

/** The variable a sensitive field's `${env:NAME}` reference names (the loader keeps nothing else there). */
function envName(reference: string): string {
  const name = ENV_REFERENCE.exec(reference)?.[1];
  if (name === undefined) throw new Error(`a sensitive field holds no \${env:NAME} reference (this is a bug)`);
  return name;
}

const s3Config = z.strictObject({
  s3_type: z.enum(['amazon', 'other']),
  s3_bucket_name: z.string(),
  s3_region: z.string().optional(),
  s3_storage_hostname: z.string().optional(),
  s3_access_key_id: z.string().regex(ENV_REFERENCE),
  s3_secret_access_key: z.string().regex(ENV_REFERENCE),
});

const payloadSchema = z.object({
  body: z.strictObject({
    name: z.string(),
    sources: z
      .array(
        z.union([
          z.strictObject({ source: z.string(), backup: z.boolean(), enabled: z.boolean() }),
          z.strictObject({ origin_type: z.literal('s3'), config: s3Config, backup: z.boolean(), enabled: z.boolean() }),
        ]),
      )
      .optional(),
    use_next: z.boolean().optional(),
    proxy_next_upstream: z.array(z.string()).optional(),
  }),
});

/** The one group with the block's name; two are the ambiguous-identity error naming both. */
function pickByName(desired: Desired, groups: readonly OriginGroup[]): { item: OriginGroup; foundBy: string } | null {
  const identity = `name ${JSON.stringify(desired.name)}`;
  const item = onlyMatch(
    groups.filter((g) => g.name === desired.name),
    (g) => g.id,
    { type: 'cdn_origin_group', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cdn_origin_group', OriginGroup>({
  readOne: (ctx, desired) =>
    readOrGone(async () => (await ctx.api.get(groupPath(must(desired.origin_group_id, 'desired.origin_group_id')), { schema: originGroupAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, group) => ({ exists: true, state: groupState(group) }),
  hasId: (desired) => desired.origin_group_id !== undefined,
  async find(ctx, desired) {
    const named = await listAll(ctx, originGroupList, { name: desired.name }, (g) => String(g.id));
    return pickByName(desired, named);
  },
  findInList: { key: (desired) => desired.name, itemKey: (group) => group.name, pick: pickByName },
  list: {
    group: () => 'origin_groups',
    memberId: (desired) => String(desired.origin_group_id),
    itemId: (group) => String(group.id),
    paging: originGroupList.paging,
    describe: () => `GET ${GROUPS}`,
    fetchPage: (ctx, _members, page) => fetchListPage(ctx, originGroupList, {}, page),
  },
});

/** Create (POST), update (PATCH with the name and the fields that differ: harmless to repeat) and delete; no tasks. */
const lifecycle = defineLifecycle('cdn_origin_group', {
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: GROUPS, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: groupPath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: groupPath(id) }) },
});

/**
 * CDN origin groups (synchronous API). A block names its `origin_group_id` (adopt) or only its
 * `name`; the blocks found by name are found in one read of the account's group list (its
 * pages), one alone through the list's `name` filter (only the exact name counts). Every field
 * changes in place (`PATCH /cdn/origin_groups/{id}`, which always carries the name: the
 * vendor's None-auth body requires it). The platform refuses to delete a group a resource or a
 * rule uses; references order deletes so that those go first.
 */
export const cdnOriginGroup: ResourceProvider<'cdn_origin_group'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cdn_origin_group',
  read: reads.read,
  groupRead: reads.groupRead,
  import: originGroupImport,

  summarize: (state) => ({ origin_group_id: state.origin_group_id, name: state.name }),

  plan(desired, state, options) {
    const want = declared(desired);
    const diff = diffDeclared(want, state, FIELDS);
    const before: Record<string, unknown> = { origin_group_id: state.origin_group_id };
    for (const field of FIELDS) if (want[field] !== undefined) before[field] = state[field] ?? null;
    const changed: Record<string, unknown> = Object.fromEntries(diff.changed.map((field) => [field, want[field]]));
    // The keys are never compared: --resend-sensitive sends the origins (with the keys) anyway.
    const resend = options?.resendSensitive === true && desired.origins?.some((o) => o.s3 !== undefined) === true;
    if (resend) changed.origins = want.origins;
    const update = diff.changes.length > 0 || resend;
    return {
      action: update ? 'update' : 'no-op',
      before,
      after: { ...before, ...want },
      changes: diff.changes,
      ...(update ? payloadOf({ name: desired.name, ...changed }, 'origins' in changed ? desired.origins : undefined) : {}),
      errors: [],
      warnings: [],
      notes: resend ? ['origins are sent again with the S3 keys the environment holds now (--resend-sensitive)'] : [],
    };
  },

  create: {
    plan(desired) {
      const want = declared(desired);
      const errors =
        desired.origins === undefined
          ? [
              {
                field: 'name',
                summary: 'creating a cdn_origin_group needs origins (at least one source)',
                detail: 'Add origins: [{ source: example.com }] to the block, or set origin_group_id to adopt a group.',
              },
            ]
          : [];
      const { payload, sensitive } = payloadOf(want, desired.origins);
      return createPlan(want, 'origin_group_id', must(payload, 'payload'), { errors, ...(sensitive ? { sensitive } : {}) });
    },
    identity: (desired) => (desired.origin_group_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
  },
};
