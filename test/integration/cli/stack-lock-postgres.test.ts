import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { advisoryLockKey } from '../../../src/cli/postgres-lock.js';
import { LOCK_DIR_ENV, stackLockKey } from '../../../src/cli/stack-lock.js';
import { driveTasks, emulatorEnv, holdWithApply, writesSeen } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { TWO_BRANCHES } from '../../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator, cleanupAfterEach } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';
import { applySessionQueries, applySessions, testPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The apply lock across machines (EDGEFORM_LOCK_URL): a PostgreSQL advisory lock on the test
 * run's real server. Two "machines" are two lock directories (EDGEFORM_LOCK_DIR) and two copies
 * of the stack, so only the database can exclude them; the holding apply waits on the
 * emulator's manual clock (TWO_BRANCHES resizes web_vm) until the test drives its tasks.
 */
let db: TestPostgres;
beforeAll(async () => void (db = await testPostgres()));

const cleanup = cleanupAfterEach();

async function emulator(): Promise<TestEmulator> {
  const emu = await startTestEmulator();
  cleanup.push(() => emu.close());
  return emu;
}

let stacks = 0;
/** A named stack (a fresh name per test: the lock's key) in a directory of its own: one machine's checkout. */
const checkout = (name: string) => join(writeStackFiles({ 'stack.yaml': `name: ${name}\n${TWO_BRANCHES}` }), 'stack.yaml');
const uniqueName = () => `fleet-${process.pid}-${++stacks}`;
/** The environment of one machine: its own lock directory, the shared database. */
const machine = (emu: TestEmulator, extra: Record<string, string> = {}) => ({
  ...emulatorEnv(emu),
  [LOCK_DIR_ENV]: mkdtempSync(join(tmpdir(), 'edgeform-locks-')),
  EDGEFORM_LOCK_URL: db.url,
  ...extra,
});

const sessionsOf = (name: string) => applySessions(db, name);

/** What the output may never hold: the database password, as written or URL-encoded. */
const expectNoPassword = (result: CliResult) => {
  for (const form of [db.password, encodeURIComponent(db.password)]) expect(result.stdout + result.stderr).not.toContain(form);
};

describe('the apply lock across machines (EDGEFORM_LOCK_URL)', () => {
  it('refuses an apply of the same named stack on another machine while one holds it, naming the holder and its CI job, sending nothing', async () => {
    const emu = await emulator();
    const name = uniqueName();
    const job = { GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/stacks', GITHUB_RUN_ID: '4242' };
    const stackA = checkout(name);
    const holder = await holdWithApply(emu, stackA, machine(emu, job), cleanup);
    // The holder's session is named after what applies.
    expect(await sessionsOf(name)).toEqual([`edgeform apply ${name} on ${hostname()} https://github.example/acme/stacks/actions/runs/4242`.slice(0, 63)]);

    const writes = writesSeen(emu).length;
    const refused = await runCliInProcess(['apply', checkout(name), '--auto-approve'], { env: machine(emu, { CI_JOB_URL: 'https://gitlab.example/-/jobs/1' }) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `another edgeform apply of the stack named "${name}" on ${emu.url} is running: it is locked by \`edgeform apply ${stackA} --auto-approve\` (pid ${process.pid} on host ${hostname()}, since `,
    );
    expect(refused.stderr).toContain(', job https://github.example/acme/stacks/actions/runs/4242)');
    const key = advisoryLockKey(stackLockKey(name, emu.url));
    expect(refused.stderr).toContain(`(lock PostgreSQL advisory lock ${key} at postgres://edgeform:***@127.0.0.1:`);
    expect(refused.stderr).toContain('The database releases it as soon as that apply ends, or its process or machine dies');
    expect(writesSeen(emu).length).toBe(writes);
    expectNoPassword(refused);

    expect((await holder.finish()).code).toBe(0);
    // Released with the apply: the session is gone, and the next apply runs.
    await waitFor(async () => (await sessionsOf(name)).length === 0, { what: 'the holding session to end' });
    expect((await driveTasks(emu, runCliInProcess(['apply', checkout(name), '--auto-approve'], { env: machine(emu) }))).code).toBe(0);
  });

  it('--lock-timeout waits for the holder with backoff, then applies; a shorter wait ends refused', async () => {
    const emu = await emulator();
    const name = uniqueName();
    const holder = await holdWithApply(emu, checkout(name), machine(emu), cleanup);
    const short = await runCliInProcess(['apply', checkout(name), '--auto-approve', '--lock-timeout', '1s'], { env: machine(emu) });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(`Waiting: waiting up to 1 s (--lock-timeout) for the stack named "${name}" on ${emu.url}, locked by \`edgeform apply `);
    expect(short.stderr).toContain('is running: it is locked by');

    // The refused apply's session has ended (only the holder's is left), so a refusal seen below is the waiter's.
    await waitFor(async () => (await sessionsOf(name)).length === 1, { what: 'the refused apply to close its session' });
    const waiter = runCliInProcess(['apply', checkout(name), '--auto-approve', '--lock-timeout', '5m'], { env: machine(emu) });
    // The waiter was refused once: after a refused try it asks who holds the lock (its session's last
    // query reads pg_locks), so it says it waits whatever happens after; only then does the holder end.
    await waitFor(async () => (await applySessionQueries(db, name)).some((s) => s.query.includes('pg_locks')), { what: 'the waiting apply to be refused once' });
    expect((await holder.finish()).code).toBe(0);
    const waited = await driveTasks(emu, waiter);
    expect(waited.code).toBe(0);
    expect(waited.stderr).toContain(`Waiting: waiting up to 300 s (--lock-timeout) for the stack named "${name}" on ${emu.url}`);
    expect(waited.stdout).toContain('Apply complete!');
  });

  it('stops with a clear error and applies nothing when the database cannot be reached, never showing its password', async () => {
    const emu = await emulator();
    const closed = (await closedPort()).replace('http://', '');
    const url = `postgres://edgeform:${encodeURIComponent(db.password)}@${closed}/postgres`;
    const result = await runCliInProcess(['apply', checkout(uniqueName()), '--auto-approve'], { env: { ...machine(emu), EDGEFORM_LOCK_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Error: cannot reach the lock database postgres://edgeform:***@${closed}/postgres (EDGEFORM_LOCK_URL): `);
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(result.stderr).toContain('nothing was applied');
    // The lock comes before anything is read: the platform saw no request at all.
    expect(emu.requests.filter((r) => !r.path.startsWith('/__emulator/'))).toEqual([]);
    expectNoPassword(result);
  });

  it('stops with a clear error when the database refuses the password, never showing it', async () => {
    const emu = await emulator();
    const wrong = 'Wr0ng$pass-but-secret';
    const url = db.url.replace(encodeURIComponent(db.password), encodeURIComponent(wrong));
    const result = await runCliInProcess(['apply', checkout(uniqueName()), '--auto-approve'], { env: { ...machine(emu), EDGEFORM_LOCK_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the lock database postgres://edgeform:***@127.0.0.1:');
    expect(result.stderr).toContain('password authentication failed for user "edgeform"');
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(result.stdout + result.stderr).not.toContain(encodeURIComponent(wrong));
    expect(writesSeen(emu)).toEqual([]);
  });

  it('refuses a stack without a name (nothing to key the lock by across machines), unless --lock=false', async () => {
    const emu = await emulator();
    const stack = join(writeStackFiles({ 'stack.yaml': TWO_BRANCHES }), 'stack.yaml');
    const refused = await runCliInProcess(['apply', stack, '--auto-approve'], { env: machine(emu) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('EDGEFORM_LOCK_URL is set, but the stack has no name: to lock it by across machines; nothing was applied.');
    expect(emu.requests.filter((r) => !r.path.startsWith('/__emulator/'))).toEqual([]);
    const unlocked = await driveTasks(
      emu,
      runCliInProcess(['apply', stack, '--auto-approve', '--lock=false'], { env: { ...machine(emu), EDGEFORM_LOCK_URL: 'postgres://x:y@127.0.0.1:1/none' } }),
    );
    expect(unlocked.code).toBe(0);
  });

  it('is never taken by plan or drift: they run with the database unreachable', async () => {
    const emu = await emulator();
    const env = { ...machine(emu), EDGEFORM_LOCK_URL: `postgres://edgeform:${encodeURIComponent(db.password)}@${(await closedPort()).replace('http://', '')}/postgres` };
    const stack = checkout(uniqueName());
    const plan = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(plan.code).toBe(2);
    const drift = await runCliInProcess(['drift', stack], { env });
    expect(drift.code).toBe(2);
    expectNoPassword(plan);
  });

  it('refuses a --lock-timeout that is no duration before anything is read', async () => {
    const emu = await emulator();
    const result = await runCliInProcess(['apply', checkout(uniqueName()), '--auto-approve', '--lock-timeout', 'soon'], { env: machine(emu) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--lock-timeout: "soon" is not a duration such as 90s, 30m or 1h');
    expect(emu.requests.filter((r) => !r.path.startsWith('/__emulator/'))).toEqual([]);
  });
});
