/**
 * A platform that refuses the whole run (a wrong API key, nothing listening at the base URL):
 * plan, drift and apply stop with one clear error and exit 1, and `apply --format json` still
 * ends its stdout with the change_summary event.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, extraFipBlocks, withExtraFloatingIps, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const RESOURCES = 30;
const WRONG_KEY = 'wrong$key-4f1d';

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

async function setUp(): Promise<{ emu: TestEmulator; stack: string; env: Record<string, string> }> {
  emu = await startTestEmulator({ taskDurationMs: 0, fixtures: withExtraFloatingIps(RESOURCES) });
  const stack = join(writeStackFiles({ 'stack.yaml': `version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${extraFipBlocks(RESOURCES)}` }), 'stack.yaml');
  return { emu, stack, env: emulatorEnv(emu) };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('a refused API key', () => {
  it('apply --format json: one error on stderr, JSON events on stdout ending with change_summary naming it, exit 1', async () => {
    const { emu, stack, env } = await setUp();
    const result = await runCliInProcess(['apply', stack, '--auto-approve', '--format', 'json'], { env: { ...env, EDGEFORM_API_KEY: WRONG_KEY } });

    expect(result.code).toBe(1);
    const refused = new RegExp(`^the platform at ${emu.url} refused the API key in EDGEFORM_API_KEY: GET /cloud/v1/floatingips/.*: 401 Unauthorized`);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^Error: ${refused.source.slice(1)}`))]);
    const events = lines(result.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(['run_error', 'change_summary']);
    expect(events.at(-1)).toMatchObject({
      type: 'change_summary',
      add: 0,
      change: 0,
      destroy: 0,
      failed: 0,
      run_error: { code: 'EDGEFORM_API_KEY_REFUSED', message: expect.stringMatching(refused) },
      resources: [],
    });
    expect(`${result.stdout}${result.stderr}`).not.toContain(WRONG_KEY);
    // The reading stopped: at most the reads already in flight (--parallelism 10), nothing written.
    expect(emu.requests.length).toBeLessThanOrEqual(10);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('apply (text): one error line, nothing else, exit 1', async () => {
    const { stack, env } = await setUp();
    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env: { ...env, EDGEFORM_API_KEY: WRONG_KEY } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/^Error: the platform at .* refused the API key in EDGEFORM_API_KEY: GET .*401 Unauthorized/)]);
  });

  it('plan and drift (text): one error line on stderr, nothing on stdout, exit 1', async () => {
    const { stack, env } = await setUp();
    for (const args of [
      ['plan', stack],
      ['drift', stack],
    ]) {
      const result = await runCliInProcess(args, { env: { ...env, EDGEFORM_API_KEY: WRONG_KEY } });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(lines(result.stderr)).toEqual([expect.stringMatching(/^Error: the platform at .* refused the API key in EDGEFORM_API_KEY/)]);
    }
  });
});

/**
 * With the key refused or the platform down, plan and drift in JSON and Markdown still print
 * their document on stdout (`drift --format json | jq .in_sync` gives a value), besides the one
 * error line on stderr; the key appears nowhere.
 */
describe.each([
  { failure: 'the key refused', code: 'EDGEFORM_API_KEY_REFUSED', override: async () => ({ EDGEFORM_API_KEY: WRONG_KEY }), says: /refused the API key in EDGEFORM_API_KEY/ },
  {
    failure: 'the platform down',
    code: 'EDGEFORM_PLATFORM_UNAVAILABLE',
    override: async () => ({ EDGEFORM_BASE_URL: await closedPort() }),
    says: /is unavailable: .*ECONNREFUSED/,
  },
])('$failure: every format still prints its document', ({ code, override, says }) => {
  it('plan --format json: errored, not applyable, not complete, errors with the code and message, the exit code and its meaning', async () => {
    const { stack, env } = await setUp();
    const result = await runCliInProcess(['plan', stack, '--format', 'json'], { env: { ...env, ...(await override()) } });
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ format_version: '2.4', complete: false, errored: true, applyable: false, exit_code: 1, exit_meaning: 'error: no plan was made' });
    expect(doc.errors).toEqual([{ code, message: expect.stringMatching(says) }]);
    expect(doc.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(says)]);
    expect(`${result.stdout}${result.stderr}`).not.toContain(WRONG_KEY);
  });

  it('drift --format json: in_sync false (never true when it could not tell), errors, exit code 1 meaning an error, not drift', async () => {
    const { stack, env } = await setUp();
    const result = await runCliInProcess(['drift', stack, '--format', 'json'], { env: { ...env, ...(await override()) } });
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ format_version: '1.0', in_sync: false, drifted: [], exit_code: 1, summary: { errors: 1 } });
    expect(doc.exit_meaning).toMatch(/^error: .*not a drift verdict$/);
    expect(doc.errors).toEqual([{ severity: 'error', code, summary: expect.stringMatching(says), detail: null, address: null, range: null }]);
    expect(`${result.stdout}${result.stderr}`).not.toContain(WRONG_KEY);
  });

  it.each(['plan', 'drift'])('%s --format markdown: the sticky marker, the heading and a "could not" section with the error', async (command) => {
    const { stack, env } = await setUp();
    const result = await runCliInProcess([command, stack, '--format', 'markdown'], { env: { ...env, ...(await override()) } });
    expect(result.code).toBe(1);
    const out = result.stdout.split('\n');
    expect(out[0]).toBe(`<!-- edgeform:${command} stack=${stack} -->`);
    expect(out[1]).toBe(`### edgeform ${command} for \`${stack}\``);
    const could = command === 'plan' ? 'Could not plan' : 'Could not compare the platform with the stack';
    expect(out[3]).toBe(`**${could}**: the run stopped before it could (\`${code}\`, exit 1); nothing was changed.`);
    expect(out.slice(5, 8)).toEqual(['```text', expect.stringMatching(says), '```']);
    expect(`${result.stdout}${result.stderr}`).not.toContain(WRONG_KEY);
  });
});

describe('an unreachable platform (nothing listens at the base URL)', () => {
  it('plan, drift and apply: the first refused connection stops the run with one error line, no retry, exit 1', async () => {
    const { stack, env } = await setUp();
    const url = await closedPort();
    for (const args of [
      ['plan', stack],
      ['drift', stack],
      ['apply', stack, '--auto-approve'],
    ]) {
      const result = await runCliInProcess(args, { env: { ...env, EDGEFORM_BASE_URL: url } });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(lines(result.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^Error: the platform at ${url}/? is unavailable: GET \\S+: connection failed \\(.*ECONNREFUSED.*\\); the request never reached the platform; not retried: nothing accepts connections there$`,
          ),
        ),
      ]);
    }
  });

  it('an unresolvable host (.invalid, RFC 6761): one error line saying the name does not resolve, no retry, exit 1', async () => {
    const { stack, env } = await setUp();
    const url = 'https://edgeform-outage-test.invalid';
    const result = await runCliInProcess(['plan', stack], { env: { ...env, EDGEFORM_BASE_URL: url } });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(/^Error: the platform at https:\/\/edgeform-outage-test\.invalid\/? is unavailable: GET .*ENOTFOUND.*not retried: the host name does not resolve$/),
    ]);
  });

  it('every request answered 503: the run-wide outage budget stops it; far fewer requests than 6 per read; no line per retry', async () => {
    const { emu, stack, env } = await setUp();
    emu.faults.set({ failRate: 1 });
    const result = await runCliInProcess(['plan', stack], { env: { ...env } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const errors = lines(result.stderr).filter((l) => l.startsWith('Error: '));
    expect(errors).toEqual([
      expect.stringMatching(
        /^Error: the platform at .* is unavailable: GET .*503 Service Unavailable.*; every request failed for [\d.]+ s \(\d+ attempts, none succeeded\): not retried further$/,
      ),
    ]);
    expect(lines(result.stderr).filter((l) => l.startsWith('Retrying'))).toEqual([]);
    // One read (the floating IP list) at --parallelism 10: a few attempts, not 6 per request.
    expect(emu.requests.length).toBeLessThanOrEqual(4);
  });

  it('apply --format json ends with change_summary naming the platform unavailable', async () => {
    const { stack, env } = await setUp();
    const result = await runCliInProcess(['apply', stack, '--auto-approve', '--format', 'json'], { env: { ...env, EDGEFORM_BASE_URL: await closedPort() } });
    expect(result.code).toBe(1);
    const last = JSON.parse(lines(result.stdout).at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'change_summary', run_error: { code: 'EDGEFORM_PLATFORM_UNAVAILABLE' } });
  });
});
