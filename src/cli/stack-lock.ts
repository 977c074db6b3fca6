import { resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { EdgeformError, StackLockedError } from '../errors.js';

/** A lock older than this without a refresh belongs to a run that died: the next apply takes it over. */
const STALE_MS = 60_000;

/** Where the lock of a stack (a file or a directory) lives: next to it. */
export function stackLockPath(stackPath: string): string {
  return `${resolve(stackPath)}.edgeform.lock`;
}

/**
 * Takes the apply lock of a stack (a `<stack>.edgeform.lock` directory next to it, through
 * proper-lockfile: atomic mkdir, refreshed while held, stale after a minute without a refresh),
 * so two applies of one stack on one machine never run at once and never create twice. Resolves
 * with its release; throws StackLockedError when another apply holds it. `onCompromised` is
 * told when the lock could not be kept (its refresh failed): the run goes on, the user is warned.
 */
export async function lockStack(stackPath: string, onCompromised: (message: string) => void): Promise<() => Promise<void>> {
  const target = resolve(stackPath);
  const lockPath = stackLockPath(stackPath);
  try {
    return await lockfile.lock(target, {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: (error) => onCompromised(`the stack lock ${lockPath} could not be kept (${error.message}); another apply could start now`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StackLockedError(stackPath, lockPath);
    throw new EdgeformError(
      'EDGEFORM_STACK_LOCK',
      `cannot take the apply lock ${lockPath}: ${(error as Error).message}. Run where the stack's directory is writable, or pass --lock=false if applies of this stack are serialized another way.`,
    );
  }
}
