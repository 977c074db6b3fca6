import { ApiConnectionError, ApiError, NotFoundError } from '../api/errors.js';
import { computeBackoff } from '../api/retry.js';
import { EdgeformError } from '../errors.js';
import type { ResourceChange } from '../plan/types.js';
import type { ProviderContext } from './provider.js';

/**
 * A change lacks what its provider needs to carry it out (a saved plan edited by hand or
 * written by another build). Refused before anything is sent: guessing could do harm (a
 * floating IP patch of `null` removes every user tag).
 */
export class PlanPayloadError extends EdgeformError {
  readonly address: string;
  constructor(change: Pick<ResourceChange, 'address' | 'action'>, problem: string) {
    super('EDGEFORM_PLAN_PAYLOAD', `${change.address}: cannot ${change.action} from this plan: ${problem}. Run edgeform plan again.`);
    this.address = change.address;
  }
}

/**
 * The payload field a change must carry, checked with `valid`; throws PlanPayloadError naming
 * the field and what it should be when it is missing or malformed.
 */
export function requirePayload<T>(change: ResourceChange, field: string, valid: (value: unknown) => value is T, expected: string): T {
  const payload = change.payload;
  if (payload === undefined || payload === null || !Object.hasOwn(payload, field)) {
    throw new PlanPayloadError(change, `the change has no payload.${field} (${expected})`);
  }
  const value = payload[field];
  if (!valid(value)) throw new PlanPayloadError(change, `payload.${field} is not ${expected}`);
  return value;
}

/** Refuses any action but `expected` (a provider that cannot update must never act on an "update"). */
export function requireAction(change: ResourceChange, expected: ResourceChange['action']): void {
  if (change.action !== expected) throw new PlanPayloadError(change, `this kind supports only ${expected}, the change says ${change.action}`);
}

/** Runs a read; a 404 means the resource is gone, which is an answer, not an error. */
export async function readOrGone<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** Runs a delete; a 404 means someone already deleted it, which is success. */
export async function deleteIfPresent(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (error) {
    if (error instanceof NotFoundError) return;
    throw error;
  }
}

/** What a re-read after an ambiguous failure found. */
export type Recovery = { kind: 'running'; taskId: string } | { kind: 'done' } | { kind: 'not-started' };

/**
 * Answers after which the platform may or may not have acted on a request: a timeout or a
 * gateway / server error can come after the work was started. (429 and 503 are refusals at the
 * door; the client already retried those where allowed.)
 */
const UNKNOWN_OUTCOME_STATUSES: ReadonlySet<number> = new Set([408, 500, 502, 504]);

/** Sends of a resendable request in all, the first included. */
export const MAX_SENDS = 3;

/**
 * Whether a failed send leaves its outcome unknown: the connection was lost after sending (or
 * may have been), or the platform answered 408/500/502/504, which can come after it acted.
 */
export function isUnknownOutcome(error: unknown): boolean {
  if (error instanceof ApiConnectionError) return error.requestSent !== false;
  return error instanceof ApiError && UNKNOWN_OUTCOME_STATUSES.has(error.status);
}

/**
 * Starts asynchronous work (a task-starting POST or PATCH) and waits on its tasks. When a send
 * fails with an unknown outcome (see isUnknownOutcome), the request is not blindly sent again
 * (a task it started would hold the lock, and a second one would be refused with 409): the
 * resource is re-read instead. A lock means our task is running (wait for it); the desired state
 * means it already finished; "not started" is reported with the original error, so a later run
 * can decide, unless the request is safe to repeat once nothing runs (`resendIfNotStarted`, the
 * tags merge patch): that is sent again after the client's backoff, MAX_SENDS times in all.
 */
export async function startTasks(
  ctx: ProviderContext,
  send: () => Promise<{ tasks: string[] }>,
  recover: () => Promise<Recovery>,
  taskType: string,
  options: { resendIfNotStarted?: boolean; maxSends?: number } = {},
): Promise<void> {
  const maxSends = options.resendIfNotStarted ? (options.maxSends ?? MAX_SENDS) : 1;
  let tasks: string[] | undefined;
  for (let sent = 1; tasks === undefined; sent++) {
    try {
      ({ tasks } = await send());
    } catch (error) {
      if (!isUnknownOutcome(error)) throw error;
      const found = await recover();
      if (found.kind === 'done') return;
      if (found.kind === 'running') {
        ctx.progress(`the request's outcome was unknown; waiting on the task found on the resource [task ${found.taskId}]`, { taskIds: [found.taskId] });
        await ctx.waitForTasks([found.taskId], { taskType });
        return;
      }
      if (sent >= maxSends) throw error;
      const delayMs = computeBackoff(sent, Math.random);
      ctx.progress(`the request failed and the resource shows it did not start (${describeFailure(error)}); sending it again in ${delayMs} ms`);
      await ctx.sleep(delayMs);
    }
  }
  if (tasks.length > 0) ctx.progress(`waiting on ${tasks.length === 1 ? 'task' : 'tasks'} ${tasks.join(', ')}`, { taskIds: tasks });
  await ctx.waitForTasks(tasks, { taskType });
}

function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return `HTTP ${error.status}`;
  if (error instanceof ApiConnectionError) return error.reason;
  return 'unknown failure';
}
