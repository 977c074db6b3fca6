import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../cmd/run-cli.js';
import { captureStream } from '../../helpers/capture.js';
import { cliEnv } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { sendJson, startLoopbackServer } from '../../helpers/loopback-server.js';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started));

const platform = (extra: Record<string, string | undefined> = {}) => ({ EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, ...extra });

/** Runs edgeform with a stderr that claims to be a terminal (or not): what a user at a terminal sees. */
async function runWithStderr(args: string[], env: Record<string, string | undefined>, isTTY: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = captureStream();
  const stderr = captureStream({ isTTY });
  const code = await runCli(args, { env: cliEnv(env), stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('reading progress', () => {
  it('draws "Reading N/TOTAL" on a terminal, in place, and erases it before the plan is printed', async () => {
    const result = await runWithStderr(['plan', 'examples/quickstart.yaml'], platform({ CI: undefined }), true);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^\rReading \d+\/9/);
    expect(result.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(result.stdout).not.toContain('Reading');
  });

  it('draws no live line in CI or when stderr is not a terminal, and no periodic line for a read shorter than its interval', async () => {
    // The periodic "Reading N/TOTAL resources…" line is held by the clock-driven unit test
    // (test/unit/cli/run-reporter.test.ts); an hour's interval keeps this run's stderr empty on any machine.
    const interval = { EDGEFORM_PROGRESS_INTERVAL: '3600000' };
    expect((await runWithStderr(['plan', 'examples/quickstart.yaml'], platform({ CI: 'true', ...interval }), true)).stderr).toBe('');
    expect((await runWithStderr(['plan', 'examples/quickstart.yaml'], platform({ CI: undefined, ...interval }), false)).stderr).toBe('');
  });
});

describe('retries', () => {
  it('a wait the platform asks for of a second or more prints one line saying so; short ones only in the debug log', async () => {
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', status: 503, count: 1, retryAfter: 1 });
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform() });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((l) => l !== '')).toEqual(['platform answered 503, retrying in 1.0 s']);
  });

  it('EDGEFORM_LOG=debug logs every retry, naming the request and why', async () => {
    const path = `/cloud/v1/instances/1/76/${DEMO.instance}`;
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', status: 503, count: 2 });
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG: 'debug' }) });
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('debug: retrying'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^debug: retrying GET ${path} in [\\d.]+ m?s: attempt 1 failed \\(HTTP 503\\)$`));
    expect(lines[1]).toContain('attempt 2 failed (HTTP 503)');
  });
});

describe('EDGEFORM_LOG=debug', () => {
  it('logs every request and answer on stderr: method, path, status, time in ms, request id', async () => {
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml', '--format', 'json'], { env: platform({ EDGEFORM_LOG: 'debug' }) });
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('debug: '));
    expect(lines.length).toBe(emu.requests.length);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^debug: GET /cloud/v1/instances/1/76/${DEMO.instance} -> 200 in \\d+ ms \\[request id [0-9a-f-]+\\]$`)));
    expect(JSON.parse(result.stdout).errored).toBe(false);
  });

  it('logs nothing without it', async () => {
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG: undefined }) });
    expect(result.stderr).not.toContain('debug:');
  });

  it('names the request id header and never shows the key (keys contain $), even when the platform echoes it', async () => {
    const key = '4242$SuperSecretTokenValue1234567890abcdef';
    const server = await startLoopbackServer((_req, res) => sendJson(res, 401, { message: `invalid key ${key}` }, { 'x-request-id': `req-${key}` }));
    try {
      const result = await runCliInProcess(['plan', 'examples/cleanup.yaml'], { env: { EDGEFORM_BASE_URL: server.url, EDGEFORM_API_KEY: key, EDGEFORM_LOG: 'debug' } });
      expect(result.code).toBe(1);
      const lines = result.stderr.split('\n').filter((l) => l.startsWith('debug: '));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines[0]).toMatch(/^debug: GET \/\S+ -> HTTP 401 in \d+ ms \[request id req-\[REDACTED\]\]$/);
      for (const text of [result.stdout, result.stderr]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain('SuperSecretToken');
      }
    } finally {
      await server.close();
    }
  });
});

describe('EDGEFORM_LOG levels and EDGEFORM_LOG_PATH', () => {
  const logFile = () => join(mkdtempSync(join(tmpdir(), 'edgeform-log-')), 'edgeform.log');

  it('appends the request log to the file, each line timestamped, and keeps it off stderr', async () => {
    const path = logFile();
    writeFileSync(path, 'an earlier run\n');
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG: 'trace', EDGEFORM_LOG_PATH: path }) });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('trace:');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('an earlier run');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z trace: GET /cloud/v1/instances/1/76/${DEMO.instance} -> 200 in \\d+ ms`)));
  });

  it('logs at debug when only EDGEFORM_LOG_PATH is set', async () => {
    const path = logFile();
    await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG: undefined, EDGEFORM_LOG_PATH: path }) });
    expect(readFileSync(path, 'utf8')).toMatch(/Z debug: GET /);
  });

  it('never writes the key to the file, even when the platform echoes it', async () => {
    const key = '4242$SuperSecretTokenValue1234567890abcdef';
    const path = logFile();
    const server = await startLoopbackServer((_req, res) => sendJson(res, 401, { message: `invalid key ${key}` }, { 'x-request-id': `req-${key}` }));
    try {
      await runCliInProcess(['plan', 'examples/cleanup.yaml'], { env: { EDGEFORM_BASE_URL: server.url, EDGEFORM_API_KEY: key, EDGEFORM_LOG: 'debug', EDGEFORM_LOG_PATH: path } });
    } finally {
      await server.close();
    }
    const log = readFileSync(path, 'utf8');
    expect(log).toContain('[request id req-[REDACTED]]');
    expect(log).not.toContain('SuperSecretToken');
  });

  it('refuses an unknown level by name, and a log file it cannot write, before reading anything', async () => {
    const unknown = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG: 'verbose' }) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('EDGEFORM_LOG=verbose is not a log level; use one of off, error, warn, info, debug, trace');
    const unwritable = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform({ EDGEFORM_LOG_PATH: join(tmpdir(), 'no-such-dir-edgeform', 'x.log') }) });
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toContain('EDGEFORM_LOG_PATH: cannot write the log to');
    expect(emu.requests).toEqual([]);
  });
});
