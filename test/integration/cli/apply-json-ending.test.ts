/**
 * `apply --format json` ends every run with one change_summary event on stdout, whatever
 * stopped it: an invalid stack, a plan with errors, a platform that is down, no terminal to
 * approve on. stdout holds JSON lines only; every line parses.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started), { taskDurationMs: 0 });

const env = () => ({ EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' });

/** The JSON events on stdout (every line must parse) and the last one. */
function events(stdout: string): { all: Array<Record<string, unknown>>; last: Record<string, unknown> } {
  const all = stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { all, last: all.at(-1)! };
}

const stack = (yaml: string) => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');

describe('apply --format json ends with change_summary', () => {
  it('an invalid stack: run_error EDGEFORM_INVALID_STACK naming the first problem, nothing sent, exit 1', async () => {
    const file = stack('version: 1\nresources:\n  ip: { type: cloud_floating_ip, project_id: 1, region_id: 76, colour: red }\n');
    const result = await runCliInProcess(['apply', file, '--auto-approve', '--format', 'json'], { env: env() });
    expect(result.code).toBe(1);
    const { all, last } = events(result.stdout);
    expect(all.map((e) => e.type)).toEqual(['run_error', 'change_summary']);
    expect(last).toMatchObject({ type: 'change_summary', add: 0, change: 0, destroy: 0, resources: [], run_error: { code: 'EDGEFORM_INVALID_STACK' } });
    expect((last.run_error as { message: string }).message).toMatch(
      /^the stack is not valid \(1 error, 0 warnings; first: .*stack\.yaml:3:\d+: .*colour.*\); nothing was read or changed$/,
    );
    expect(result.stderr).toContain('colour');
    expect(emu.requests).toEqual([]);
  });

  it('a plan with errors: run_error EDGEFORM_PLAN_ERRORED naming the failed read, nothing applied, exit 1', async () => {
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', status: 403 });
    const result = await runCliInProcess(['apply', 'examples/quickstart.yaml', '--auto-approve', '--format', 'json'], { env: env() });
    expect(result.code).toBe(1);
    const { all, last } = events(result.stdout);
    expect(all.map((e) => e.type)).toEqual(['run_error', 'change_summary']);
    expect(last).toMatchObject({ type: 'change_summary', resources: [], run_error: { code: 'EDGEFORM_PLAN_ERRORED' } });
    expect((last.run_error as { message: string }).message).toMatch(/^the plan has errors \(1 error, .*cloud_instance\.web_vm.*Forbidden.*\); nothing was applied$/);
    expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('the platform down: run_error EDGEFORM_PLATFORM_UNAVAILABLE, exit 1', async () => {
    const result = await runCliInProcess(['apply', 'examples/quickstart.yaml', '--auto-approve', '--format', 'json'], { env: { ...env(), EDGEFORM_BASE_URL: await closedPort() } });
    expect(result.code).toBe(1);
    expect(events(result.stdout).last).toMatchObject({ type: 'change_summary', run_error: { code: 'EDGEFORM_PLATFORM_UNAVAILABLE' } });
  });

  it('no terminal to approve on: run_error EDGEFORM_APPROVAL_UNAVAILABLE, nothing changed, exit 1', async () => {
    const result = await runCliInProcess(['apply', 'examples/quickstart.yaml', '--format', 'json'], { env: env() });
    expect(result.code).toBe(1);
    expect(events(result.stdout).last).toMatchObject({ type: 'change_summary', resources: [], run_error: { code: 'EDGEFORM_APPROVAL_UNAVAILABLE' } });
    expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
