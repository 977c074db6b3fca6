import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('edgeform CLI', () => {
  it('prints its version with --version and exits 0', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('rejects an unknown command with a clear message and exit 1, no stack trace', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('frobnicate');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('rejects an unknown flag with exit 1, no stack trace', async () => {
    const result = await runCli(['--frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for a command when none is given', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('edgeform --help');
  });
});

describe('edgeform CLI usage errors', () => {
  it('names an unknown flag even when it swallowed the PATH argument', async () => {
    for (const args of [
      ['plan', '--bogus', 'stack.yaml'],
      ['plan', 'stack.yaml', '--bogus'],
      ['validate', '--bogus=1', 'stack.yaml'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('unknown flag --bogus');
    }
  });

  it('names an unknown command and suggests the nearest one', async () => {
    const unknown = await runCli(['bogus']);
    expect(unknown.stderr).toContain('unknown command "bogus"; the commands are validate, plan, apply, drift, schema, emulator');
    const typo = await runCli(['plna', 'stack.yaml']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown command "plna". Did you mean plan?');
  });

  it('says what a missing PATH is', async () => {
    const result = await runCli(['plan', '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing PATH: give a stack file or a directory of *.yaml files');
  });
});
