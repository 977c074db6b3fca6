import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockStack, stackLockPath } from '../../../src/cli/stack-lock.js';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { TWO_BRANCHES } from '../../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

describe('the apply lock of a stack', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  const stackFile = () => join(writeStackFiles({ 'stack.yaml': TWO_BRANCHES }), 'stack.yaml');

  it('refuses a second apply of the same stack while one holds the lock, sending nothing, and names the lock', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = stackFile();
    const release = await lockStack(stack, () => {});
    try {
      const before = emu.requests.length;
      const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`another edgeform apply of ${stack} is running (lock ${stackLockPath(stack)})`);
      expect(emu.requests.length).toBe(before);
    } finally {
      await release();
    }
  });

  it('is taken for the apply and released after it, so the next apply runs', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = stackFile();
    const first = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(first.code).toBe(0);
    expect(writesSeen(emu).length).toBeGreaterThan(0);
    expect(existsSync(stackLockPath(stack))).toBe(false);
    const second = await runCliInProcess(['apply', stack, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No changes');
  });

  it('--lock=false applies without taking it (applies serialized another way)', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = stackFile();
    const release = await lockStack(stack, () => {});
    try {
      const result = await runCliInProcess(['apply', stack, '--auto-approve', '--lock=false'], { env: emulatorEnv(emu) });
      expect(result.code).toBe(0);
    } finally {
      await release();
    }
  });

  it('plan never takes the lock: reviewing while an apply runs is fine', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const stack = stackFile();
    const release = await lockStack(stack, () => {});
    try {
      const result = await runCliInProcess(['plan', stack], { env: emulatorEnv(emu) });
      expect(result.code).toBe(0);
    } finally {
      await release();
    }
  });
});
