import { EdgeformError } from '../errors.js';
import type { Argv } from 'yargs';
import type { CliIO } from './io.js';

/**
 * One edgeform command: yargs flags plus a run function that turns typed options into an
 * exit code. Commands never call process.exit; cmd/run-cli.ts is the one error boundary.
 */
export interface Command<A = Record<string, unknown>> {
  command: string;
  describe: string;
  builder: (yargs: Argv) => Argv;
  run: (args: A, io: CliIO) => Promise<number>;
}

/** Thrown for a problem the user can fix in the invocation; printed without a stack trace, exit 1. */
export class UsageError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_USAGE', message);
  }
}

/** Declares a command with its argument type checked at the definition site. */
export function defineCommand<A>(command: Command<A>): Command<A> {
  return command;
}
