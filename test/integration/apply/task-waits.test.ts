/**
 * Task waits that hold nothing up: apply sends at most --parallelism requests at once, while up
 * to --max-tasks changes wait on their platform tasks, polled together; completions are noticed
 * within max(10 % of the task's duration, 250 ms) of platform time at under one poll request per
 * task. Platform time is the emulator's manual clock, moved only by the waits edgeform takes.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/client.js';
import type { Sleep } from '../../../src/api/sleep.js';
import { CONFIRM_POLICY, executePlan } from '../../../src/apply/executor.js';
import { applyCommand } from '../../../src/cli/apply.js';
import { createIO } from '../../../src/cli/io.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import { providers } from '../../../src/kinds/providers.js';
import { demoFixtures, driveTasks, emulatorEnv, planYaml } from '../../helpers/apply.js';
import { captureStream } from '../../helpers/capture.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';

const FLAVORS = ['g2-standard-2-4', 'g2-standard-4-8'];
const vmId = (n: number) => `2a000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const TASK_ROUTES = new Set(['/cloud/v1/tasks', '/cloud/v1/tasks/{task_id}']);

let emu: TestEmulator | undefined;
let api: ApiClient | undefined;
closeAfterEach(() => [api, emu]);

/** An emulator with `count` instances to resize, and the stack that resizes them all. */
async function resizeWorld(count: number, options: { taskDurationMs?: number; latencyMs?: number } = {}) {
  const fixtures = demoFixtures();
  const blocks: string[] = [];
  for (let n = 1; n <= count; n++) {
    fixtures.instances.push({ id: vmId(n), name: `vm-${n}`, status: 'ACTIVE', flavor_id: FLAVORS[0], available_flavors: FLAVORS });
    blocks.push(`  vm_${n}: { type: cloud_instance, instance_id: ${vmId(n)}, flavor_id: ${FLAVORS[1]} }`);
  }
  emu = await startTestEmulator({ taskDurationMs: options.taskDurationMs ?? 2000, fixtures, ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}) });
  return { emu, yaml: `version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${blocks.join('\n')}\n` };
}

describe('apply waits on platform tasks without holding anything up', () => {
  it('notices each of 200 resizes of 2 s within max(10 %, 250 ms) of its end, at under one poll request per task', async () => {
    const { emu, yaml } = await resizeWorld(200);
    const advance: Sleep = async (ms) => void emu.clock.advance(ms);
    api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, maxConcurrentRequests: 10 });
    const ctx = createProviderContext({ api, sleep: advance, now: () => emu.clock.now() });
    const plan = await planYaml(ctx, emu.url, yaml);

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm: { ...CONFIRM_POLICY, sleep: advance } });

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(200).fill('applied'));
    const tasks = [...emu.state.tasks.values()];
    expect(tasks).toHaveLength(200);
    const polls = emu.requests.filter((r) => r.method === 'GET' && TASK_ROUTES.has(r.route));
    const delays = tasks.map((task) => {
      // The first poll at or after the end that covers the task: a list (one project here), or a read of it.
      const noticed = polls.find((p) => p.time >= task.finish_at && (p.path === '/cloud/v1/tasks' || p.path === `/cloud/v1/tasks/${task.id}`));
      return noticed === undefined ? Infinity : noticed.time - task.finish_at;
    });
    expect(Math.max(...delays)).toBeLessThanOrEqual(Math.max(0.1 * 2000, 250));
    expect(polls.length / tasks.length).toBeLessThanOrEqual(1);
  });

  it('lets every change wait on its task at once while no more than --parallelism requests are ever on the wire', async () => {
    const { emu, yaml } = await resizeWorld(40, { latencyMs: 5 });
    api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, maxConcurrentRequests: 2 });
    // Polls every few real ms; the manual clock holds every task until the test moves it.
    const ctx = createProviderContext({ api, pollSchedule: { initialMs: 5, maxMs: 10 } });
    const plan = await planYaml(ctx, emu.url, yaml);

    const run = executePlan({ plan, providers: providers.resources, ctx, maxTasks: 40, confirm: { ...CONFIRM_POLICY, sleep: async (ms) => void emu.clock.advance(ms) } });
    await waitFor(() => emu.state.pendingTasks.length === 40, { what: '40 tasks running at once' });
    emu.clock.advance(2000);
    const outcome = await run;

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(40).fill('applied'));
    const onTheWire = emu.requests.filter((r) => !r.path.startsWith('/__emulator/')).map((r) => r.inFlight);
    expect(Math.max(...onTheWire)).toBe(2);
  });

  it('runs at most --max-tasks platform tasks at once, and does reach that many', async () => {
    const { emu, yaml } = await resizeWorld(20);
    const inFlight: number[] = [];
    const advance: Sleep = async (ms) => {
      inFlight.push(emu.state.pendingTasks.length);
      emu.clock.advance(ms);
    };
    api = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey });
    const ctx = createProviderContext({ api, sleep: advance, now: () => emu.clock.now() });
    const plan = await planYaml(ctx, emu.url, yaml);

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 5, confirm: { ...CONFIRM_POLICY, sleep: advance } });

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(20).fill('applied'));
    expect(Math.max(...inFlight)).toBe(5);
    expect(new Set([...emu.state.tasks.values()].map((t) => t.created_at)).size).toBeGreaterThanOrEqual(4);
  });

  it('apply --parallelism 50 writes nothing on stderr (no MaxListenersExceededWarning)', async () => {
    const { emu, yaml } = await resizeWorld(120, { latencyMs: 2 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const stdout = captureStream();
      const stderr = captureStream();
      const io = createIO({ env: { ...emulatorEnv(emu), NO_COLOR: '1' }, stdin: process.stdin, stdout, stderr });
      const args = {
        path: join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml'),
        autoApprove: true,
        parallelism: 50,
        maxTasks: 200,
        target: [] as string[],
        format: 'text' as const,
        lock: true,
      };

      const code = await driveTasks(emu, applyCommand.run(args, io));

      expect(code).toBe(0);
      expect(stdout.text()).toContain('Apply complete! Resources: 0 added, 120 changed, 0 destroyed.');
      expect(stderr.text()).toBe('');
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
