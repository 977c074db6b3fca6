import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_DIR_ENV } from '../../src/cli/stack-lock.js';
import { driveTasks, emulatorEnv, writesSeen } from '../helpers/apply.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { RESIZE_POST, TWO_BRANCHES } from '../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { applySessions, testPostgres, type TestPostgres } from '../helpers/postgres.js';
import { writeStackFiles } from '../helpers/stack-files.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The lock across machines with real processes: two applies of one named stack on two
 * "machines" (two processes, each in its own checkout with its own lock directory, sharing only
 * the test run's PostgreSQL server), and a holder killed with SIGKILL, whose lock the server
 * releases with its session, so the next apply runs at once.
 */
let db: TestPostgres;
beforeAll(async () => void (db = await testPostgres()));

let emu: TestEmulator | undefined;
const running: RunningCli[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  await emu?.close();
  emu = undefined;
});

/** One machine: a checkout of the stack (its own directory) and its own lock directory. */
function machine(name: string): { cwd: string; env: Record<string, string> } {
  return {
    cwd: writeStackFiles({ 'stack.yaml': `name: ${name}\n${TWO_BRANCHES}` }),
    env: { ...emulatorEnv(emu!), [LOCK_DIR_ENV]: mkdtempSync(join(tmpdir(), 'edgeform-locks-')), EDGEFORM_LOCK_URL: db.url },
  };
}

/** Starts an apply on a machine and resolves once it holds its locks and waits on web_vm's resize (the clock is manual). */
async function holding(on: { cwd: string; env: Record<string, string> }): Promise<RunningCli> {
  const cli = startCli(['apply', 'stack.yaml', '--auto-approve'], on);
  running.push(cli);
  await waitFor(() => writesSeen(emu!).includes(RESIZE_POST) || cli.child.exitCode !== null, { what: 'the first apply to resize web_vm' });
  expect(cli.child.exitCode).toBeNull();
  return cli;
}

const sessions = async (name: string) => (await applySessions(db, name)).length;

describe('the apply lock across machines, with real processes', () => {
  it('refuses the apply on the second machine while the first holds the lock, naming the holder; the first then finishes', async () => {
    emu = await startTestEmulator();
    const name = `two-machines-${process.pid}`;
    const first = await holding(machine(name));
    const second = machine(name);
    const refused = await runCli(['apply', 'stack.yaml', '--auto-approve'], second);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `another edgeform apply of the stack named "${name}" on ${emu.url} is running: it is locked by \`edgeform apply stack.yaml --auto-approve\` (pid ${first.child.pid} on host ${hostname()}, since `,
    );
    expect(refused.stderr + refused.stdout).not.toContain(db.password);
    expect(writesSeen(emu).filter((w) => w === RESIZE_POST)).toHaveLength(1);
    const done = await driveTasks(emu, first.exited);
    expect(done.code).toBe(0);
  });

  it('lets the next apply run at once when the holder was killed with SIGKILL: the server ends its session and its lock', async () => {
    emu = await startTestEmulator();
    const name = `killed-${process.pid}`;
    const first = await holding(machine(name));
    expect(await sessions(name)).toBe(1);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    // The kernel closed its connection; the server ends the session and so releases the lock (no stale-lock timeout).
    await waitFor(async () => (await sessions(name)) === 0, { what: "the killed apply's session to end" });
    const next = machine(name);
    const result = await driveTasks(emu, runCli(['apply', 'stack.yaml', '--auto-approve'], next));
    expect(result.stderr).not.toContain('is locked by');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Apply complete!');
  });
});
