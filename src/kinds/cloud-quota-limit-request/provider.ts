import { must } from '../../errors.js';
import { apiPath } from '../../api/path.js';
import { z } from 'zod';
import { canonicalJson } from '../../model/fingerprint.js';
import type { FieldChange } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { defineListReads } from '../list-read.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { fetchListPage, listAll, listEndpointOf } from '../kind-list.js';
import { requestImport } from './import.js';
import { normalizeLimits, requestAnswer, requestList, type Request } from './list.js';
import { requestedLimits } from './schema.js';

type Desired = ResourceAttributes['cloud_quota_limit_request'];

const REQUESTS = requestList.path({});

/** Request ids named at most in one list request (`request_ids`), so its URL stays short. */
export const QUOTA_REQUEST_IDS_PER_LIST = 100;

/** What a create (and the create half of a replace) sends: the POST body (LimitsRequestCreateSerializer). */
const createPayloadSchema = z.object({ description: z.string().min(1).max(1000), requested_limits: requestedLimits });

const requestPath = (id: number | string) => apiPath`/cloud/v2/limits_request/${id}`;

/** How a block without an id is found again, as plans show it. */
const describeKey = (description: string) => `description ${JSON.stringify(description)}`;

/** Every quota request of the account, page after page (the list cannot filter by description). */
function listRequests(ctx: ProviderContext): Promise<Request[]> {
  return listAll(ctx, requestList, {}, (r) => String(r.id));
}

/** The one request among `requests` with the block's description; more than one is an error naming them. */
function pickByDescription(d: Desired, requests: readonly Request[]): { item: Request; foundBy: string } | null {
  const description = must(d.description, 'd.description');
  const identity = describeKey(description);
  const item = onlyMatch(
    requests.filter((r) => r.description === description),
    (r) => r.id,
    { type: 'cloud_quota_limit_request', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'cloud_quota_limit_request', Request>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(requestPath(must(d.request_id, 'd.request_id')), { schema: requestAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, r) => ({
    exists: true,
    state: { request_id: r.id, status: r.status, description: r.description ?? null, requested_limits: normalizeLimits(r.requested_limits) },
  }),
  hasId: (d) => d.request_id !== undefined,
  async find(ctx, d) {
    return pickByDescription(d, await listRequests(ctx));
  },
  // Blocks found by description are found in the account's whole list (the group's list is
  // filtered by the ids it reads), read to its end once for all of them.
  findInList: {
    key: (d) => must(d.description, 'd.description'),
    itemKey: (r) => r.description ?? undefined,
    pick: pickByDescription,
    list: {
      paging: requestList.paging,
      canMatch: () => true,
      describe: () => `GET ${REQUESTS}`,
      fetchPage: (ctx, _members, _refs, page) => fetchListPage(ctx, requestList, {}, page),
    },
  },
  list: {
    group: () => 'requests',
    memberId: (d) => String(d.request_id),
    itemId: (r) => String(r.id),
    maxMembersPerList: QUOTA_REQUEST_IDS_PER_LIST,
    ...listEndpointOf(requestList, (members) => ({ request_ids: members.map((m) => must(m.request_id, 'm.request_id')) })),
  },
});

/**
 * Create (POST, once: the re-read by description tells what a lost answer did), delete (204, no
 * task) and replace: destroy first, since the new request carries the same description and two
 * would make it ambiguous. A request cannot be updated.
 */
const lifecycle = defineLifecycle('cloud_quota_limit_request', {
  updateVerbs: ['Replacing', 'Replaced'],
  create: { payload: createPayloadSchema, request: ({ payload }) => ({ method: 'POST', path: REQUESTS, body: payload }) },
  delete: { request: ({ id }) => ({ method: 'DELETE', path: requestPath(id) }) },
  replace: true,
});

/** The create of a request: the POST body is the block's description and limits. */
function planCreate(desired: Desired) {
  const payload = { description: desired.description, requested_limits: desired.requested_limits };
  return createPlan({ description: desired.description, requested_limits: desired.requested_limits }, 'request_id', payload);
}

/**
 * Cloud quota limit requests (status `done`, `in progress` or `rejected`, shown in the plan's
 * notes). A block with `request_id` adopts that request; one without is found by its
 * `description` in the account's list (which cannot filter by it: more than one match is a plan
 * error naming them) and created from `description` and `requested_limits` (POST, 201, whose
 * body the platform does not document: nothing is read from it). The platform cannot change a
 * request, so other limits destroy it and create a new one (replace); a block that pins its
 * request_id cannot be replaced (its id would name the destroyed one). DELETE is synchronous
 * (204, no task). Requests that name their ids are read together from the list filtered by
 * their ids (`request_ids`, a hundred at a time).
 */
export const cloudQuotaLimitRequest: ResourceProvider<'cloud_quota_limit_request'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_quota_limit_request',

  read: reads.read,
  groupRead: reads.groupRead,
  import: requestImport,

  create: {
    plan: planCreate,
    identity: (desired) => (desired.request_id === undefined && desired.description !== undefined ? describeKey(desired.description) : null),
  },

  summarize: (state) => ({ request_id: state.request_id, status: state.status, description: state.description }),

  plan(desired, state) {
    const before: Record<string, unknown> = { request_id: state.request_id, description: state.description };
    const after: Record<string, unknown> = { ...before };
    const changes: FieldChange[] = [];
    if (desired.description !== undefined) {
      after.description = desired.description;
      if (desired.description !== state.description)
        changes.push({ path: ['description'], op: 'update', before: state.description, after: desired.description, forces_replacement: true });
    }
    if (desired.requested_limits !== undefined) {
      const want = normalizeLimits(desired.requested_limits);
      before.requested_limits = state.requested_limits;
      after.requested_limits = want;
      if (canonicalJson(want) !== canonicalJson(state.requested_limits)) {
        changes.push({ path: ['requested_limits'], op: 'update', before: state.requested_limits, after: want, forces_replacement: true });
      }
    }
    const notes = [`status: ${String(state.status)}`];
    const base = { before, after, changes, warnings: [], notes };
    if (changes.length === 0) return { action: 'no-op', ...base, errors: [] };
    if (desired.request_id !== undefined) {
      const fields = changes.map((c) => c.path.join('.')).join(' and ');
      return {
        action: 'no-op',
        ...base,
        errors: [
          {
            field: must(changes[0], 'changes[0]').path[0] as string,
            summary: `${fields} of quota limit request ${desired.request_id} differ, and a request cannot be changed in place`,
            detail:
              'edgeform would destroy the request and create a new one, which request_id could no longer name: remove request_id to have edgeform replace it (found again by its description), or declare what the request has.',
          },
        ],
      };
    }
    // What a replace ends at is what its create ends at (a new request, its id known after apply),
    // so the executor's check that nothing changed since the plan compares like with like.
    return { action: 'replace', ...base, after: planCreate(desired).after, errors: [] };
  },
};
