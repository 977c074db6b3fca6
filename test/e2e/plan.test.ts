import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { type TestEmulator, useTestEmulator } from '../helpers/emulator.js';

/**
 * plan through the built executable: the exit codes of changes and of a run that cannot start.
 * The rest of plan's behaviour is held in-process (test/integration/cli/plan.test.ts).
 */
let emu: TestEmulator;

useTestEmulator((started) => (emu = started));

/** Runs `edgeform plan ARGS` against the emulator; env entries override (undefined removes). */
async function plan(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const result = await runCli(['plan', ...args], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, ...env } });
  expect(result.stdout).not.toContain(emu.apiKey);
  expect(result.stderr).not.toContain(emu.apiKey);
  return result;
}

describe('edgeform plan (built CLI)', () => {
  it('exits 2 with --detailed-exitcode when there are changes', async () => {
    expect((await plan(['examples/notifications.yaml', '--detailed-exitcode'])).code).toBe(2);
  });

  it('explains that EDGEFORM_API_KEY is missing, exits 1 and sends nothing', async () => {
    const result = await plan(['examples/quickstart.yaml'], { EDGEFORM_API_KEY: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: .*EDGEFORM_API_KEY/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(emu.requests).toHaveLength(0);
  });
});
