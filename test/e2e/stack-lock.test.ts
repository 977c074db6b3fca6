import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stackLockPath } from '../../src/cli/stack-lock.js';
import { driveTasks, emulatorEnv, writesSeen } from '../helpers/apply.js';
import { startCli } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { RESIZE_POST, TWO_BRANCHES } from '../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../helpers/emulator.js';
import { writeStackFiles } from '../helpers/stack-files.js';
import { waitFor } from '../helpers/wait.js';

/** A killed apply leaves its locks behind: only a real process can die with them held. */
describe('the apply lock of a killed apply', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('is taken over at once by the next apply on this host, which says whose it was', async () => {
    emu = await startTestEmulator();
    const lockDir = mkdtempSync(join(tmpdir(), 'edgeform-locks-test-'));
    const env = { ...emulatorEnv(emu), EDGEFORM_LOCK_DIR: lockDir };
    const stack = join(writeStackFiles({ 'stack.yaml': `name: shop\n${TWO_BRANCHES}` }), 'stack.yaml');

    // The first apply holds both locks while it waits on web_vm's resize (the emulator's clock is manual).
    const first = startCli(['apply', stack, '--auto-approve'], { env });
    await waitFor(() => writesSeen(emu!).includes(RESIZE_POST) || first.child.exitCode !== null, { what: 'the first apply to resize web_vm' });
    expect(first.child.exitCode).toBeNull();
    const pid = first.child.pid!;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(existsSync(await stackLockPath(stack))).toBe(true);
    expect(readdirSync(lockDir).filter((f) => f.endsWith('.lock'))).toHaveLength(1);

    // Both locks are fresh (refreshed within the minute): only the takeover of a dead holder lets this run.
    const second = await driveTasks(emu, runCliInProcess(['apply', stack, '--auto-approve'], { env }));
    expect(second.stderr).not.toContain('is locked by');
    expect(second.code).toBe(0);
    const dead = `from \`edgeform apply ${stack} --auto-approve\` (pid ${pid} on host ${hostname()}, since `;
    expect(second.stderr).toContain(`Warning: took over the apply lock of ${stack} ${dead}`);
    expect(second.stderr).toContain(`Warning: took over the apply lock of the stack named "shop" on ${emu.url} ${dead}`);
    expect(second.stderr).toContain('that process is no longer running on this host');
    expect(existsSync(await stackLockPath(stack))).toBe(false);
    expect(readdirSync(lockDir)).toEqual([]);
  });
});
