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

/** Declares a command with its argument type checked at the definition site. */
export function defineCommand<A>(command: Command<A>): Command<A> {
  return command;
}
