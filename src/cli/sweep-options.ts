import { UsageError } from '../errors.js';

/**
 * The flags of a fleet run (`plan|drift|apply --stacks ROOT`), apart from the sweep itself
 * (sweep-command.ts, stack-sweep.ts), which a command loads only when --stacks is given.
 */

/** The yargs options a sweep adds to plan, drift and apply. */
export const SWEEP_OPTIONS = {
  stacks: {
    type: 'string',
    requiresArg: true,
    describe: 'Run every stack under this directory (see edgeform stacks) in one process, in the order their ${stack:...} references make',
  },
  shard: { type: 'string', requiresArg: true, describe: 'With --stacks: only shard I of N (e.g. 2/8), as edgeform stacks --shard' },
  'changed-since': { type: 'string', requiresArg: true, describe: 'With --stacks: only the stacks whose files changed since this git ref, as edgeform stacks --changed-since' },
} as const;

/** Refuses a path together with --stacks, neither of them, or --shard / --changed-since without --stacks. */
export function checkSweepArgs(
  command: string,
  args: { path?: string | undefined; stacks?: string | undefined; shard?: string | undefined; changedSince?: string | undefined },
): void {
  if (args.stacks !== undefined && args.path !== undefined) throw new UsageError(`edgeform ${command} takes a stack path or --stacks ROOT, not both`);
  if (args.stacks === undefined && args.path === undefined)
    throw new UsageError('missing PATH: give a stack file or a directory of *.yaml files, or --stacks ROOT for every stack under ROOT');
  if (args.stacks === undefined && (args.shard !== undefined || args.changedSince !== undefined)) throw new UsageError('--shard and --changed-since go with --stacks ROOT');
}
