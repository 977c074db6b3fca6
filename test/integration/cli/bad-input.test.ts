import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runCliInProcess } from '../../../cmd/run-cli.js';
import { captureStream } from '../../helpers/capture.js';
import { API_KEY, committedCases, expectCleanRefusal, FIXTURES, generatedCases, LOCATED } from '../../helpers/bad-input.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';

/**
 * The bad-input corpus through the command line: every invalid stack of test/fixtures/invalid
 * (82 files, exact diagnostics in expected.json) and the huge ones generated here into a
 * temporary directory. Each must be refused with located errors and exit 1, without a stack
 * trace or "bug in edgeform", without a raw control character or the API key in the output,
 * with bounded output, and with nothing sent to the platform (plan and apply point at a
 * loopback server that records every request). The generated ones also run as a process whose
 * V8 heap is capped (test/e2e/bad-input.test.ts).
 */

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => sendJson(res, 500, { message: 'a bad stack must never get here' }));
});
afterAll(async () => {
  await server.close();
});

/** `edgeform ARGS` in this process (the same runCli the executable runs), with the corpus' environment. */
async function run(args: string[], env: Record<string, string>) {
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await runCliInProcess(args, { env: { NO_COLOR: '1', EDGEFORM_API_KEY: API_KEY, ...env, EDGEFORM_BASE_URL: server.url }, stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const committed = committedCases();
const generated = generatedCases();

describe('the bad-input corpus', () => {
  it('has at least 60 bad stacks', () => {
    expect(committed.length + generated.length).toBeGreaterThanOrEqual(60);
  });

  describe.each([...committed, ...generated])('$name', (c) => {
    it('validate --format json lists located errors, exactly as expected', async () => {
      const result = await run(['validate', c.path, '--format', 'json'], c.env);
      expect(result.stderr).toBe('');
      const doc = JSON.parse(result.stdout) as {
        valid: boolean;
        error_count: number;
        diagnostics: Array<{ code: string; range: { start: { line: number; column: number } } | null }>;
      };
      expect(doc.valid).toBe(false);
      const actual = doc.diagnostics.map((d) => ({ code: d.code, line: d.range?.start.line ?? 0, column: d.range?.start.column ?? 0 }));
      if (c.exact) expect(actual).toEqual(c.expected);
      else expect(actual.slice(0, c.expected.length)).toEqual(c.expected);
      expect(doc.diagnostics.length).toBe(c.count ?? doc.diagnostics.length);
      expect(doc.diagnostics.every((d) => d.range !== null)).toBe(true);
      // JSON lists everything; only the text view is bounded.
      if (!c.count) expectCleanRefusal(result.code, result.stdout, result.stderr, c.env.EDGEFORM_API_KEY);
    });

    it.each([['plan'], ['apply', '--auto-approve']])('%s refuses it with located errors in text, exit 1, and sends nothing', async (...command) => {
      const before = server.requests.length;
      const result = await run([...command, c.path], c.env);
      expectCleanRefusal(result.code, result.stdout, result.stderr, c.env.EDGEFORM_API_KEY);
      const located = [...result.stderr.matchAll(LOCATED)];
      expect(located.length).toBe(Math.min(c.count ?? c.expected.length, 50));
      const [first] = located;
      expect(`${first![2]}:${first![3]}`).toBe(`${c.expected[0]!.line}:${c.expected[0]!.column}`);
      expect(server.requests.length).toBe(before);
    });
  });

  it('refuses a path that is not a regular file (/dev/zero would never end)', async () => {
    const result = await run(['validate', '/dev/zero'], {});
    expectCleanRefusal(result.code, result.stdout, result.stderr);
    expect(result.stderr).toContain('error: cannot read /dev/zero: not a regular file');
  });

  it('prints the escapes, not the control characters, of a key that holds an OSC hyperlink', async () => {
    const result = await run(['validate', join(FIXTURES, 'escaped-control-in-key/stack.yaml')], {});
    expect(result.stderr).toContain('error: unknown field "\\x1b]0;owned\\x07\\x1b[31mred" in fastedge_app');
  });

  it('cuts the frame of a 2 MB value to a window, so the error costs a few hundred bytes', async () => {
    const path = generated.find((c) => c.name === 'a 2 MB value')!.path;
    const result = await run(['validate', path], {});
    expect(result.stderr.length).toBeLessThan(2_000);
    expect(result.stderr).toMatch(/> 5 \| {5}app_id: "x+…\n/);
  });
});
