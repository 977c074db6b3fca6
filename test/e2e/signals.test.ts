import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { writeStackFiles } from '../helpers/stack-files.js';

/**
 * Signals reach edgeform at awkward moments: while node is still loading the command line,
 * and in the middle of validating a large stack. The moments are found through /proc (when
 * the process catches the signal; how much CPU it has used), not by sleeping.
 */

/**
 * True once edgeform has its own signal handlers in place. Node catches SIGINT and SIGTERM
 * from its first instant (to restore the terminal, then die by the signal), so SigCgt cannot
 * tell; the entry point names the process "edgeform ..." right after installing its handlers.
 */
function handlesSignals(pid: number): boolean {
  return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('edgeform');
}

/** CPU seconds the process has used (utime + stime of /proc/PID/stat, at 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Polls until `ready` holds for the running CLI (the test's timeout bounds it); fails if it exits first. */
async function until(cli: RunningCli, ready: (pid: number) => boolean): Promise<void> {
  for (;;) {
    if (cli.child.exitCode !== null || cli.child.signalCode !== null) throw new Error(`the CLI exited first:\n${cli.stderr}`);
    if (ready(cli.child.pid!)) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * A stack of `n` fastedge_app blocks: valid, or each with one error. 40,000 blocks take about
 * 1.5 s of CPU to read and validate on the 2-core CI machine, so a signal sent after 0.5 s of
 * CPU lands while the stack is being loaded, before anything is sent.
 */
function bigStack(n: number, valid: boolean): string {
  const blocks = Array.from({ length: n }, (_, i) => `  app${i}:\n    type: fastedge_app\n    app_id: ${valid ? i + 1 : -1}\n`);
  return join(writeStackFiles({ 'stack.yaml': `version: 1\nresources:\n${blocks.join('')}` }), 'stack.yaml');
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => sendJson(res, 404, { message: 'not found' }));
});
afterAll(async () => {
  await server.close();
});

describe.skipIf(process.platform !== 'linux')('signals', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('exits 130 on %s from the first moment it can catch one, while still starting up', async (signal) => {
    const cli = startCli(['validate', 'examples/quickstart.yaml']);
    await until(cli, handlesSignals);
    cli.child.kill(signal);
    const result = await cli.exited;
    expect(result).toMatchObject({ code: 130, signal: null, stdout: '' });
    expect(result.stderr).toBe(`\nInterrupted (${signal}); stopping. Nothing was changed.\n`);
  });

  it('exits 130 on SIGTERM in the middle of validating a large stack, before printing its diagnostics', async () => {
    const cli = startCli(['validate', bigStack(40_000, false)]);
    await until(cli, (pid) => handlesSignals(pid) && cpuSeconds(pid) >= 1);
    cli.child.kill('SIGTERM');
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).not.toContain('errors, 0 warnings');
  });

  it('plan interrupted while reading a large stack exits 130 and sends no request', async () => {
    const requests = server.requests.length;
    const cli = startCli(['plan', bigStack(40_000, true)], { env: { EDGEFORM_BASE_URL: server.url, EDGEFORM_API_KEY: 'test$signals-key-0123456789' } });
    await until(cli, (pid) => handlesSignals(pid) && cpuSeconds(pid) >= 0.5);
    cli.child.kill('SIGINT');
    const result = await cli.exited;
    expect(result.code).toBe(130);
    expect(server.requests.length).toBe(requests);
  });
});
