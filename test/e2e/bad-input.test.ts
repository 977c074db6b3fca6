import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as runCliInProcess } from '../../cmd/run-cli.js';
import { captureStream } from '../helpers/capture.js';
import { runCli } from '../helpers/cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { writeStackFiles } from '../helpers/stack-files.js';

/**
 * The bad-input corpus through the command line: every invalid stack of test/fixtures/invalid
 * (82 files, exact diagnostics in expected.json) and the huge ones generated here into a
 * temporary directory. Each must be refused with located errors and exit 1, without a stack
 * trace or "bug in edgeform", without a raw control character or the API key in the output,
 * with bounded output, and with nothing sent to the platform (plan and apply point at a
 * loopback server that records every request). The generated ones also run as a process whose
 * V8 heap is capped (192 MB; 384 MB for 200,000 errors), so "bounded memory" is a crash away
 * from failing, not a wall clock.
 */

const FIXTURES = 'test/fixtures/invalid';
const API_KEY = 'test$bad-input-corpus-key-0123456789';
/** Every C0 and C1 control character but tab and newline: what must never reach a terminal raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** A printed diagnostic's first line: FILE:LINE:COL: error: summary. */
const LOCATED = /^(\S.*):(\d+):(\d+): (error|warning): /gm;
const MAX_OUTPUT = 64 * 1024;
const MB = 1024 * 1024;

interface Expectation {
  code: string;
  line: number;
  column: number;
}

interface Case {
  name: string;
  path: string;
  env: Record<string, string>;
  /** The diagnostics JSON must hold exactly these (committed cases) or start with them (generated). */
  expected: Expectation[];
  exact: boolean;
  /** How many diagnostics there are when the expected list only starts them. */
  count?: number;
  /** The V8 heap the process may use, in MB (default 192). */
  heapMb?: number;
}

function committedCases(): Case[] {
  return readdirSync(FIXTURES)
    .sort()
    .map((name) => {
      const dir = join(FIXTURES, name);
      const envFile = join(dir, 'env.json');
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Array<Expectation & { line: number | null; column: number | null }>;
      return {
        name,
        path: existsSync(join(dir, 'stack.yaml')) ? join(dir, 'stack.yaml') : join(dir, 'stack'),
        env: existsSync(envFile) ? (JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>) : {},
        expected: expected.map((d) => ({ code: d.code, line: d.line ?? 0, column: d.column ?? 0 })),
        exact: true,
      };
    });
}

const HEAD = 'version: 1\nresources:\n  app:\n    type: fastedge_app\n';

/** The huge and pathological stacks, written at test time rather than committed. */
function generatedCases(): Case[] {
  const dir = writeStackFiles({});
  const write = (name: string, text: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, text);
    return path;
  };
  const errors8000 = Array.from({ length: 8_000 }, (_, i) => `  app${i}:\n    type: fastedge_app\n    app_id: -1\n`).join('');
  const tagLine = Array.from({ length: 60_000 }, (_, i) => `k${i}: [${i}]`).join(', ');
  const anchor = `[${Array(1_000).fill('fastedge_app.other').join(', ')}]`;
  const aliased = Array.from({ length: 999 }, (_, i) => `  app${i + 1}: {type: fastedge_app, app_id: ${i + 2}, depends_on: *big}\n`).join('');
  const cases: Array<Omit<Case, 'env' | 'exact'>> = [
    {
      name: 'a 17 MiB file',
      path: write('huge-file', `version: 1\n${`# ${'x'.repeat(1_000)}\n`.repeat(17 * 1_024)}`),
      expected: [{ code: 'stack-too-large', line: 1, column: 1 }],
    },
    {
      name: 'a 20 MB one-line value',
      path: write('twenty-mb-line', `${HEAD}    app_id: "${'x'.repeat(20_000_000)}"\n`),
      expected: [{ code: 'stack-too-large', line: 1, column: 1 }],
    },
    { name: 'a 2 MB value', path: write('two-mb-value', `${HEAD}    app_id: "${'x'.repeat(2 * MB)}"\n`), expected: [{ code: 'value-too-long', line: 5, column: 13 }] },
    {
      name: 'a 1.3 MB line with 60,000 errors on it',
      path: write(
        'long-line-many-errors',
        `version: 1\nresources:\n  ip:\n    type: cloud_floating_ip\n    project_id: 1\n    region_id: 76\n    floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483\n    tags: {${tagLine}}\n`,
      ),
      expected: [{ code: 'invalid-type', line: 8, column: 16 }],
      count: 60_000,
    },
    { name: '8,000 errors', path: write('errors-8000', `version: 1\nresources:\n${errors8000}`), expected: [{ code: 'invalid-value', line: 5, column: 13 }], count: 8_000 },
    {
      name: '200,000 errors in one list',
      path: write('errors-200000', `version: 1\nchecks:\n  subs:\n    type: streaming_video_subtitles\n    video_id: 1\n    languages: [${Array(200_000).fill('1').join(', ')}]\n`),
      expected: [{ code: 'invalid-type', line: 6, column: 17 }],
      count: 200_000,
      heapMb: 384,
    },
    {
      name: '300,000 values',
      path: write('too-many-values', `${HEAD}    app_id: [${'0,'.repeat(300_000)}0]\n`),
      expected: [{ code: 'stack-too-large', line: 5, column: 14 + 2 * 249_992 }],
    },
    {
      name: '100,000 nested flow lists',
      path: write('deep-flow', `${HEAD}    app_id: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`),
      expected: [{ code: 'too-deep', line: 5, column: 13 + 61 }],
    },
    { name: '50,000 nested block lists', path: write('deep-block', `${'- '.repeat(50_000)}1\n`), expected: [{ code: 'too-deep', line: 1, column: 2 * 64 + 1 }] },
    {
      name: 'a 1,000-value anchor aliased 1,000 times',
      path: write('alias-amplification', `version: 1\nresources:\n  app0: {type: fastedge_app, app_id: 1, depends_on: &big ${anchor}}\n${aliased}`),
      expected: [{ code: 'stack-too-large', line: 251, column: 57 }],
    },
  ];
  return cases.map((c) => ({ ...c, env: {}, exact: false }));
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => sendJson(res, 500, { message: 'a bad stack must never get here' }));
});
afterAll(async () => {
  await server.close();
});

/** What every refusal has in common, in any format (`apiKey`: the key the run had). */
function expectCleanRefusal(code: number | null, stdout: string, stderr: string, apiKey = API_KEY): void {
  expect(code).toBe(1);
  for (const text of [stdout, stderr]) {
    expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(text).not.toContain('bug in edgeform');
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(RAW_CONTROL);
  }
  expect(stdout.length + stderr.length).toBeLessThan(MAX_OUTPUT);
}

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

  describe.each(generated)('$name, as a process with a bounded heap', (c) => {
    it('exits 1 with bounded output', async () => {
      const result = await runCli(['validate', c.path], { env: { NODE_OPTIONS: `--max-old-space-size=${c.heapMb ?? 192}` } });
      expect(result.signal).toBeNull();
      expectCleanRefusal(result.code, result.stdout, result.stderr);
      expect(result.stderr.trimEnd()).toMatch(/\d+ errors?, \d+ warnings?$/);
      if ((c.count ?? 0) > 50) expect(result.stderr).toContain(`... and ${c.count! - 50} more errors not shown`);
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
