import { describe, expect, it } from 'vitest';
import { runCli } from '../../../cmd/run-cli.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { captureStream, maskVolatile } from '../../helpers/capture.js';

/**
 * The output of `edgeform plan` for every example stack against a fresh demo world
 * (docs/demo-world.md), in all three formats, as file snapshots. The CLI runs in-process on
 * the real emulator over loopback; only the emulator URL and the plan's timestamp are masked.
 */
const STACKS = ['quickstart', 'cloud', 'cleanup', 'checks', 'notifications', 'multi-file', 'floating-ips', 'edge-apps'] as const;
const FORMATS = [
  { format: 'text', ext: 'txt' },
  { format: 'markdown', ext: 'md' },
  { format: 'json', ext: 'json' },
] as const;

let emu: TestEmulator;

useTestEmulator((started) => (emu = started));

async function plan(stack: string, format: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = stack === 'multi-file' ? 'examples/multi-file' : `examples/${stack}.yaml`;
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await runCli(['plan', path, '--format', format], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, NO_COLOR: '1' }, stdout, stderr });
  return { code, stdout: maskVolatile(stdout.text(), emu.url), stderr: stderr.text() };
}

describe('plan output of the example stacks', () => {
  for (const stack of STACKS) {
    for (const { format, ext } of FORMATS) {
      it(`renders ${stack} as ${format} the same as its snapshot`, async () => {
        const result = await plan(stack, format);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).not.toContain(emu.apiKey);
        await expect(result.stdout).toMatchFileSnapshot(`__snapshots__/${stack}.plan.${ext}`);
      });
    }
  }
});
