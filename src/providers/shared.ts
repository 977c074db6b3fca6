import { ApiConnectionError, NotFoundError } from '../api/errors.js';
import type { ProviderContext } from './provider.js';

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
 * Starts asynchronous work with a POST and waits on its tasks. When the POST fails in a way
 * that leaves it unknown whether the platform received it (reset or timeout after sending),
 * the request is never sent again: the resource is re-read instead; a lock means our task is
 * running (wait for it), the desired state means it already finished, and anything else is
 * reported with the original error so a later run can decide. A request that is safe to
 * repeat once nothing runs (`resendIfNotStarted`, the tags merge patch) is sent once more
 * instead when the re-read shows it never started.
 */
export async function startTasks(
  ctx: ProviderContext,
  send: () => Promise<{ tasks: string[] }>,
  recover: () => Promise<Recovery>,
  taskType: string,
  options: { resendIfNotStarted?: boolean } = {},
): Promise<void> {
  let tasks: string[];
  try {
    ({ tasks } = await send());
  } catch (error) {
    if (!(error instanceof ApiConnectionError) || error.requestSent === false) throw error;
    const found = await recover();
    if (found.kind === 'done') return;
    if (found.kind === 'running') {
      ctx.progress(`the request's answer was lost; waiting on the task found on the resource [task ${found.taskId}]`, { taskIds: [found.taskId] });
      await ctx.waitForTasks([found.taskId], { taskType });
      return;
    }
    if (!options.resendIfNotStarted) throw error;
    ({ tasks } = await send());
  }
  if (tasks.length > 0) ctx.progress(`waiting on ${tasks.length === 1 ? 'task' : 'tasks'} ${tasks.join(', ')}`, { taskIds: tasks });
  await ctx.waitForTasks(tasks, { taskType });
}
