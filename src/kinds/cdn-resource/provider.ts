import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { deactivateBeforeDelete } from '../cdn-deactivate.js';
import { destroyedOriginGroups, groupDependency, usesCdn } from '../cdn-prune.js';
import { planDeclaredOptions } from '../cdn-options-plan.js';
import { createRecord, planResourcePurge, runPurgeFollowUp } from '../cdn-purge.js';
import { withPurgeRecord, type PurgeRecord } from '../cdn-purge-record.js';
import { originGroupFacts, originGroupProblem } from '../cdn-origin-groups.js';
import { createPlan, onlyMatch, withCreateFacts } from '../create.js';
import { diffDeclared } from '../declared-fields.js';
import { fetchListPage, listAll } from '../kind-list.js';
import { defineLifecycle } from '../lifecycle.js';
import { defineListReads } from '../list-read.js';
import type { GroupRead, MemberRead, Observation, OwnedResource, PlanProblem, ProviderContext, PruneListing, ResourceProvider, ResourceRef } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { readOrGone } from '../shared.js';
import type { FieldChange } from '../../plan/types.js';
import { certificateName, issueCertificate, listAutomatedCertificates, revokeCertificate } from './certificates.js';
import { resourceImport } from './import.js';
import { resourceAnswer, resourceList, type CdnResource } from './list.js';
import { cdnMarkSubject, stackMark, withMark } from './mark.js';
import { unprovenReason, type MarkVerdict, type OwnerSeal } from '../owner-seal.js';
import { resourceState } from './state.js';

const RESOURCES = resourceList.path({});
const resourcePath = (id: number | string) => apiPath`/cdn/resources/${id}`;

type Desired = ResourceAttributes['cdn_resource'];

/** Block fields compared as values, and the platform's name of each. */
const SCALARS = {
  origin_group: 'originGroup',
  origin_protocol: 'originProtocol',
  secondary_hostnames: 'secondaryHostnames',
  active: 'active',
  description: 'description',
  ssl_enabled: 'sslEnabled',
  ssl_data: 'sslData',
} as const;
const SCALAR_FIELDS = Object.keys(SCALARS) as Array<keyof typeof SCALARS>;

/** The block's declared scalar fields, normalized as the state is (secondary hostnames sorted: a set). */
function declaredScalars(desired: Desired): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of SCALAR_FIELDS) if (desired[field] !== undefined) out[field] = desired[field];
  if (desired.secondary_hostnames !== undefined) out.secondary_hostnames = [...desired.secondary_hostnames].sort();
  return out;
}

/** The stack mark a description carries or is given: the stack and, with a key, its owner mark. */
interface Mark {
  stack: string | null;
  mark?: string | undefined;
}

/**
 * A request body in the platform's names from block fields: the description carrying `mark`
 * when given a stack, and then the purge record (kept as the platform has it, or a create's first).
 */
function bodyOf(fields: Record<string, unknown>, mark: Mark, record: PurgeRecord = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'description') body.description = withPurgeRecord(withMark(value as string, mark.stack, mark.mark), record);
    else if (field in SCALARS) body[SCALARS[field as keyof typeof SCALARS]] = value;
    else body[field] = value;
  }
  return body;
}

/** A create's or update's request body, and what to do with the resource's Let's Encrypt certificate after it (ssl_automated). */
const payloadSchema = z.object({ body: z.record(z.string(), z.unknown()), letsencrypt: z.enum(['issue', 'revoke']).optional() });

/** The one resource with the block's cname (unique on the platform, but its answer is not trusted). */
function pickByCname(desired: Desired, resources: readonly CdnResource[]): { item: CdnResource; foundBy: string } | null {
  const identity = `cname ${JSON.stringify(desired.cname)}`;
  const item = onlyMatch(
    resources.filter((r) => r.cname === desired.cname),
    (r) => r.id,
    { type: 'cdn_resource', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cdn_resource', CdnResource>({
  readOne: (ctx, desired) =>
    readOrGone(async () => (await ctx.api.get(resourcePath(must(desired.resource_id, 'desired.resource_id')), { schema: resourceAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, resource) => ({ exists: true, state: resourceState(resource) }),
  hasId: (desired) => desired.resource_id !== undefined,
  async find(ctx, desired) {
    const named = await listAll(ctx, resourceList, { cname: desired.cname }, (r) => String(r.id));
    return pickByCname(desired, named);
  },
  findInList: { key: (desired) => desired.cname, itemKey: (resource) => resource.cname, pick: pickByCname },
  list: {
    group: () => 'resources',
    memberId: (desired) => String(desired.resource_id),
    itemId: (resource) => String(resource.id),
    paging: resourceList.paging,
    describe: () => `GET ${RESOURCES}`,
    fetchPage: (ctx, _members, page) => fetchListPage(ctx, resourceList, {}, page),
  },
});

/**
 * The CDN resources a stack owns without declaring them, for prune: those whose description ends
 * with the stack's mark (mark.ts; written by edgeform's create, never by hand), found in one list
 * of the account's resources (its pages), but none a block declares: by its `resource_id` or
 * `cname`, or found by a block's read (so a block whose cname is a reference keeps its resource).
 * A resource with no mark, another stack's, or one edited by hand is not the stack's. Run after
 * the reads for those ids; the list page the reads fetched is not fetched again (readOnce). As
 * the cloud kinds list only the places their blocks name, a stack without CDN blocks lists
 * nothing (and sends no CDN request).
 * Each is addressed `cdn_resource.CNAME`, which no block name can be (it has dots).
 */
/** The owner mark of a resource's description judged with the seal, for the stack its mark names (undefined unkeyed or without a stack mark). */
function judgeMark(state: Record<string, unknown>, seal: OwnerSeal | undefined): MarkVerdict | undefined {
  const stack = state.stack_mark as string | null;
  if (stack === null || seal?.keyed !== true) return undefined;
  return seal.judge(cdnMarkSubject(stack, state.cname as string), state.owner_mark as string | null);
}

/**
 * What the description mark of a declared resource asks of its plan (PlanOptions.ref, keyed):
 * the mark of this stack re-made with the current key (made with the previous one, or none), or
 * an error for one that does not verify; nothing for another stack's mark, or unkeyed.
 */
function markOfDeclared(state: Record<string, unknown>, ref: ResourceRef | undefined): { remark?: Mark & { note: string }; error?: PlanProblem } {
  if (ref?.stack == null || state.stack_mark !== ref.stack) return {};
  const verdict = judgeMark(state, ref.seal);
  if (verdict === 'previous' || verdict === 'missing') {
    const why = verdict === 'previous' ? 'it was made with EDGEFORM_OWNER_KEY_PREVIOUS' : 'it had none';
    return {
      remark: {
        stack: ref.stack,
        mark: must(ref.seal, 'ref.seal').mark(cdnMarkSubject(ref.stack, state.cname as string)),
        note: `the owner mark in the description's stack mark is re-made with EDGEFORM_OWNER_KEY (${why}); nothing else changes`,
      },
    };
  }
  if (verdict !== 'invalid') return {};
  return {
    error: {
      field: 'description',
      summary: `CDN resource ${String(state.resource_id)} carries this stack's mark ${stackMark(ref.stack)}, but its owner mark does not verify with EDGEFORM_OWNER_KEY: it was forged, copied from another resource, or made with another key; edgeform neither takes nor re-marks it`,
      detail:
        'If it was marked with the key before a rotation, set EDGEFORM_OWNER_KEY_PREVIOUS to that key (the mark is then re-made with the current one). Otherwise check who wrote its description, and remove the mark on the platform to have this stack mark it afresh.',
    },
  };
}

const pruneListing: PruneListing<'cdn_resource'> = {
  afterReads: true,
  async list(ctx, declared, stack) {
    const stackName = stack?.name ?? null;
    if (stack === undefined || stackName === null || !usesCdn(stack)) return [];
    const ids = new Set<number>();
    const cnames = new Set<string>();
    for (const d of declared) {
      if (typeof d.resource_id === 'number') ids.add(d.resource_id);
      cnames.add(d.cname);
    }
    for (const block of stack.read?.('cdn_resource') ?? []) if (block.observation?.exists === true) ids.add(block.observation.state.resource_id as number);
    const groups = destroyedOriginGroups(stack);
    const resources = await listAll(ctx, resourceList, {}, (r) => String(r.id));
    return resources.flatMap((resource): OwnedResource<'cdn_resource'>[] => {
      const state = resourceState(resource);
      if (state.stack_mark !== stackName || ids.has(resource.id) || cnames.has(resource.cname)) return [];
      const mark = judgeMark(state, ctx.seal);
      return [
        {
          stack: stackName,
          ...(mark === undefined ? {} : { mark }),
          ...(mark === 'missing' || mark === 'invalid' ? { unproven: unprovenReason(mark, 'in the description') } : {}),
          address: `cdn_resource.${resource.cname}`,
          place: 'account',
          desired: { resource_id: resource.id, cname: resource.cname, ensure: 'absent' } as Desired,
          observation: { exists: true, state },
          pruneReason: `no block declares it, and its description carries this stack's mark ${stackMark(stackName)} (prune: true); its rules go with it`,
          ...groupDependency(groups, resource.originGroup),
        },
      ];
    });
  },
};

/** Whether a block declares ssl_automated, and so its read lists the account's Let's Encrypt certificates. */
const declaresAutomated = (desired: Desired): boolean => desired.ssl_automated !== undefined;

/** An observation with `ssl_automated`: whether the certificate the resource serves is one of the account's Let's Encrypt ones. */
function withAutomated(observation: Observation, automated: ReadonlySet<number>): Observation {
  if (!observation.exists) return observation;
  const sslData = observation.state.ssl_data;
  return { ...observation, state: { ...observation.state, ssl_automated: typeof sslData === 'number' && automated.has(sslData) } };
}

const automatedIds = async (ctx: ProviderContext): Promise<Set<number>> => new Set((await listAutomatedCertificates(ctx)).map((c) => c.id));

/**
 * The reads with `ssl_automated` observed for the blocks that declare it: the account's Let's
 * Encrypt certificates are listed once per read (one paged `GET /cdn/sslData?automated=true`,
 * however many resources are read together), and only when a block declares ssl_automated.
 */
const read: ResourceProvider<'cdn_resource'>['read'] = async (ctx, desired, ref) => {
  const observation = await reads.read(ctx, desired, ref);
  return declaresAutomated(desired) && observation.exists ? withAutomated(observation, await automatedIds(ctx)) : observation;
};
const groupRead: GroupRead<'cdn_resource'> = {
  ...reads.groupRead,
  async read(ctx, members, refs) {
    const results = await reads.groupRead.read(ctx, members, refs);
    const wanting = members.map((m, i) => declaresAutomated(m) && must(results[i], 'results[i]').ok && (results[i] as { observation: Observation }).observation.exists);
    if (!wanting.includes(true)) return results;
    let automated: Set<number>;
    try {
      automated = await ctx.schedule(() => automatedIds(ctx));
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return results.map((r, i): MemberRead => (wanting[i] ? { ok: false, error } : r));
    }
    return results.map((r, i): MemberRead => (wanting[i] && r.ok ? { ok: true, observation: withAutomated(r.observation, automated) } : r));
  },
};

/** The plan's note of a Let's Encrypt issuance or revocation. */
function letsEncryptNote(action: 'issue' | 'revoke', cname: string): string {
  return action === 'issue'
    ? `issues a Let's Encrypt certificate for ${cname} ("${certificateName(cname)}", created unless the account has it) and waits until it is issued`
    : `revokes the Let's Encrypt certificate of ${cname} (HTTPS off)`;
}

/** Create (POST), update (PATCH of the fields that differ) and delete; no tasks. */
const lifecycle = defineLifecycle('cdn_resource', {
  updateVerbs: ['Updating', 'Updated'],
  create: { payload: payloadSchema, request: ({ payload }) => ({ method: 'POST', path: RESOURCES, body: payload.body }) },
  update: { payload: payloadSchema, request: ({ payload, id }) => ({ method: 'PATCH', path: resourcePath(id), body: payload.body }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: resourcePath(id) }) },
});

/**
 * CDN resources (synchronous API). A block names its `resource_id` (adopt) or only its `cname`
 * (unique on the platform); blocks found by cname are found in one read of the account's
 * resource list (its pages), one alone through the list's `cname` filter. Only declared fields
 * are compared and sent (`PATCH /cdn/resources/{id}`), and of `options` only the declared
 * options and, within each, the declared fields (src/kinds/cdn-options.ts). A create appends
 * the stack mark to the description (mark.ts); the plan compares the user's text without it.
 * A delete deactivates the resource first (the platform refuses to delete an active one).
 * With `prune: true`, a resource carrying the stack's mark that no block declares is destroyed
 * (see pruneListing).
 */
/** The reads, each resource to create with the account's origin groups when it names one by an id written out. */
const readsWithFacts = withCreateFacts({ read, groupRead }, (ctx, d) =>
  d.resource_id === undefined && d.ensure !== 'absent' ? originGroupFacts(ctx, d.origin_group) : Promise.resolve(undefined),
);

export const cdnResource: ResourceProvider<'cdn_resource'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cdn_resource',
  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: resourceImport,
  pruneListing,

  async apply(ctx, change) {
    if (change.action === 'delete' || change.action === 'replace') {
      const id = change.desired.resource_id ?? change.before?.resource_id;
      await deactivateBeforeDelete(ctx, typeof id === 'number' ? resourcePath(id) : null, change.before?.active);
    }
    const payload = change.action === 'create' || change.action === 'update' ? payloadSchema.safeParse(change.payload) : undefined;
    const letsencrypt = payload?.success ? payload.data.letsencrypt : undefined;
    if (letsencrypt === undefined) return lifecycle.apply(ctx, change);
    // The declared fields first (an update with only ssl_automated sends no PATCH of its own).
    if (change.action === 'create' || Object.keys(must(payload?.data, "the update payload's data").body).length > 0) {
      const sent = await lifecycle.apply(ctx, change);
      if (sent === 'unacknowledged') return sent;
    }
    const known = change.desired.resource_id ?? change.before?.resource_id;
    let id: number;
    if (typeof known === 'number') id = known;
    else {
      // A resource just created: found by its cname (the create's answer is not kept).
      const found = pickByCname(change.desired, await listAll(ctx, resourceList, { cname: change.desired.cname }, (r) => String(r.id)));
      if (found === null) return 'unacknowledged';
      id = found.item.id;
    }
    if (letsencrypt === 'revoke') {
      ctx.progress("revoking the Let's Encrypt certificate");
      await revokeCertificate(ctx, id);
    } else await issueCertificate(ctx, { id, cname: change.desired.cname, address: change.address });
    return undefined;
  },

  destroyNote: (state) => (state.active === false ? undefined : 'deactivates first'),

  // purge: when its `when` differs from the value recorded, after the apply's changes (cdn-purge.ts).
  followUp: { plan: planResourcePurge, run: runPurgeFollowUp },

  summarize: (state) => ({ resource_id: state.resource_id, cname: state.cname, active: state.active, status: state.status }),

  plan(desired, state, planOptions) {
    const owned = markOfDeclared(state, planOptions?.ref);
    if (owned.error) return { action: 'no-op', before: {}, after: {}, changes: [], errors: [owned.error], warnings: [], notes: [] };
    const want = declaredScalars(desired);
    const diff = diffDeclared(want, state, SCALAR_FIELDS);
    const changes: FieldChange[] = [...diff.changes];
    const before: Record<string, unknown> = { resource_id: state.resource_id, cname: state.cname };
    for (const field of SCALAR_FIELDS) if (want[field] !== undefined) before[field] = state[field] ?? null;
    const options = planDeclaredOptions(desired.options, state.options as Record<string, unknown>);
    changes.push(...options.changes);
    if (options.before !== undefined) before.options = options.before;
    // ssl_automated: issued or revoked after the PATCH of the other fields, which then leaves
    // sslEnabled to the attach or the revoke.
    let letsencrypt: 'issue' | 'revoke' | undefined;
    if (desired.ssl_automated !== undefined) {
      const live = state.ssl_automated === true;
      before.ssl_automated = live;
      if (live !== desired.ssl_automated) {
        letsencrypt = desired.ssl_automated ? 'issue' : 'revoke';
        changes.push({ path: ['ssl_automated'], op: 'update', before: live, after: desired.ssl_automated });
      }
    }
    const after: Record<string, unknown> = {
      ...before,
      ...want,
      ...(desired.ssl_automated === undefined ? {} : { ssl_automated: desired.ssl_automated }),
      ...(desired.options === undefined ? {} : { options: desired.options }),
    };
    const changed = Object.fromEntries(diff.changed.filter((field) => letsencrypt === undefined || field !== 'ssl_enabled').map((field) => [field, want[field]]));
    // A re-made owner mark sends the live text with the new mark (a changed description its new text).
    if (owned.remark && changed.description === undefined) changed.description = state.description;
    const live: Mark = { stack: (state.stack_mark as string | null) ?? null, mark: (state.owner_mark as string | null) ?? undefined };
    const sends = changes.length > 0 || owned.remark !== undefined;
    const notes = [...(letsencrypt ? [letsEncryptNote(letsencrypt, desired.cname)] : []), ...(owned.remark ? [owned.remark.note] : [])];
    return {
      action: sends ? 'update' : 'no-op',
      before,
      after,
      changes,
      ...(sends
        ? {
            payload: {
              body: { ...bodyOf(changed, owned.remark ?? live, (state.purge_record as PurgeRecord | undefined) ?? {}), ...options.body },
              ...(letsencrypt ? { letsencrypt } : {}),
            },
          }
        : {}),
      errors: [],
      warnings: [],
      notes,
    };
  },

  create: {
    plan(desired, ref, facts) {
      const fields: Record<string, unknown> = { cname: desired.cname, ...declaredScalars(desired) };
      if (desired.origin !== undefined) fields.origin = desired.origin;
      if (desired.options !== undefined) fields.options = desired.options;
      const errors: PlanProblem[] =
        desired.origin_group === undefined && desired.origin === undefined
          ? [
              {
                field: 'cname',
                summary: 'creating a cdn_resource needs origin_group or origin',
                detail: 'Add origin_group: ${cdn_origin_group.NAME.id} (or origin: host) to the block, or set resource_id to adopt a resource.',
              },
            ]
          : [];
      const group = originGroupProblem(desired.origin_group, facts);
      if (group !== null) errors.push(group);
      const mark = ref.stack === null ? undefined : ref.seal?.mark(cdnMarkSubject(ref.stack, desired.cname));
      const body = bodyOf({ ...fields, description: desired.description ?? '' }, { stack: ref.stack, mark }, createRecord(desired));
      const notes =
        ref.stack === null
          ? []
          : [
              `the description carries the stack mark [edgeform:${ref.stack}]${mark === undefined ? '' : ' with an owner mark (made with EDGEFORM_OWNER_KEY)'} (not shown as drift)`,
            ];
      if (desired.purge?.when !== undefined) {
        notes.push(`records purge when ${JSON.stringify(String(desired.purge.when))} in the description (a new resource has nothing cached: nothing is purged)`);
      }
      // A Let's Encrypt certificate is issued once the resource exists (ssl_automated: false on a new resource is what it has).
      if (desired.ssl_automated === true) {
        delete body.sslEnabled;
        notes.push(letsEncryptNote('issue', desired.cname));
      }
      const shown = desired.ssl_automated === undefined ? fields : { ...fields, ssl_automated: desired.ssl_automated };
      return createPlan(shown, 'resource_id', { body, ...(desired.ssl_automated === true ? { letsencrypt: 'issue' } : {}) }, { errors, notes });
    },
    identity: (desired) => (desired.resource_id === undefined ? `cname ${JSON.stringify(desired.cname)}` : null),
  },
};
