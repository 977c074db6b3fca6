import { describe, expect, it } from 'vitest';
import { commands, commandsToLoad } from '../../../src/cli/commands.js';

/** Every command, in the order of the table (and of --help). */
const ALL = ['validate', 'plan', 'apply', 'drift', 'purge', 'stacks', 'report', 'cost', 'import', 'fmt', 'show', 'schema', 'version', 'emulator'];

const names = (argv: string[]) => commandsToLoad(argv, commands).map((c) => c.command.split(' ')[0]);

describe('the command table', () => {
  it('loads every command it lists, each with its flags and its run function', async () => {
    expect(commands.map((c) => c.command.split(' ')[0])).toEqual(ALL);
    for (const entry of commands) {
      const command = await entry.load();
      expect(typeof command.builder).toBe('function');
      expect(typeof command.run).toBe('function');
    }
  });
});

describe('commandsToLoad: only the command the line runs', () => {
  it('loads the command the line names, after any top-level flags', () => {
    expect(names(['validate', 'stack.yaml'])).toEqual(['validate']);
    expect(names(['plan', 'stack.yaml', '--format', 'json'])).toEqual(['plan']);
    expect(names(['--no-color', 'apply', 'plan.json'])).toEqual(['apply']);
    expect(names(['--color=false', '-h', 'drift', 'stack.yaml'])).toEqual(['drift']);
  });

  it('loads none for --help, --version, no command or an unknown one (yargs needs only the names)', () => {
    expect(names(['--help'])).toEqual([]);
    expect(names(['--version'])).toEqual([]);
    expect(names([])).toEqual([]);
    expect(names(['plna', 'stack.yaml'])).toEqual([]);
  });

  it("loads the command the shell is completing, after the executable's word", () => {
    expect(names(['--get-yargs-completions', 'edgeform', 'plan', '--'])).toEqual(['plan']);
    expect(names(['--get-yargs-completions', 'node_modules/.bin/edgeform', 'apply', '--auto'])).toEqual(['apply']);
    expect(names(['--get-yargs-completions', 'edgeform', 'pl'])).toEqual([]);
  });

  it('loads every command when an unknown flag comes first, since it may take the next word as its value', () => {
    expect(names(['--format', 'json', 'plan', 'stack.yaml'])).toEqual(ALL);
  });
});
