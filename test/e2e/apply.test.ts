import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import { driveTasks, emulatorEnv, writesSeen } from '../helpers/apply.js';
import { runCli, startCli } from '../helpers/cli.js';
import { DEMO, startTestEmulator, type TestEmulator, closeAfterEach } from '../helpers/emulator.js';
import { startLoopbackServer } from '../helpers/loopback-server.js';
import { writeStackFiles } from '../helpers/stack-files.js';
import { waitFor } from '../helpers/wait.js';
import { FIP_PATCH, MEDIA_PATCH, RESIZE_POST, TWO_BRANCHES, UPGRADE_POST, example } from '../helpers/demo-stacks.js';

/**
 * A copy of examples/cloud.yaml in a scratch directory: each apply of it takes its own apply lock,
 * so these runs never refuse (or are refused by) a test in another worker applying the example.
 */
function cloudStack(): string {
  return join(writeStackFiles({ 'cloud.yaml': readFileSync(example('cloud.yaml'), 'utf8') }), 'cloud.yaml');
}

/**
 * apply through the built executable: what needs a real process (SIGINT at each stage, stdin
 * that is not a terminal, the exit code of a saved plan applied). The rest of apply's behaviour
 * is held in-process (test/integration/cli/apply.test.ts).
 */

const taskIdsOf = (emu: TestEmulator, resourceId: string) => [...emu.state.tasks.values()].filter((t) => t.resource_id.endsWith(resourceId)).map((t) => t.id);
const countOf = (emu: TestEmulator, write: string) => writesSeen(emu).filter((w) => w === write).length;

describe('edgeform apply (built CLI)', () => {
  let emu: TestEmulator | undefined;

  closeAfterEach(() => [emu]);

  async function start(options: EmulatorOptions = {}): Promise<{ emu: TestEmulator; env: Record<string, string> }> {
    emu = await startTestEmulator({ taskDurationMs: 0, ...options });
    return { emu, env: emulatorEnv(emu) };
  }

  const stackFile = (yaml: string) => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');

  it('refuses to apply without --auto-approve when stdin is not a terminal, sending no write', async () => {
    const { emu, env } = await start();
    const result = await runCli(['apply', cloudStack()], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not an interactive terminal');
    expect(result.stderr).toContain('--auto-approve');
    expect(result.stderr).toContain('edgeform apply plan.json');
    expect(writesSeen(emu)).toEqual([]);
  });

  describe('saved plans', () => {
    /** A saved plan of a copy of examples/cloud.yaml; outside the working tree, so apply names it with --stack. */
    async function savePlan(env: Record<string, string>): Promise<{ file: string; stack: string }> {
      const stack = cloudStack();
      const file = join(writeStackFiles({}), 'p.json');
      const planned = await runCli(['plan', stack, '--out', file], { env });
      expect(planned.code).toBe(0);
      return { file, stack };
    }

    it('applies exactly the saved plan without asking', async () => {
      const { emu, env } = await start();
      const { file, stack } = await savePlan(env);
      const result = await runCli(['apply', file, '--stack', stack], { env });
      expect(result.stdout).not.toContain('Do you want to perform these actions?');
      expect(result.stdout).toContain('Apply complete! Resources: 0 added, 4 changed, 0 destroyed.');
      expect(result.code).toBe(0);
      expect([...writesSeen(emu)].sort()).toEqual([RESIZE_POST, UPGRADE_POST, UPGRADE_POST, FIP_PATCH, MEDIA_PATCH].sort());
    });
  });

  describe('interrupts', () => {
    async function startApplyWithHeldTasks(
      options: EmulatorOptions = {},
    ): Promise<{ emu: TestEmulator; env: Record<string, string>; stack: string; cli: ReturnType<typeof startCli> }> {
      const { emu, env } = await start({ taskDurationMs: 2000, ...options });
      const stack = stackFile(TWO_BRANCHES);
      const cli = startCli(['apply', stack, '--auto-approve'], { env });
      await cli.waitForOutput(/cloud_instance\.web_vm: waiting on task/);
      await cli.waitForOutput(/cloud_floating_ip\.web_ip: waiting on task/);
      return { emu, env, stack, cli };
    }

    it('on the first SIGINT starts nothing new, waits for running tasks, and exits 130 listing what did not start', async () => {
      const { emu, cli } = await startApplyWithHeldTasks();
      cli.child.kill('SIGINT');
      await cli.waitForOutput('Interrupt received: no new actions will start. Waiting for 2 running actions to finish');

      emu.clock.advance(2000);
      const result = await cli.exited;

      expect(result.code).toBe(130);
      expect(result.stdout).toMatch(/cloud_instance\.web_vm: Modified/);
      expect(result.stdout).toMatch(/cloud_floating_ip\.web_ip: Modified/);
      expect(result.stdout).toContain('Apply interrupted. Resources: 0 added, 2 changed, 0 destroyed.');
      expect(result.stdout).toContain('Not started (2):\n  cloud_k8s_cluster.cluster (update)\n  cloud_floating_ip.media_ip (update)\n');
      expect([...writesSeen(emu)].sort()).toEqual([FIP_PATCH, RESIZE_POST].sort());
    });

    it('an interrupt while the platform is still being read exits 130 saying nothing was changed', async () => {
      const hanging = await startLoopbackServer(() => undefined);
      try {
        const cli = startCli(['apply', cloudStack(), '--auto-approve'], { env: { EDGEFORM_BASE_URL: hanging.url, EDGEFORM_API_KEY: 'emu$0123' } });
        await waitFor(() => hanging.requests.length > 0, { what: 'the first read' });
        cli.child.kill('SIGINT');
        const result = await cli.exited;

        expect(result.stderr).toContain('Interrupted before any change was made; stopping.');
        expect(result.stderr).not.toContain('this is a bug');
        expect(result.code).toBe(130);
        expect(hanging.requests.every((r) => r.method === 'GET')).toBe(true);
      } finally {
        await hanging.close();
      }
    });

    it('on a second SIGINT exits 130 without waiting for its tasks, listing every running task id with its address', async () => {
      // The emulator's clock stands still: the tasks never finish, so exiting at all proves it did not wait (no wall-clock bound).
      const { emu, cli } = await startApplyWithHeldTasks({ manualClock: true });
      cli.child.kill('SIGINT');
      await cli.waitForOutput('Interrupt received');
      cli.child.kill('SIGINT');
      const result = await cli.exited;

      expect(emu.state.pendingTasks.length).toBeGreaterThan(0);
      expect(result.code).toBe(130);
      const [vmTask] = taskIdsOf(emu, DEMO.instance);
      const [fipTask] = taskIdsOf(emu, DEMO.fip);
      expect(result.stdout).toContain('Second interrupt: stopped waiting.');
      expect(result.stdout).toContain(`  cloud_instance.web_vm: task ${vmTask}\n`);
      expect(result.stdout).toContain(`  cloud_floating_ip.web_ip: task ${fipTask}\n`);
      expect(emu.state.pendingTasks.map((t) => t.id).sort()).toEqual([vmTask, fipTask].sort());
    });

    it('a later apply waits on the tasks an abandoned run left running instead of sending a second change', async () => {
      const { emu, env, stack, cli } = await startApplyWithHeldTasks();
      cli.child.kill('SIGINT');
      await cli.waitForOutput('Interrupt received');
      cli.child.kill('SIGINT');
      expect((await cli.exited).code).toBe(130);
      const left = emu.state.pendingTasks.map((t) => t.id);
      const seenBefore = emu.requests.length;

      const second = runCli(['apply', stack, '--auto-approve'], { env });
      for (const id of left) {
        await waitFor(() => emu.requests.slice(seenBefore).some((r) => r.path === `/cloud/v1/tasks/${id}`), { what: `a poll of lock task ${id}` });
      }
      const result = await driveTasks(emu, second);

      expect(result.code).toBe(0);
      expect(result.stdout).toContain('cloud_instance.web_vm: already as planned; nothing sent');
      expect(result.stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
      expect([RESIZE_POST, FIP_PATCH, MEDIA_PATCH, UPGRADE_POST].map((w) => countOf(emu, w))).toEqual([1, 1, 1, 1]);
      expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
    });
  });
});
