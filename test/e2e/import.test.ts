import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/apply.js';
import { runCli } from '../helpers/cli.js';
import { type TestEmulator, useTestEmulator } from '../helpers/emulator.js';

/** import through the built executable: the stack it writes plans clean. The rest is held in-process (test/integration/cli/import.test.ts). */
describe('edgeform import (built CLI)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { resetEach: false });

  it('writes --all into a file that plan --detailed-exitcode reports no changes for', async () => {
    const env = emulatorEnv(emu);
    const file = join(mkdtempSync(join(tmpdir(), 'edgeform-import-e2e-')), 'live.yaml');
    const imported = await runCli(['import', '--all', '--reseller-id', '7', '--out', file], { env });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/^Wrote 22 resources to .*live\.yaml \(/);
    expect(imported.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('# imported from GET /cloud/v1/floatingips/1/76: ');
    const plan = await runCli(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(plan.code).toBe(0);
  });
});
