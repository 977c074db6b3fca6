import type { Argv } from 'yargs';
import type { CliIO } from './io.js';

/**
 * One edgeform command's behaviour: its yargs flags plus a run function that turns typed
 * options into an exit code. Commands never call process.exit; cmd/run-cli.ts is the one error
 * boundary. Its name and one-line description are in the command table (commands.ts), which
 * loads this module only when the command runs.
 */
export interface Command<A = Record<string, unknown>> {
  builder: (yargs: Argv) => Argv;
  run: (args: A, io: CliIO) => Promise<number>;
  /**
   * The options yargs gives the command for `COMMAND PATH` with no flag (its path and the
   * builder's defaults), for a command taking one `<path>`: cmd/run-cli.ts then runs it without
   * loading yargs. Absent: every command line of the command goes through yargs.
   */
  plain?: (path: string) => A;
}

/** Declares a command with its argument type checked at the definition site. */
export function defineCommand<A>(command: Command<A>): Command<A> {
  return command;
}

/**
 * A command as the command line lists it before loading it: what `edgeform --help` shows
 * (`command` in yargs notation, `describe`) and how to load the rest. Loading a command loads
 * what it needs (the API client, the emulator, the renderers), so the table itself imports none
 * of it: `--help`, `validate` or `schema` never pay for the network stack.
 */
export interface CommandEntry {
  command: string;
  describe: string;
  load: () => Promise<Command<any>>;
}
