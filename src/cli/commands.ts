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
    command: 'plan <path>',
    describe: 'Show what apply would change (reads the platform, changes nothing)',
    load: async () => (await import('./plan.js')).planCommand,
  },
  {
    command: 'apply <path>',
    describe: 'Apply a stack (after showing its plan) or a saved plan file',
    load: async () => (await import('./apply.js')).applyCommand,
  },
  {
    command: 'drift <path>',
    describe: 'Report where the platform differs from the stack (exit 0 in sync, 2 drift, 1 error)',
    load: async () => (await import('./drift.js')).driftCommand,
  },
  {
    command: 'schema',
    describe: 'Print the JSON Schema of the stack file (for editors)',
    load: async () => (await import('./schema.js')).schemaCommand,
  },
  {
    command: 'emulator',
    describe: 'Run the local platform emulator (for demos, tests and trying stacks safely)',
    load: async () => (await import('./emulator.js')).emulatorCommand,
  },
];
