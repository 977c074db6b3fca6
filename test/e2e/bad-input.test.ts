import { describe, expect, it } from 'vitest';
import { expectCleanRefusal, generatedCases } from '../helpers/bad-input.js';
import { runCli } from '../helpers/cli.js';

/**
 * The generated huge and pathological stacks of the bad-input corpus (test/helpers/bad-input.ts)
 * through the built executable, whose V8 heap is capped (192 MB; 384 MB for 200,000 errors), so
 * "bounded memory" is a crash away from failing, not a wall clock. Their diagnostics are held
 * in-process by test/integration/cli/bad-input.test.ts.
 */

const generated = generatedCases();

describe('the bad-input corpus', () => {
  describe.each(generated)('$name, as a process with a bounded heap', (c) => {
    it('exits 1 with bounded output', async () => {
      const result = await runCli(['validate', c.path], { env: { NODE_OPTIONS: `--max-old-space-size=${c.heapMb ?? 192}` } });
      expect(result.signal).toBeNull();
      expectCleanRefusal(result.code, result.stdout, result.stderr);
      expect(result.stderr.trimEnd()).toMatch(/\d+ errors?, \d+ warnings?$/);
      if ((c.count ?? 0) > 50) expect(result.stderr).toContain(`... and ${c.count! - 50} more errors not shown`);
    });
  });
});
