import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holderPathOf, LOCK_DIR_ENV, stackLockPath } from '../../../src/cli/stack-lock.js';
import { driveTasks, emulatorEnv, holdWithApply, writesSeen } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { TWO_BRANCHES } from '../../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator, cleanupAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * The apply lock, held by a real apply: TWO_BRANCHES resizes web_vm, whose task waits on the
 * emulator's manual clock, so the first apply holds its locks until the test drives its tasks.
 * Every run gets a lock directory of its own (EDGEFORM_LOCK_DIR), as two checkouts on one
 * machine share one.
 */
describe('the apply lock of a stack', () => {
  const cleanup = cleanupAfterEach();

  async function emulator(): Promise<TestEmulator> {
    const emu = await startTestEmulator();
    cleanup.push(() => emu.close());
    return emu;
  }

  const lockDir = mkdtempSync(join(tmpdir(), 'edgeform-locks-test-'));
  const envOf = (emu: TestEmulator) => ({ ...emulatorEnv(emu), [LOCK_DIR_ENV]: lockDir });
  const stackFile = (yaml = TWO_BRANCHES) => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
  const named = (name: string) => `name: ${name}\n${TWO_BRANCHES}`;

  const hold = (emu: TestEmulator, path: string) => holdWithApply(emu, path, envOf(emu), cleanup);

  /** Runs an apply to its end, driving the tasks it waits on. */
  const secondApply = (emu: TestEmulator, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) =>
    driveTasks(emu, runCliInProcess(args, { env: options.env ?? envOf(emu), ...(options.cwd ? { cwd: options.cwd } : {}) }));

  /**
   * Runs an apply while the holder waits on its task (which sends nothing until the clock moves)
   * and requires that it ends without sending a write.
   */
  async function refusedApply(emu: TestEmulator, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
    const writes = writesSeen(emu).length;
    let ended = false;
    const run = runCliInProcess(args, { env: envOf(emu), ...options }).finally(() => (ended = true));
    cleanup.push(() => driveTasks(emu, run));
    const first = await waitFor(() => (ended ? 'ended' : writesSeen(emu).length > writes ? `sent ${writesSeen(emu).slice(writes).join(', ')}` : false), {
      what: 'the apply to end or send a write',
    });
    expect(first).toBe('ended');
    return run;
  }

  it('refuses a second apply of the same stack while one holds the lock, sending nothing, and names who holds it', async () => {
    const emu = await emulator();
    const stack = stackFile();
    const holder = await hold(emu, stack);
    const result = await refusedApply(emu, ['apply', stack, '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `another edgeform apply of ${escape(stack)} is running: it is locked by \`edgeform apply ${escape(stack)} --auto-approve\` \\(pid ${process.pid} on host ${escape(hostname())}, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)`,
      ),
    );
    expect(result.stderr).toContain(`lock ${await stackLockPath(stack)}`);
    // The record holds who, and nothing of the environment.
    const record = readFileSync(holderPathOf(await stackLockPath(stack)), 'utf8');
    expect(Object.keys(JSON.parse(record)).sort()).toEqual(['command', 'host', 'pid', 'since']);
    expect(record).not.toContain(emu.apiKey);
    expect((await holder.finish()).code).toBe(0);
  });

  it('refuses an apply through a symlink to the stack while another apply of it runs', async () => {
    const emu = await emulator();
    const stack = stackFile();
    const link = join(mkdtempSync(join(tmpdir(), 'edgeform-link-')), 'prod.yaml');
    symlinkSync(stack, link);
    const holder = await hold(emu, stack);
    const result = await refusedApply(emu, ['apply', link, '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`another edgeform apply of ${link} is running: it is locked by \`edgeform apply ${stack} --auto-approve\``);
    expect((await holder.finish()).code).toBe(0);
  });

  it('refuses an apply through ./x/../x, where x is a symlink to the stack directory, while another apply of it runs', async () => {
    const emu = await emulator();
    const root = mkdtempSync(join(tmpdir(), 'edgeform-dots-'));
    const stackDir = join(root, 'stacks', 'x');
    mkdirSync(stackDir, { recursive: true });
    writeFileSync(join(stackDir, 'stack.yaml'), TWO_BRANCHES);
    const work = join(root, 'work');
    mkdirSync(work);
    symlinkSync(stackDir, join(work, 'x'));
    const holder = await hold(emu, stackDir);
    // The system reads ./x/../x as stacks/x (x/.. is the symlink target's parent); the path as typed would say work/x.
    const result = await refusedApply(emu, ['apply', './x/../x', '--auto-approve'], { cwd: work });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('another edgeform apply of ./x/../x is running: it is locked by');
    expect((await holder.finish()).code).toBe(0);
  });

  it('refuses an apply of a copy of a named stack in another directory while the first runs, for a stack path and a saved plan', async () => {
    const emu = await emulator();
    const first = stackFile(named('shop'));
    const copyDir = writeStackFiles({ 'stack.yaml': named('shop') });
    const planFile = join(copyDir, 'plan.json');
    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', planFile], { env: envOf(emu), cwd: copyDir })).code).toBe(0);
    const holder = await hold(emu, first);

    const fromStack = await refusedApply(emu, ['apply', join(copyDir, 'stack.yaml'), '--auto-approve']);
    expect(fromStack.code).toBe(1);
    expect(fromStack.stderr).toContain(`another edgeform apply of the stack named "shop" on ${emu.url} is running: it is locked by \`edgeform apply ${first} --auto-approve\``);
    const fromPlan = await refusedApply(emu, ['apply', planFile], { cwd: copyDir });
    expect(fromPlan.code).toBe(1);
    expect(fromPlan.stderr).toContain(`another edgeform apply of the stack named "shop" on ${emu.url} is running`);
    // The refused runs released the path locks they had taken.
    expect(existsSync(await stackLockPath(join(copyDir, 'stack.yaml')))).toBe(false);
    expect((await holder.finish()).code).toBe(0);
  });

  it('refuses an apply of a named stack through another spelling of the same platform (localhost for 127.0.0.1) while the first runs, naming its holder', async () => {
    const emu = await emulator();
    const first = stackFile(named('shop'));
    const holder = await hold(emu, first);
    const port = new URL(emu.url).port;
    for (const spelling of [`http://localhost:${port}/`, `http://[::1]:${port}`, `HTTP://LOCALHOST.:${port}//`]) {
      const result = await refusedApply(emu, ['apply', stackFile(named('shop')), '--auto-approve'], { env: { ...envOf(emu), EDGEFORM_BASE_URL: spelling } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `another edgeform apply of the stack named "shop" on ${spelling.replace(/\/+$/, '').toLowerCase()} is running: it is locked by \`edgeform apply ${first} --auto-approve\``,
      );
    }
    expect((await holder.finish()).code).toBe(0);
  });

  it('lets a named stack apply to another platform while its namesake applies to this one', async () => {
    const emu = await emulator();
    const other = await emulator();
    const holder = await hold(emu, stackFile(named('shop')));
    const result = await secondApply(other, ['apply', stackFile(named('shop')), '--auto-approve']);
    expect(result.code).toBe(0);
    expect(writesSeen(other).length).toBeGreaterThan(0);
    expect((await holder.finish()).code).toBe(0);
  });

  it('refuses a lock held by an apply on another host, naming it, until it goes stale, then takes it over with a warning', async () => {
    const emu = await emulator();
    const stack = stackFile();
    const lock = await stackLockPath(stack);
    mkdirSync(lock);
    const since = '2026-11-26T19:02:11Z';
    writeFileSync(holderPathOf(lock), JSON.stringify({ host: 'ci-7', pid: 4242, command: 'edgeform apply prod.yaml', since }));
    const refused = await secondApply(emu, ['apply', stack, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`it is locked by \`edgeform apply prod.yaml\` (pid 4242 on host ci-7, since ${since})`);
    expect(writesSeen(emu)).toEqual([]);

    // Its holder stopped refreshing it two minutes ago.
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    const taken = await secondApply(emu, ['apply', stack, '--auto-approve']);
    expect(taken.code).toBe(0);
    expect(taken.stderr).toContain(
      `Warning: took over the apply lock of ${stack} from \`edgeform apply prod.yaml\` (pid 4242 on host ci-7, since ${since}): it was not refreshed for over a minute`,
    );
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(holderPathOf(lock))).toBe(false);
  });

  it("never takes over a fresh lock for a dead run's record left from before it", async () => {
    const emu = await emulator();
    const stack = stackFile();
    const lock = await stackLockPath(stack);
    // A run that died long ago left its record (its lock went at exit); another apply has just taken the lock.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(holderPathOf(lock), JSON.stringify({ host: hostname(), pid: dead, command: 'edgeform apply long-gone.yaml', since: '2026-11-26T19:02:11Z' }));
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(holderPathOf(lock), past, past);
    mkdirSync(lock);
    const refused = await secondApply(emu, ['apply', stack, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('it is locked by an apply that has not recorded who it is');
    expect(refused.stderr).not.toContain('took over');
    expect(existsSync(lock)).toBe(true);
  });

  it('is taken for the apply and released after it, so the next apply runs', async () => {
    const emu = await emulator();
    const stack = stackFile(named('shop'));
    const first = await secondApply(emu, ['apply', stack, '--auto-approve']);
    expect(first.code).toBe(0);
    expect(writesSeen(emu).length).toBeGreaterThan(0);
    expect(existsSync(await stackLockPath(stack))).toBe(false);
    expect(readdirSync(lockDir)).toEqual([]);
    const second = await runCliInProcess(['apply', stack, '--auto-approve'], { env: envOf(emu) });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No changes');
  });

  /** A lock of the stack held by this (live) process, as another apply's would be. */
  async function holdByHand(stack: string): Promise<void> {
    const lock = await stackLockPath(stack);
    mkdirSync(lock);
    writeFileSync(holderPathOf(lock), JSON.stringify({ host: hostname(), pid: process.pid, command: 'edgeform apply held-by-hand.yaml', since: '2026-11-26T19:02:11Z' }));
  }

  it('--lock=false applies without taking it (applies serialized another way)', async () => {
    const emu = await emulator();
    const stack = stackFile();
    await holdByHand(stack);
    expect((await secondApply(emu, ['apply', stack, '--auto-approve'])).stderr).toContain('held-by-hand.yaml');
    const result = await secondApply(emu, ['apply', stack, '--auto-approve', '--lock=false']);
    expect(result.code).toBe(0);
  });

  it('plan never takes the lock: reviewing while an apply runs is fine', async () => {
    const emu = await emulator();
    const stack = stackFile();
    await holdByHand(stack);
    const result = await runCliInProcess(['plan', stack], { env: envOf(emu) });
    expect(result.code).toBe(0);
  });
});

describe('two applies at once of a stack of five players', () => {
  it('make five players, not ten, when one goes through a symlink', async () => {
    const emu = await startTestEmulator({ taskDurationMs: 0 });
    try {
      const lockDir = mkdtempSync(join(tmpdir(), 'edgeform-locks-test-'));
      const env = { ...emulatorEnv(emu), [LOCK_DIR_ENV]: lockDir };
      const blocks = [1, 2, 3, 4, 5].map((n) => `  player_${n}: { type: streaming_player, name: twice-${n}, autoplay: true }`);
      const stack = join(writeStackFiles({ 'stack.yaml': ['version: 1', 'resources:', ...blocks, ''].join('\n') }), 'stack.yaml');
      const link = join(mkdtempSync(join(tmpdir(), 'edgeform-link-')), 'players.yaml');
      symlinkSync(stack, link);
      const runs = await Promise.all([stack, link].map((path) => runCliInProcess(['apply', path, '--auto-approve'], { env })));
      const made = [...emu.state.players.values()].filter((p) => String(p.name).startsWith('twice-'));
      expect(made.map((p) => p.name).sort()).toEqual(['twice-1', 'twice-2', 'twice-3', 'twice-4', 'twice-5']);
      // One ran; the other was refused, or (had the first finished before it started) found nothing to do.
      const outcomes = runs.map((r) =>
        r.code === 0 && r.stdout.includes('5 added')
          ? 'applied'
          : r.code === 1 && r.stderr.includes('is locked by')
            ? 'refused'
            : r.code === 0 && r.stdout.includes('No changes')
              ? 'no changes'
              : r.stderr,
      );
      expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'applied')).toEqual([expect.stringMatching(/^(refused|no changes)$/)]);
    } finally {
      await emu.close();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
