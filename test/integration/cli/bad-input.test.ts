import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedCases, corpusRunner, describeRefusals, expectCleanRefusal, FIXTURES } from '../../helpers/bad-input.js';

/**
 * The bad-input corpus through the command line, in-process: every invalid stack of
 * test/fixtures/invalid (82 files, exact diagnostics in expected.json; the generated huge ones
 * are in bad-input-generated.test.ts).
 * Each must be refused with located errors and exit 1, without a stack trace or "bug in
 * edgeform", without a raw control character or the API key in the output, with bounded output,
 * and with nothing sent to the platform (plan and apply point at a loopback server that records
 * every request).
 */

const corpus = corpusRunner();

describe('the bad-input corpus', () => {
  describeRefusals(committedCases(), corpus);

  it('refuses a path that is not a regular file (/dev/zero would never end)', async () => {
    const result = await corpus.run(['validate', '/dev/zero'], {});
    expectCleanRefusal(result.code, result.stdout, result.stderr);
    expect(result.stderr).toContain('error: cannot read /dev/zero: not a regular file');
  });

  it('prints the escapes, not the control characters, of a key that holds an OSC hyperlink', async () => {
    const result = await corpus.run(['validate', join(FIXTURES, 'escaped-control-in-key/stack.yaml')], {});
    expect(result.stderr).toContain('error: unknown field "\\x1b]0;owned\\x07\\x1b[31mred" in fastedge_app');
  });
});
