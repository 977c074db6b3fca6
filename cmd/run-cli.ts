/**
 * The edgeform command line: yargs wiring only, and the one place errors become exit codes.
 * The executable entry point is edgeform.ts, which loads this module after it has made
 * signals safe.
 */
import type { Argv } from 'yargs';
import { EdgeformError, InterruptedError, UsageError } from '../src/errors.js';
import type { Command, CommandEntry } from '../src/cli/command.js';
import { commands, commandsToLoad } from '../src/cli/commands.js';
import { createIO, ExitCode, type CliIO, type CreateIOOptions } from '../src/cli/io.js';
import { suggest } from '../src/config/did-you-mean.js';
import { VERSION } from '../src/version.js';

/** Runs edgeform with argv (without node and script) and returns the exit code. */
export async function runCli(argv: string[], ioOptions: CreateIOOptions = {}): Promise<number> {
  const io = createIO({ ...ioOptions, argv });
  let exitCode: number = ExitCode.ok;
  let ran = false;

  try {
    const plain = await runPlain(argv, io);
    if (plain !== undefined) return plain;
  } catch (error) {
    return reportError(error, io);
  }
  // Loaded here, not with this module: a plain run (runPlain) never needs it.
  const { default: yargs } = await import('yargs');
  let parser: Argv = yargs(argv)
    .scriptName('edgeform')
    .usage('Usage: $0 <command> [options]\n\nDeclarative reconcile tool for the edge platform: plan, apply and drift from YAML stacks.')
    .version(VERSION)
    .alias('version', 'v')
    .help()
    .alias('help', 'h')
    .option('color', {
      type: 'boolean',
      description: 'Colour the output: --color forces it (also FORCE_COLOR=1, for CI logs that render it), --no-color turns it off (also NO_COLOR); by default only on a terminal',
    })
    .strict()
    .demandCommand(1, 'Name a command: see edgeform --help.')
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((reported: string | undefined, error: Error | undefined, context: unknown) => {
      // yargs' own parse errors (a flag without its value) arrive as a YError: usage, not a bug.
      if (error && error.name !== 'YError') throw error;
      const message = reported ?? error?.message;
      // yargs 18 passes its usage object here (its typings still say the yargs instance).
      const unknown = unknownFlags(argv, context as UsageContext);
      if (unknown.length > 0) throw new UsageError(`unknown ${unknown.length === 1 ? 'flag' : 'flags'} ${unknown.join(', ')}`);
      const missing = /^Not enough arguments following: (.+)$/.exec(message ?? '');
      if (missing) throw new UsageError(`--${missing[1]} needs a value (--${missing[1]} VALUE or --${missing[1]}=VALUE)`);
      const first = argv.find((a) => !a.startsWith('-'));
      if (first && message?.startsWith('Unknown argument') && !COMMAND_NAMES.includes(first)) {
        // Only a likely typo gets a suggestion (suggest's distance limit; yargs' recommendCommands
        // offered "fmt" for "xyz"); anything else gets the list.
        const match = suggest(first, [...COMMAND_NAMES, 'completion']);
        throw new UsageError(
          match === undefined ? `unknown command "${first}"; the commands are ${COMMAND_NAMES.join(', ')}` : `unknown command "${first}". Did you mean ${match}?`,
        );
      }
      throw new UsageError(explainUsage(message ?? 'invalid invocation', first));
    });

  try {
    if (isCompletionScriptRun(argv)) {
      // edgeform's own script rather than yargs': it finds the executable the user runs (see completion.ts).
      const { chooseCompletionShell, writeCompletionScript } = await import('../src/cli/completion.js');
      io.out(writeCompletionScript(chooseCompletionShell(argv[1], process.env)));
      return ExitCode.ok;
    }
    if (argv[0] === '--get-yargs-completions') {
      // The words edgeform completes itself (a stack's addresses, the kinds) need no command module.
      const { completeWords } = await import('../src/cli/complete-words.js');
      const words = await completeWords(argv.slice(2), io.env);
      if (words !== undefined) {
        if (words.length > 0) io.out(words.join('\n'));
        return ExitCode.ok;
      }
    }
    const loaded = await loadCommands(argv);
    if (!isCompletionRun(argv)) refuseSingleDashFlags(argv, () => knownFlags(yargs([]), argv, loaded));
    for (const entry of commands) {
      const command = loaded.get(entry);
      // A command not loaded is one yargs does not run (see commandsToLoad): it needs only its
      // name and description, for --help and "did you mean".
      parser = parser.command(entry.command, entry.describe, command?.builder ?? ((y: Argv) => y), async (args) => {
        if (!command) throw new Error(`the command "${entry.command}" ran without being loaded`);
        ran = true;
        exitCode = await command.run(args, io);
      });
    }
    // Listed in --help, and answers the shell's --get-yargs-completions; the script itself is
    // edgeform's (isCompletionScriptRun).
    parser = parser.completion(
      'completion',
      'Print a completion script for bash or zsh (by $SHELL, or name it: completion zsh): edgeform completion >> ~/.bashrc; npx edgeform completion for a devDependency install',
    );
    // What yargs prints itself for a completion (the words the shell asked for) is collected and
    // written through io, like everything else edgeform prints.
    let yargsOutput = '';
    skipHelpCache(parser);
    const parsed = isCompletionRun(argv) ? await parser.parseAsync(argv, {}, (_error, _argv, output) => void (yargsOutput = output)) : await parser.parseAsync();
    if (isCompletionRun(argv)) {
      if (yargsOutput !== '') io.out(yargsOutput);
      return ExitCode.ok;
    }
    // With exitProcess(false) yargs prints `COMMAND --help` itself and runs nothing: that is success.
    if (!ran && parsed.help === true) return ExitCode.ok;
    if (!ran && parsed._.length > 0) throw new UsageError(`unknown command "${String(parsed._[0])}"`);
    return ran ? exitCode : ExitCode.ok;
  } catch (error) {
    return reportError(error, io);
  }
}

/**
 * Runs a plain command line without yargs, as edgeform.ts answers `--version`: `COMMAND PATH`
 * with no flag, for a command that says what options yargs would give it then (Command.plain):
 * `validate stack.yaml`, what CI jobs and pre-commit hooks run most. yargs' set-up (loading it,
 * its parser, its search for package.json) is about a fifth of such a run. Undefined for any
 * other command line, which yargs then parses (the command's module, loaded here, is not loaded
 * twice).
 */
async function runPlain(argv: readonly string[], io: CliIO): Promise<number | undefined> {
  const [name, path] = argv;
  if (argv.length !== 2 || name === undefined || path === undefined || path.startsWith('-')) return undefined;
  const entry = commands.find((e) => e.command === `${name} <path>`);
  const command = entry && (await entry.load());
  const args = command?.plain?.(path);
  return args === undefined ? undefined : command!.run(args, io);
}

/** The part of yargs' internals skipHelpCache reaches (not in its typings; absent, nothing is skipped). */
interface YargsInternals {
  getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?: () => void } | undefined } | undefined;
}

/**
 * Right after starting a command's handler, yargs formats that command's whole --help text and
 * keeps it, to print it should the command fail. edgeform reports every failure itself (.fail)
 * and never prints that text, and formatting it (measuring every cell's width) costs tens of
 * milliseconds of every run, while the command has just started its work. Skipped, where this
 * yargs has the hook.
 */
function skipHelpCache(parser: Argv): void {
  const usage = (parser as unknown as YargsInternals).getInternalMethods?.()?.getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/** Whether this command line asks for the completion script: `edgeform completion [bash|zsh]`. */
function isCompletionScriptRun(argv: readonly string[]): boolean {
  return argv[0] === 'completion' && argv.length <= 2 && !argv.includes('--get-yargs-completions') && !argv.some((a) => a.startsWith('-'));
}

/** Whether yargs answers this command line itself with a completion: `edgeform completion`, or the shell asking for words. */
function isCompletionRun(argv: readonly string[]): boolean {
  return argv[0] === 'completion' || argv.includes('--get-yargs-completions');
}

async function loadCommands(argv: readonly string[]): Promise<Map<CommandEntry, Command<any>>> {
  const wanted = commandsToLoad(argv, commands);
  const loaded = await Promise.all(wanted.map((entry) => entry.load()));
  return new Map(wanted.map((entry, i) => [entry, loaded[i]!]));
}

/** What yargs passes to its fail handler: its usage object, which knows the options in scope. */
interface UsageContext {
  getDescriptions?(): Record<string, unknown>;
}

/**
 * The --flags of argv that the command being parsed does not know. yargs reports a missing
 * positional first when an unknown flag swallowed it (`plan --bogus stack.yaml`), so the
 * unknown flag is named here instead.
 */
function unknownFlags(argv: readonly string[], context: UsageContext): string[] {
  // Every option edgeform declares has a description, so the described ones are the known ones.
  const known = new Set<string>(['help', 'version', ...Object.keys(context.getDescriptions?.() ?? {})]);
  if (known.size === 2) return [];
  const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
  const kebab = [...known].filter((name) => !/[A-Z]/.test(name));
  return argv
    .filter((a) => a.startsWith('--') && a.length > 2)
    .map((a) => a.slice(2).split('=')[0]!)
    .filter((name) => {
      const base = name.startsWith('no-') ? name.slice(3) : name;
      return !known.has(base) && !known.has(camel(base));
    })
    .map((name) => {
      const match = suggest(name, kebab);
      return match === undefined ? `--${name}` : `--${name} (did you mean --${match}?)`;
    });
}

/** The names of the commands, as typed. */
const COMMAND_NAMES: readonly string[] = commands.map((c) => c.command.split(' ')[0]!);

/** The flags every command takes. */
const GLOBAL_FLAGS = ['help', 'version', 'color'];

/** The part of a yargs instance knownFlags reads (in yargs 18, not in its typings). */
interface YargsOptions {
  getOptions?(): { key: Record<string, unknown>; boolean: string[] };
}

/**
 * The long flags the command line's command takes (with `no-` for its booleans), and the global
 * ones: what a Terraform-style `-flag` may be respelled as. Read from the command's own builder,
 * on a yargs instance of its own (which costs a search for package.json and a parser set-up):
 * only when a command line has such a flag.
 */
function knownFlags(fresh: Argv, argv: readonly string[], loaded: ReadonlyMap<CommandEntry, Command<any>>): Set<string> {
  const known = new Set([...GLOBAL_FLAGS, 'no-color']);
  const named = argv.find((a) => !a.startsWith('-'));
  const entry = commands.find((e) => e.command.split(' ')[0] === named);
  const command = entry && loaded.get(entry);
  const options = command ? (command.builder(fresh) as unknown as YargsOptions).getOptions?.() : undefined;
  for (const key of Object.keys(options?.key ?? {})) known.add(key);
  for (const key of options?.boolean ?? []) known.add(`no-${key}`);
  return known;
}

/**
 * Terraform flags edgeform has no two-dash twin for, and what to do instead: `to` a spelling of
 * edgeform's (when the command has that flag), or advice.
 */
const TERRAFORM_FLAGS: Record<string, { to: string; needs: string } | { advice: string }> = {
  input: { advice: 'edgeform never prompts without a terminal (apply then needs --auto-approve or a saved plan); leave it out' },
  json: { to: '--format json', needs: 'format' },
  var: { advice: 'edgeform has no variables; a stack reads the environment with ${env:NAME}' },
  'var-file': { advice: 'edgeform has no variables; a stack reads the environment with ${env:NAME}' },
};

/**
 * Refuses Terraform's single-dash spelling of long flags (`-out=plan.json`, `-target ADDR`,
 * `-auto-approve`), which yargs would read as a row of one-letter flags. Each gets what to type
 * instead: the two-dash spelling when the command has that flag (`known`), edgeform's own way
 * for a Terraform flag it spells differently (`-json`, `-input=false`, `-var`), else that there
 * is no such flag; never a two-dash flag that does not exist. Words after `--` are left alone.
 * The command's flags (`readKnown`) are read only when there is such a word.
 */
function refuseSingleDashFlags(argv: readonly string[], readKnown: () => ReadonlySet<string>): void {
  const end = argv.indexOf('--');
  const single = (end === -1 ? argv : argv.slice(0, end)).filter((a) => /^-[a-z][a-z-]+(=|$)/i.test(a));
  if (single.length === 0) return;
  const known = readKnown();
  const renames: string[] = [];
  const others: string[] = [];
  for (const word of single) {
    const name = word.slice(1).split('=')[0]!;
    const terraform = TERRAFORM_FLAGS[name];
    if (known.has(name)) renames.push(`${word} -> -${word}`);
    else if (terraform && 'to' in terraform && known.has(terraform.needs)) renames.push(`${word} -> ${terraform.to}`);
    else if (terraform && 'advice' in terraform) others.push(`${word}: ${terraform.advice}`);
    else others.push(`${word}: edgeform has no --${name} flag (see edgeform --help)`);
  }
  const hints = [...(renames.length > 0 ? [`use ${renames.join(', ')}`] : []), ...others];
  throw new UsageError(`edgeform's long flags take two dashes, unlike Terraform's: ${hints.join('; ')}`);
}

/** yargs' terse messages in words a new user can act on. */
function explainUsage(message: string, command: string | undefined): string {
  if (message.startsWith('Not enough non-option arguments') && command === 'show') return 'missing PLANFILE: give a plan file written by edgeform plan --out';
  if (message.startsWith('Not enough non-option arguments')) return 'missing PATH: give a stack file or a directory of *.yaml files (apply also takes a plan file from plan --out)';
  return message;
}

function reportError(error: unknown, io: CliIO): number {
  if (error instanceof UsageError) {
    io.err(`Error: ${error.message}\nRun 'edgeform --help' for usage.`);
    return ExitCode.error;
  }
  if (error instanceof InterruptedError) {
    io.err(`Interrupted: ${error.message}.`);
    return ExitCode.interrupted;
  }
  if (error instanceof EdgeformError) {
    io.err(`Error: ${error.message}`);
    return ExitCode.error;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`Error: an unexpected error occurred; this is a bug in edgeform, please report it.\n${detail}`);
  return ExitCode.error;
}
