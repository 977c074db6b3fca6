import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';

describe('edgeform CLI', () => {
  it('rejects an unknown flag with exit 1, no stack trace', async () => {
    const result = await runCliInProcess(['--frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for a command when none is given', async () => {
    const result = await runCliInProcess([]);
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
      const result = await runCliInProcess(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('unknown flag --bogus');
    }
  });

  it('names an unknown command and suggests the nearest one', async () => {
    const unknown = await runCliInProcess(['bogus']);
    expect(unknown.stderr).toContain('unknown command "bogus"; the commands are validate, plan, apply, drift, import, schema, emulator');
    const typo = await runCliInProcess(['plna', 'stack.yaml']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown command "plna". Did you mean plan?');
  });

  it('says what a missing PATH is', async () => {
    const result = await runCliInProcess(['plan', '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing PATH: give a stack file or a directory of *.yaml files');
  });
});
