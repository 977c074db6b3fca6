import { z } from 'zod';
import { ApiConnectionError, ApiError, BadRequestError, ConflictError, NotFoundError, UnprocessableEntityError } from '../api/errors.js';
import { computeBackoff, isUnknownOutcome } from '../api/retry.js';
import type { TaskScope } from '../api/tasks.js';
import { PlanPayloadError, StillLockedError, must } from '../errors.js';
import type { ChangeFields } from '../plan/types.js';
import type { ApplyResult, ProviderContext } from './provider.js';

/**
 * The change's payload, checked against the provider's schema; throws PlanPayloadError naming
 * the first field that is missing or malformed.
 */
export function requirePayload<S extends z.ZodType>(change: Pick<ChangeFields, 'address' | 'action' | 'payload'>, schema: S): z.infer<S> {
  if (change.payload === undefined || change.payload === null) {
    const fields =
      schema instanceof z.ZodObject
        ? Object.keys(schema.shape)
            .map((f) => `payload.${f}`)
            .join(', ')
        : 'a payload';
    throw new PlanPayloadError(change, `the change has no payload (it needs ${fields})`);
  }
  const parsed = schema.safeParse(change.payload);
  if (parsed.success) return parsed.data;
  const issue = must(parsed.error.issues[0], 'parsed.error.issues[0]');
  throw new PlanPayloadError(change, `${['payload', ...issue.path.map(String)].join('.')}: ${issue.message}`);
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

/** What a re-read after an ambiguous failure found. */
export type Recovery = { kind: 'running'; taskId: string } | { kind: 'done' } | { kind: 'not-started' };

/** Sends of a resendable request in all, the first included. */
export const MAX_SENDS = 3;

/** Lock tasks waited on in one recovery before giving up on the resource ever being free. */
export const MAX_LOCK_WAITS = 3;

/**
 * Starts asynchronous work (a task-starting POST or PATCH) and waits on its tasks. When a send
 * fails with an unknown outcome (see isUnknownOutcome), the request is not blindly sent again
 * (a task it started would hold the lock, and a second one would be refused with 409): the
 * resource is re-read instead. The desired state means it already finished; a lock means a task
 * is running, ours or someone else's: it is waited on. A POST is never sent twice, so after that
 * wait its caller's own re-read judges the result. A request that is safe to repeat once nothing
 * runs (`resendIfNotStarted`, the tags merge patch) re-reads after the wait and decides again:
 * done, locked again (wait again, MAX_LOCK_WAITS in all), or not started (send again after the
 * client's backoff, MAX_SENDS sends in all). A 409 answering such a resend means a task holds the
 * lock (ours made visible late, or someone else's) and is recovered from the same way; a 409 to
 * the first send is the caller's to handle. Otherwise "not started" is reported with the
 * original error, so a later run can decide. Resolves with nothing once the platform acknowledged
 * the change (its tasks FINISHED, or a re-read shows it done), and with 'unacknowledged' when a
 * task found on the resource was waited on and only the caller's re-read can tell the result.
 * `scope`, the project and region the request goes to, lets its tasks be polled with the other
 * tasks of that place (see ProviderContext.waitForTasks); `timeoutMs`, the kind's task timeout,
 * how long each task may run.
 */
export async function startTasks(
  ctx: ProviderContext,
  send: () => Promise<{ tasks: string[] }>,
  recover: () => Promise<Recovery>,
  options: { resendIfNotStarted?: boolean; maxSends?: number; scope?: TaskScope; timeoutMs?: number } = {},
): Promise<ApplyResult> {
  const wait = { ...(options.scope ? { scope: options.scope } : {}), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
  const resendable = options.resendIfNotStarted === true;
  const maxSends = resendable ? (options.maxSends ?? MAX_SENDS) : 1;
  for (let sent = 1; ; sent++) {
    let tasks: string[];
    try {
      ({ tasks } = await send());
    } catch (error) {
      const lockedOnResend = sent > 1 && error instanceof ConflictError;
      if (!isUnknownOutcome(error) && !lockedOnResend) throw error;
      const reason = lockedOnResend ? 'the platform refused the resend (409): a task holds the lock' : "the request's outcome was unknown";
      const found = await settleRecovery(ctx, recover, wait, reason, resendable);
      if (found === 'done') return;
      if (found === 'waited') return 'unacknowledged';
      if (sent >= maxSends) throw error;
      const delayMs = computeBackoff(sent, Math.random);
      ctx.progress(`the request failed and the resource shows it did not start (${describeFailure(error)}); sending it again in ${delayMs} ms`);
      await ctx.sleep(delayMs);
      continue;
    }
    if (tasks.length > 0) ctx.progress(`waiting on ${tasks.length === 1 ? 'task' : 'tasks'} ${tasks.join(', ')}`, { taskIds: tasks });
    await ctx.waitForTasks(tasks, wait);
    return;
  }
}

/**
 * Re-reads after a failed send and waits on any lock found. `waited` (only when the request
 * cannot be resent): a lock was waited on and the caller's re-read judges the result, which
 * may lag the finished task. Otherwise the resource is re-read after each wait until it is
 * done or shows nothing started.
 */
async function settleRecovery(
  ctx: ProviderContext,
  recover: () => Promise<Recovery>,
  wait: { scope?: TaskScope; timeoutMs?: number },
  reason: string,
  resendable: boolean,
): Promise<'done' | 'not-started' | 'waited'> {
  for (let waits = 0; ; waits++) {
    const found = await recover();
    if (found.kind !== 'running') return found.kind;
    if (waits >= MAX_LOCK_WAITS) throw new StillLockedError(found.taskId, waits);
    ctx.progress(`${reason}; waiting on the task found on the resource [task ${found.taskId}]`, { taskIds: [found.taskId] });
    await ctx.waitForTasks([found.taskId], wait);
    if (!resendable) return 'waited';
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return `HTTP ${error.status}`;
  if (error instanceof ApiConnectionError) return error.reason;
  return 'unknown failure';
}

/**
 * Whether a failed change failed for a reason applying again does not change: the platform refused
 * the request as invalid (400), naming something it does not have (404) or as unprocessable (422),
 * or apply refused the payload before sending it. The stack has to change first; a lock (409), a
 * quota, an outage or a failed task may pass, and is not a refusal.
 */
export function isRefusal(error: unknown): boolean {
  return error instanceof BadRequestError || error instanceof NotFoundError || error instanceof UnprocessableEntityError || error instanceof PlanPayloadError;
}
