import { describe, expect, it } from 'vitest';
import { startInSync } from '../helpers/apply.js';
import { runCli } from '../helpers/cli.js';
import { closeAfterEach, DEMO, type TestEmulator } from '../helpers/emulator.js';

/** drift through the built executable: exit 2 on drift. The rest is held in-process (test/integration/cli/drift.test.ts). */
describe('edgeform drift (built CLI)', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('exits 2 naming the tag, with stack and platform values, after a tag change through the API', async () => {
    const run = await startInSync();
    emu = run.emu;
    await run.emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev' } } });
    const result = await runCli(['drift', run.stack], { env: run.env });
    expect(result.stdout).toBe(
      ['Drift detected: 1 resource differs from the stack.', '', '  ~ cloud_floating_ip.web_ip has drifted', '      tags.env  stack: "staging"  platform: "dev"', ''].join('\n'),
    );
    expect(result.code).toBe(2);
  });
});
