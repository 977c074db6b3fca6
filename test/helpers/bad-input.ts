import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cmd/run-cli.js';
import { captureStream } from './capture.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from './loopback-server.js';
import { writeStackFiles } from './stack-files.js';

/**
 * The bad-input corpus: every invalid stack of test/fixtures/invalid (exact diagnostics in
 * expected.json) and the huge and pathological ones generated at test time, with what every
 * refusal has in common. Run in-process by test/integration/cli/bad-input*.test.ts and, for the
 * generated ones, as a process with a capped heap by test/e2e/bad-input.test.ts.
 */

/** Where the committed cases live, one folder each. */
export const FIXTURES = 'test/fixtures/invalid';
/** The key every in-process run has: no refusal may print it. */
export const API_KEY = 'test$bad-input-corpus-key-0123456789';
/** Every C0 and C1 control character but tab and newline: what must never reach a terminal raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** A printed diagnostic's first line: FILE:LINE:COL: error: summary. */
export const LOCATED = /^(\S.*):(\d+):(\d+): (error|warning): /gm;
const MAX_OUTPUT = 64 * 1024;
const MB = 1024 * 1024;

/** A diagnostic expected first (or only): its code and where it points. */
export interface Expectation {
  code: string;
  line: number;
  column: number;
}

/** One bad stack and what refusing it must say. */
export interface Case {
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

/** The committed cases of test/fixtures/invalid, sorted by name. */
export function committedCases(): Case[] {
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

/**
 * How big the error-heavy generated cases are. `full` (the e2e run, one process per case with a
 * capped V8 heap, where memory is what is checked): 200,000 errors in one list (near
 * MAX_STACK_VALUES), 60,000 on one 1.3 MB line and 8,000 in as many blocks. `in-process` (the integration files, where
 * the time goes to the diagnostics and to the JSON output's redaction, not to anything that
 * differs with the count): 20,000 errors in one list, still a spread far beyond what the call
 * stack holds (the 200,000 of stack-limits.test.ts check that for the loader), and 6,000 errors on
 * a line padded to the same million characters, each located on it; 2,000 blocks of one error
 * each instead of 8,000. The text view shows 50 of any of them.
 */
export type CaseScale = 'full' | 'in-process';

/** The huge and pathological stacks, written at test time rather than committed. */
export function generatedCases(scale: CaseScale = 'full'): Case[] {
  const listErrors = scale === 'full' ? 200_000 : 20_000;
  const lineErrors = scale === 'full' ? 60_000 : 6_000;
  const blockErrors = scale === 'full' ? 8_000 : 2_000;
  const dir = writeStackFiles({});
  const write = (name: string, text: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, text);
    return path;
  };
  const errorsInBlocks = Array.from({ length: blockErrors }, (_, i) => `  app${i}:\n    type: fastedge_app\n    app_id: -1\n`).join('');
  const tagEntries = Array.from({ length: lineErrors }, (_, i) => `k${i}: [${i}]`).join(', ');
  // Padded with spaces inside the flow mapping to the million characters 60,000 entries make, so
  // every error is located on a line as long as the full case's.
  const tagLine = `${tagEntries}${' '.repeat(Math.max(0, 1_000_000 - tagEntries.length))}`;
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
      name: `a 1.3 MB line with ${lineErrors.toLocaleString('en-US')} errors on it`,
      path: write(
        'long-line-many-errors',
        `version: 1\nresources:\n  ip:\n    type: cloud_floating_ip\n    project_id: 1\n    region_id: 76\n    floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483\n    tags: {${tagLine}}\n`,
      ),
      expected: [{ code: 'invalid-type', line: 8, column: 16 }],
      count: lineErrors,
    },
    {
      name: `${blockErrors.toLocaleString('en-US')} errors`,
      path: write('errors-in-blocks', `version: 1\nresources:\n${errorsInBlocks}`),
      expected: [{ code: 'invalid-value', line: 5, column: 13 }],
      count: blockErrors,
    },
    {
      name: `${listErrors.toLocaleString('en-US')} errors in one list`,
      path: write(
        'errors-in-one-list',
        `version: 1\nchecks:\n  subs:\n    type: streaming_video_subtitles\n    video_id: 1\n    languages: [${Array(listErrors).fill('1').join(', ')}]\n`,
      ),
      expected: [{ code: 'invalid-type', line: 6, column: 17 }],
      count: listErrors,
      heapMb: 384,
    },
    {
      name: '300,000 values',
      path: write('too-many-values', `${HEAD}    app_id: [${'0,'.repeat(300_000)}0]\n`),
      // Over 512 KB and no large mapping to read in slices: refused before it is parsed, where the
      // line breaks and indicators before the values (an upper bound of them) pass 250,000.
      expected: [{ code: 'stack-too-large', line: 5, column: 13 + 2 * 249_991 }],
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
      // Every value counts, keys too: the 249th alias (line 250) crosses 250,000.
      expected: [{ code: 'stack-too-large', line: 250, column: 57 }],
    },
  ];
  return cases.map((c) => ({ ...c, env: {}, exact: false }));
}

/** What every refusal has in common, in any format (`apiKey`: the key the run had). */
export function expectCleanRefusal(code: number | null, stdout: string, stderr: string, apiKey = API_KEY): void {
  expect(code).toBe(1);
  for (const text of [stdout, stderr]) {
    expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(text).not.toContain('bug in edgeform');
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(RAW_CONTROL);
  }
  expect(stdout.length + stderr.length).toBeLessThan(MAX_OUTPUT);
}

/** The output of one in-process run. */
export interface CorpusResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process against a platform that must never be reached. */
export interface CorpusRunner {
  /** `edgeform ARGS` in this process (the same runCli the executable runs), with the corpus' environment and `env`. */
  run(args: string[], env: Record<string, string>): Promise<CorpusResult>;
  /** How many requests the platform has seen so far. */
  requestCount(): number;
}

/**
 * A loopback server that answers 500 to anything and records it (plan and apply point at it:
 * a bad stack must never get there), started before the calling file's tests and stopped after.
 */
export function corpusRunner(): CorpusRunner {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 500, { message: 'a bad stack must never get here' }));
  });
  afterAll(async () => {
    await server.close();
  });
  return {
    async run(args, env) {
      const stdout = captureStream();
      const stderr = captureStream();
      const code = await runCli(args, { env: { NO_COLOR: '1', EDGEFORM_API_KEY: API_KEY, ...env, EDGEFORM_BASE_URL: server.url }, stdout, stderr });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    },
    requestCount: () => server.requests.length,
  };
}

/** Which commands {@link describeRefusals} runs each case through. */
export type RefusingCommands = 'validate' | 'plan and apply';

/**
 * For each case: validate --format json lists exactly the expected located errors; plan and
 * apply refuse it with located errors in text, exit 1, and send nothing. `commands` narrows
 * the run to one of the two, so a file of heavy cases can be split in two for the two workers.
 */
export function describeRefusals(cases: Case[], corpus: CorpusRunner, commands: readonly RefusingCommands[] = ['validate', 'plan and apply']): void {
  describe.each(cases)('$name', (c) => {
    if (commands.includes('validate')) {
      it('validate --format json lists located errors, exactly as expected', async () => {
        const result = await corpus.run(['validate', c.path, '--format', 'json'], c.env);
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
    }

    if (commands.includes('plan and apply')) {
      it.each([['plan'], ['apply', '--auto-approve']])('%s refuses it with located errors in text, exit 1, and sends nothing', async (...command) => {
        const before = corpus.requestCount();
        const result = await corpus.run([...command, c.path], c.env);
        expectCleanRefusal(result.code, result.stdout, result.stderr, c.env.EDGEFORM_API_KEY);
        const located = [...result.stderr.matchAll(LOCATED)];
        expect(located.length).toBe(Math.min(c.count ?? c.expected.length, 50));
        const [first] = located;
        expect(`${first![2]}:${first![3]}`).toBe(`${c.expected[0]!.line}:${c.expected[0]!.column}`);
        expect(corpus.requestCount()).toBe(before);
      });
    }
  });
}
