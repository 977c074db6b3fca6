import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/apply.js';
import { runCli } from '../helpers/cli.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { writeStackFiles } from '../helpers/stack-files.js';
import { IN_SYNC } from '../helpers/demo-stacks.js';

/** drift through the built executable: exit 2 on drift. The rest is held in-process (test/integration/cli/drift.test.ts). */
describe('edgeform drift (built CLI)', () => {
  let emu: TestEmulator;
  let env: Record<string, string>;
  let stack: string;

  async function start(): Promise<void> {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    env = emulatorEnv(emu);
    stack = join(writeStackFiles({ 'stack.yaml': IN_SYNC }), 'stack.yaml');
  }

  afterEach(async () => {
    await emu?.close();
  });

  const drift = (...args: string[]) => runCli(['drift', stack, ...args], { env });

  it('exits 2 naming the tag, with stack and platform values, after a tag change through the API', async () => {
    await start();
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev' } } });
    const result = await drift();
    expect(result.stdout).toBe(
      ['Drift detected: 1 resource differs from the stack.', '', '  ~ cloud_floating_ip.web_ip has drifted', '      tags.env  stack: "staging"  platform: "dev"', ''].join('\n'),
    );
    expect(result.code).toBe(2);
  });
});
