import type { CommandEntry } from './command.js';

/**
 * Every command edgeform has, in the order `--help` lists them. Each loads its module only when
 * it runs (as oclif's command manifest does): start-up cost is paid for the command run, not
 * for all of them.
 */
export const commands: readonly CommandEntry[] = [
  {
    command: 'validate <path>',
    describe: 'Check a stack file or directory offline (no API calls)',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    command: 'plan [path]',
    describe: 'Show what apply would change (reads the platform, changes nothing)',
    load: async () => (await import('./plan.js')).planCommand,
  },
  {
    command: 'apply [path]',
    describe: 'Apply a stack (after showing its plan) or a saved plan file',
    load: async () => (await import('./apply.js')).applyCommand,
  },
  {
    command: 'drift [path]',
    describe: 'Report where the platform differs from the stack (exit 0 in sync, 2 drift, 1 error)',
    load: async () => (await import('./drift.js')).driftCommand,
  },
  {
    command: 'purge [path]',
    describe: "Purge a CDN resource's cache now: STACK --target ADDRESS (the block's purge:, or --paths/--urls/--all) or --cname; --wait follows it",
    load: async () => (await import('./purge.js')).purgeCommand,
  },
  {
    command: 'stacks <root>',
    describe: 'List the stacks under a directory, offline: name, digest, the places and files each reads (--changed-since REF, --shard I/N, --format github-matrix)',
    load: async () => (await import('./stacks.js')).stacksCommand,
  },
  {
    command: 'report <action> [files..]',
    describe: 'Merge per-stack plan and drift results (of CI matrix jobs) into one report and one exit code: report merge FILES... (--format markdown|json)',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    command: 'cost [path]',
    describe: "What a stack's resources cost, from the platform's cost report filtered by its ownership tag (--since 30d, --stacks ROOT)",
    load: async () => (await import('./cost.js')).costCommand,
  },
  {
    command: 'import [kind]',
    describe: "Write a stack that adopts live resources, discovered through the platform's lists (KIND or --all)",
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    command: 'fmt [paths..]',
    describe: 'Put stack files in canonical order, keeping comments (--check, --diff: exit 3 when any would change; --recursive)',
    load: async () => (await import('./fmt.js')).fmtCommand,
  },
  {
    command: 'show <planfile>',
    describe: 'Show a saved plan file (text, JSON or Markdown; no API access)',
    load: async () => (await import('./show.js')).showCommand,
  },
  {
    command: 'schema',
    describe: 'Print the JSON Schema of the stack file (for editors)',
    load: async () => (await import('./schema.js')).schemaCommand,
  },
  {
    command: 'version',
    describe: 'Print the version, the commit it was built from and the Node.js it runs on (--format json)',
    load: async () => (await import('./version.js')).versionCommand,
  },
  {
    command: 'emulator',
    describe: 'Run the local platform emulator (for demos, tests and trying stacks safely)',
    load: async () => (await import('./emulator.js')).emulatorCommand,
  },
];

/** How a completion script asks for words: the flag, the executable's word, then the words typed after it. */
const COMPLETIONS_FLAG = '--get-yargs-completions';

/** The flags yargs reads before the command name (none of them takes a value). */
const TOP_LEVEL_FLAGS = new Set(['--help', '-h', '--version', '-v', '--color', '--no-color', '--color=true', '--color=false']);

/**
 * The commands whose modules this command line needs: the one it names, which yargs runs (its
 * flags come from its module); none when it names no command (`--help`, a typo: yargs needs
 * only the names then); every one in the odd case of an unknown flag before the command name,
 * where only yargs can tell which word is the command. The shell asking for completions
 * (`--get-yargs-completions edgeform plan --`) needs the command of the words after the
 * executable's.
 */
export function commandsToLoad(argv: readonly string[], entries: readonly CommandEntry[]): readonly CommandEntry[] {
  if (argv[0] === COMPLETIONS_FLAG) return commandsToLoad(argv.slice(2), entries);
  const at = argv.findIndex((a) => !a.startsWith('-'));
  if (at === -1) return [];
  if (!argv.slice(0, at).every((a) => TOP_LEVEL_FLAGS.has(a))) return entries;
  const named = entries.find((e) => e.command.split(' ')[0] === argv[at]);
  return named ? [named] : [];
}
