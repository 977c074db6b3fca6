import { z } from 'zod';
import { RateLimitError } from '../api/errors.js';
import { TaskTimeoutError, must } from '../errors.js';
import { apiPath } from '../api/path.js';
import type { Action, FieldChange, PlannedFollowUp } from '../plan/types.js';
import { recordPurge, RESOURCE_KEY, ruleKey, splitPurgeRecord, type PurgeRecord } from './cdn-purge-record.js';
import { ruleTarget, type PurgeSpec, type PurgeTarget } from './cdn-purge-schema.js';
import type { Observation, ProviderContext } from './provider.js';

/**
 * Purging a CDN resource's cache (cdn_api.yaml, `purge-cache`, and the purge history
 * `/cdn/purge_statuses`), as the CDN kinds' follow-up (a block's `purge:` whose `when` differs
 * from the value last purged for, recorded in the resource's description: cdn-purge-record.ts)
 * and as `edgeform purge` does it. The platform's limits are kept: at most 100 URLs or 10
 * patterns a request (larger purges are split), one purge-all or pattern request and two URL
 * requests per resource a minute (requests are spaced to fit; a 429 is waited out, Retry-After
 * honoured, and the request sent again).
 */

/** The platform's limits per resource (cdn_api.yaml, purge-cache): requests a minute and items a request, by purge type. */
export const PURGE_LIMITS = {
  urls: { perMinute: 2, perRequest: 100 },
  paths: { perMinute: 1, perRequest: 10 },
  all: { perMinute: 1, perRequest: 1 },
} as const;

/** The window the per-minute limits count in. */
const WINDOW_MS = 60_000;

/** Answers 429 in a row for one request before edgeform gives up (each waited out first). */
const MAX_RATE_LIMITED = 5;

const resourcePath = (id: number) => apiPath`/cdn/resources/${id}`;
const purgePath = (id: number) => apiPath`/cdn/resources/${id}/purge`;

/** The fields of a CDN resource answer a purge reads: its cname and its description (which holds the purge record). */
const resourceAnswer = z.looseObject({ id: z.int(), cname: z.string(), active: z.boolean().optional(), description: z.string().nullish() });

/** A CDN resource as a purge knows it. */
export type PurgedResource = z.infer<typeof resourceAnswer>;

/** The request bodies of a purge, each within the platform's limit: `{urls}` by 100, `{paths}` by 10, purge-all as `{paths: []}`. */
export function purgeRequests(target: PurgeTarget): Array<{ urls: string[] } | { paths: string[] }> {
  if (target.type === 'all') return [{ paths: [] }];
  const size = PURGE_LIMITS[target.type].perRequest;
  const out: Array<{ urls: string[] } | { paths: string[] }> = [];
  for (let at = 0; at < target.items.length; at += size) {
    const items = target.items.slice(at, at + size);
    out.push(target.type === 'urls' ? { urls: items } : { paths: items });
  }
  return out;
}

/** What a purge acts on, in one line: its first items (and how many more), or "the whole cache". */
export function describeTarget(target: PurgeTarget, shown = 5): string {
  if (target.type === 'all') return 'the whole cache';
  const head = target.items.slice(0, shown).join(', ');
  return target.items.length > shown ? `${head} and ${target.items.length - shown} more` : head;
}

/** How many requests a purge takes and, when they do not fit in one minute, about how long (said before it starts). */
export function describeDuration(target: PurgeTarget): string {
  const requests = purgeRequests(target).length;
  const { perMinute } = PURGE_LIMITS[target.type];
  const noun = target.type === 'urls' ? 'URL' : target.type === 'paths' ? 'pattern' : 'purge-all';
  const each = target.type === 'all' ? '' : ` of at most ${PURGE_LIMITS[target.type].perRequest} ${target.type === 'urls' ? 'URLs' : 'patterns'}`;
  if (requests === 1) return `1 ${noun} request`;
  const minutes = Math.ceil(requests / perMinute) - 1;
  const rate = `the platform takes ${perMinute} ${noun} request${perMinute === 1 ? '' : 's'} a minute per resource`;
  return minutes === 0 ? `${requests} ${noun} requests${each}` : `${requests} ${noun} requests${each}; ${rate}, so it takes about ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** What a resource block's purge acts on. */
export function resourceTarget(purge: Pick<PurgeSpec, 'paths' | 'urls' | 'all'>): PurgeTarget {
  if (purge.urls) return { type: 'urls', items: purge.urls };
  if (purge.paths) return { type: 'paths', items: purge.paths };
  return { type: 'all' };
}

const targetSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('urls'), items: z.array(z.string()).min(1) }),
  z.object({ type: z.literal('paths'), items: z.array(z.string()).min(1) }),
  z.object({ type: z.literal('all') }),
]);

/**
 * A purge follow-up's payload: the resource (absent, or not yet a number, for a rule of a
 * resource this apply creates: its state says), the record's key (absent for a rule this apply
 * creates: its id is in its state), the value to record, and what to purge (absent: only record).
 */
const payloadSchema = z.object({
  resource_id: z.union([z.int(), z.string()]).optional(),
  key: z.string().optional(),
  when: z.string(),
  target: targetSchema.optional(),
});

/** The `when` change a follow-up shows: from the value recorded (absent: none) to the block's. */
function whenChange(last: string | undefined, when: string): FieldChange[] {
  return [last === undefined ? { path: ['when'], op: 'add', after: when } : { path: ['when'], op: 'update', before: last, after: when }];
}

/** The follow-up that purges `target` and then records `when` under `key`. */
function purgeFollowUp(target: PurgeTarget, resourceId: unknown, key: string, last: string | undefined, when: string): PlannedFollowUp {
  return {
    step: 'purge',
    summary: describeTarget(target),
    changes: whenChange(last, when),
    notes: [`${describeDuration(target)}; then the value of when is recorded on the resource`],
    payload: { resource_id: resourceId as number, key, when, target },
  };
}

/**
 * A CDN resource's purge follow-up: due when the block's `purge.when` differs from the value its
 * description records (none recorded counts as differing). A create or replace records the value
 * in its own request and purges nothing (a new resource has no cache), so none then.
 */
export function planResourcePurge(desired: { purge?: PurgeSpec | undefined }, observed: Observation, action: Action): PlannedFollowUp | null {
  const purge = desired.purge;
  if (purge?.when === undefined || action === 'create' || action === 'replace' || !observed.exists) return null;
  const when = String(purge.when);
  const last = (observed.state.purge_record as PurgeRecord | undefined)?.[RESOURCE_KEY];
  if (last === when) return null;
  return purgeFollowUp(resourceTarget(purge), observed.state.resource_id, RESOURCE_KEY, last, when);
}

/** The record of a resource's purges to write in its create request: the block's `when`, if any. */
export function createRecord(desired: { purge?: PurgeSpec | undefined }): PurgeRecord {
  return desired.purge?.when === undefined ? {} : { [RESOURCE_KEY]: String(desired.purge.when) };
}

/** The rule fields a rule's purge needs. */
interface RuleDesired {
  resource_id: number | string;
  rule?: string | undefined;
  rule_type?: 0 | 1 | undefined;
  purge?: PurgeSpec | undefined;
}

/**
 * A rule's purge follow-up: due when its `purge.when` differs from the value its resource's
 * description records for it (`rule-ID`; the rule's read reads it, see readRulePurged). A rule
 * this apply creates (or replaces) purges nothing: the follow-up only records the value, as a
 * resource's create does in its own request (a rule has no field of its own to keep it in).
 */
export function planRulePurge(desired: RuleDesired, observed: Observation, action: Action): PlannedFollowUp | null {
  const purge = desired.purge;
  if (purge?.when === undefined) return null;
  const when = String(purge.when);
  if (action === 'create' || action === 'replace' || !observed.exists) {
    return {
      step: 'purge',
      summary: 'nothing (a new rule)',
      changes: whenChange(undefined, when),
      notes: ['nothing the new rule matches was cached under it, so nothing is purged; the value of when is recorded on its resource'],
      payload: { resource_id: desired.resource_id, when },
    };
  }
  const last = observed.state.purge_when;
  if (last === when) return null;
  const rule = desired.rule ?? (observed.state.rule as string | null) ?? '/';
  const ruleType = desired.rule_type ?? (observed.state.rule_type as 0 | 1 | null) ?? undefined;
  return purgeFollowUp(ruleTarget(purge, rule, ruleType), observed.state.resource_id, ruleKey(observed.state.rule_id as number), typeof last === 'string' ? last : undefined, when);
}

/** Reads a CDN resource (its cname, whether it is active, its description). */
export async function readPurgedResource(ctx: ProviderContext, resourceId: number): Promise<PurgedResource> {
  return (await ctx.api.get(resourcePath(resourceId), { schema: resourceAnswer, signal: ctx.signal })).body;
}

/** The purge record of a CDN resource (what its rules' reads add to their state as `purge_when`). */
export async function readPurgeRecord(ctx: ProviderContext, resourceId: number): Promise<PurgeRecord> {
  return splitPurgeRecord((await readPurgedResource(ctx, resourceId)).description).record;
}

/** A rule's observation with the value its resource records for it (`purge_when`, null when none). */
export function withRulePurged(observation: Observation, record: PurgeRecord): Observation {
  if (!observation.exists) return observation;
  const when = record[ruleKey(observation.state.rule_id as number)];
  return { ...observation, state: { ...observation.state, purge_when: when ?? null } };
}

/** Requests sent per resource and purge type since the last full minute waited, per run (its API client). */
const sentByRun = new WeakMap<object, Map<string, number>>();

/**
 * Sends a purge of `target` to a resource, split into requests within the platform's limits and
 * spaced to its rates: once a minute's allowance of a type was sent for the resource in this run,
 * the next waits a minute. A 429 (another run purged the resource just before) is waited out
 * (Retry-After, else a minute) and the request sent again, up to 5 times. Resolves with the
 * bodies sent; rejects on any other failure (what was sent before stays purged).
 */
export async function sendPurge(ctx: ProviderContext, resourceId: number, target: PurgeTarget): Promise<Array<{ urls: string[] } | { paths: string[] }>> {
  const requests = purgeRequests(target);
  let sent = sentByRun.get(ctx.api);
  if (sent === undefined) sentByRun.set(ctx.api, (sent = new Map()));
  const key = `${resourceId}:${target.type}`;
  const { perMinute } = PURGE_LIMITS[target.type];
  for (const [index, body] of requests.entries()) {
    if ((sent.get(key) ?? 0) >= perMinute) {
      ctx.progress(`waiting a minute: the platform takes ${perMinute} such purge request${perMinute === 1 ? '' : 's'} a minute per resource`);
      await ctx.sleep(WINDOW_MS);
      sent.set(key, 0);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await ctx.api.post(purgePath(resourceId), body, { retry: 'none', signal: ctx.signal });
        break;
      } catch (error) {
        if (!(error instanceof RateLimitError) || attempt >= MAX_RATE_LIMITED) throw error;
        const wait = Math.max(1000, error.retryAfterMs ?? WINDOW_MS);
        ctx.progress(`the platform is rate-limiting purges of this resource (429): waiting ${Math.ceil(wait / 1000)}s, then sending again`);
        await ctx.sleep(wait);
        sent.set(key, 0);
      }
    }
    sent.set(key, (sent.get(key) ?? 0) + 1);
    ctx.progress(requests.length === 1 ? 'purge accepted' : `purge request ${index + 1} of ${requests.length} accepted`);
  }
  return requests;
}

/** Records on a resource that the block keyed `key` was purged for `when`: its live description with that record entry set. */
export async function recordPurged(ctx: ProviderContext, resourceId: number, key: string, when: string): Promise<void> {
  const live = await readPurgedResource(ctx, resourceId);
  await ctx.api.patch(resourcePath(resourceId), { description: recordPurge(live.description, key, when) }, { retry: 'idempotent', signal: ctx.signal });
}

/**
 * Runs a purge follow-up (the CDN kinds' FollowUp.run): the purge, then the record of `when`.
 * The resource and the rule's id come from the state this apply left the block in when it made
 * it (a rule created with its resource), else from the plan's payload.
 */
export async function runPurgeFollowUp(ctx: ProviderContext, input: { state?: Readonly<Record<string, unknown>>; followUp: PlannedFollowUp }): Promise<void> {
  const payload = payloadSchema.parse(input.followUp.payload);
  const resourceId = input.state?.resource_id ?? payload.resource_id;
  if (typeof resourceId !== 'number') throw new Error('the purge does not know its CDN resource (its id was not known after apply)');
  const key = payload.key ?? (typeof input.state?.rule_id === 'number' ? ruleKey(input.state.rule_id) : undefined);
  if (key === undefined) throw new Error('the purge does not know its rule (its id was not known after apply)');
  if (payload.target !== undefined) {
    ctx.progress(`purging ${describeTarget(payload.target)} (${describeDuration(payload.target)})`);
    await sendPurge(ctx, resourceId, payload.target);
  }
  await recordPurged(ctx, resourceId, key, payload.when);
}

/** One entry of the purge history (PurgeStatusResponse), as far as edgeform reads it. */
const purgeStatus = z.looseObject({
  purge_id: z.int(),
  status: z.string().nullish(),
  purge_type: z.string().nullish(),
  created: z.string().nullish(),
  payload: z.record(z.string(), z.unknown()).nullish(),
});

/** An entry of the purge history. */
export type PurgeStatus = z.infer<typeof purgeStatus>;

const purgeStatuses = z.union([z.array(purgeStatus), z.looseObject({ count: z.int().min(0), results: z.array(purgeStatus) })]);

/** The platform's name of a purge type in the history. */
const HISTORY_TYPE: Record<PurgeTarget['type'], string> = { urls: 'purge_by_url', paths: 'purge_by_pattern', all: 'purge_all' };

/** The newest page of a resource's purge history of one type (`GET /cdn/purge_statuses`, filtered by cname and type). */
export async function purgeHistory(ctx: ProviderContext, cname: string, type: PurgeTarget['type']): Promise<PurgeStatus[]> {
  const page = (await ctx.api.get('/cdn/purge_statuses', { schema: purgeStatuses, query: { cname, purge_type: HISTORY_TYPE[type], limit: 100 }, signal: ctx.signal })).body;
  return Array.isArray(page) ? page : page.results;
}

/** How following a purge in the history ended: every request Successful (or not reported), or one Failed. */
export type PurgeWait = { done: true; statuses: PurgeStatus[] } | { done: false; failed: PurgeStatus; statuses: PurgeStatus[] };

/**
 * Follows the purge history until the `count` purges of a resource's type made after `seen` (the
 * ids the history held before they were sent) have all ended: `Successful` (or `Status report
 * disabled`: nothing more to learn) or one `Failed`. Polls every `intervalMs`; gives up after
 * `maxPolls` with a TaskTimeoutError (the purge may still be running).
 */
export async function waitForPurges(
  ctx: ProviderContext,
  options: { cname: string; type: PurgeTarget['type']; seen: ReadonlySet<number>; count: number; intervalMs: number; maxPolls: number },
): Promise<PurgeWait> {
  let last: PurgeStatus[] = [];
  for (let poll = 0; poll < options.maxPolls; poll++) {
    if (poll > 0) await ctx.sleep(options.intervalMs);
    const fresh = (await purgeHistory(ctx, options.cname, options.type))
      .filter((s) => !options.seen.has(s.purge_id))
      .sort((a, b) => b.purge_id - a.purge_id)
      .slice(0, options.count);
    last = fresh;
    const failed = fresh.find((s) => s.status === 'Failed');
    if (failed !== undefined) return { done: false, failed, statuses: fresh };
    if (fresh.length >= options.count && fresh.every((s) => s.status === 'Successful' || s.status === 'Status report disabled')) return { done: true, statuses: fresh };
    const ended = fresh.filter((s) => s.status !== 'In progress').length;
    ctx.progress(`${ended} of ${options.count} purge request${options.count === 1 ? '' : 's'} finished`);
  }
  throw new TaskTimeoutError({
    taskId: last.length === 0 ? `purge of ${options.cname}` : `purge ${last.map((s) => s.purge_id).join(', ')}`,
    taskType: 'purge',
    elapsedMs: options.intervalMs * (options.maxPolls - 1),
    lastState: last.find((s) => s.status !== 'Successful')?.status ?? null,
  });
}

/** The resource with this cname (`GET /cdn/resources?cname=`, exact match), or null. */
export async function findResourceByCname(ctx: ProviderContext, cname: string): Promise<PurgedResource | null> {
  const page = (
    await ctx.api.get('/cdn/resources', {
      schema: z.union([z.array(resourceAnswer), z.looseObject({ results: z.array(resourceAnswer) })]),
      query: { cname },
      signal: ctx.signal,
    })
  ).body;
  const found = (Array.isArray(page) ? page : page.results).filter((r) => r.cname === cname);
  return found.length === 1 ? must(found[0], 'found[0]') : null;
}
