import { describe, expect, it } from 'vitest';
import { NUMERIC_OPTION_NAMES, emulatorFlag } from '../../../src/emulator/index.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';

/**
 * `edgeform emulator` refuses bad flags before it listens. Serving, the banner and stopping on
 * SIGTERM need the built executable (test/e2e/emulator.test.ts).
 */
describe('edgeform emulator flags', () => {
  it('rejects a seed that is not a whole number from 0 to 2^32 - 1', async () => {
    const { code, stderr } = await runCliInProcess(['emulator', '--seed', '-3']);
    expect(code).toBe(1);
    expect(stderr).toContain('--seed must be a whole number from 0 to 4294967295');
  });

  it('rejects a fail rate above 1 with a clear message and exit 1', async () => {
    const { code, stderr } = await runCliInProcess(['emulator', '--fail-rate', '1.5']);
    expect(code).toBe(1);
    expect(stderr).toContain('--fail-rate must be a probability between 0 and 1');
  });

  it('takes every numeric emulator option as a flag and checks it against the same range', async () => {
    for (const name of NUMERIC_OPTION_NAMES) {
      const flag = emulatorFlag(name);
      const args = ['emulator', ...(flag === 'port' ? [] : ['--port', '0']), `--${flag}`, '-1'];
      // A flag the CLI ignored would start the emulator instead of failing, and the run would not end: fail then.
      let timer: NodeJS.Timeout | undefined;
      const stillServing = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`--${flag} -1 started the emulator instead of failing`)), 10_000);
      });
      const { code, stderr } = await Promise.race([runCliInProcess(args), stillServing]).finally(() => clearTimeout(timer));
      expect({ flag, code, stderr }).toEqual({ flag, code: 1, stderr: expect.stringContaining(`--${flag} must be a `) });
    }
  });
});
