import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from '../../../src/emulator/index.js';
import { driveTasks, emulatorEnv, extraFipBlocks, withExtraFloatingIps, writesSeen } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';
import { FIP_PATCH, RESIZE_POST, TWO_BRANCHES, UPGRADE_POST, example } from '../../helpers/demo-stacks.js';

const userTags = (emu: TestEmulator, id: string) =>
  Object.fromEntries(
    emu.state.floatingIps
      .get(id)!
      .tags.filter((t) => !t.read_only)
      .map((t) => [t.key, t.value]),
  );
const taskIdsOf = (emu: TestEmulator, resourceId: string) => [...emu.state.tasks.values()].filter((t) => t.resource_id.endsWith(resourceId)).map((t) => t.id);
const countOf = (emu: TestEmulator, write: string) => writesSeen(emu).filter((w) => w === write).length;
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

describe('edgeform apply', () => {
  let emu: TestEmulator | undefined;
  const extra: TestEmulator[] = [];

  afterEach(async () => {
    await emu?.close();
    emu = undefined;
    for (const e of extra.splice(0)) await e.close();
  });

  async function start(options: EmulatorOptions = {}): Promise<{ emu: TestEmulator; env: Record<string, string> }> {
    emu = await startTestEmulator({ taskDurationMs: 0, ...options });
    return { emu, env: emulatorEnv(emu) };
  }

  const stackFile = (yaml: string) => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');

  describe('applies every example stack, which then plans to no changes', () => {
    const cases: { stack: string; added?: number; changed: number; destroyed: number; expectState(emu: TestEmulator): void }[] = [
      {
        stack: 'cloud.yaml',
        changed: 4,
        destroyed: 0,
        expectState(emu) {
          expect(userTags(emu, DEMO.fip)).toEqual({ env: 'prod', team: 'edge' });
          expect(emu.state.floatingIps.get(DEMO.fip)!.tags).toContainEqual({ key: 'managed-by', value: 'platform', read_only: true });
          expect(userTags(emu, DEMO.fipDown)).toEqual({ env: 'prod', team: 'media' });
          expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
          expect(emu.state.k8sClusters.get('1/76/prod-eu')!.version).toBe('v1.31.3');
        },
      },
      {
        stack: 'cleanup.yaml',
        changed: 0,
        destroyed: 3,
        expectState(emu) {
          expect(emu.state.fastedgeApps.has(1234)).toBe(false);
          expect(emu.state.players.has(55)).toBe(false);
          expect(emu.state.quotaRequests.has(42)).toBe(false);
          expect([emu.state.fastedgeApps.has(1300), emu.state.players.has(60), emu.state.quotaRequests.has(43)]).toEqual([true, true, true]);
        },
      },
      {
        stack: 'notifications.yaml',
        changed: 1,
        destroyed: 0,
        expectState(emu) {
          expect(emu.state.notificationSettings.get(3)).toMatchObject({ notification_type: 'failed_login', email: 'sec@example.com', enabled: true });
          expect(emu.state.notificationSettings.get(4)).toMatchObject({ email: 'billing@example.com', enabled: true });
        },
      },
      {
        stack: 'quickstart.yaml',
        changed: 4,
        destroyed: 3,
        expectState(emu) {
          expect(userTags(emu, DEMO.fip)).toEqual({ env: 'prod', team: 'edge' });
          expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
          expect(emu.state.k8sClusters.get('1/76/prod-eu')!.version).toBe('v1.31.3');
          expect(emu.state.notificationSettings.get(3)).toMatchObject({ email: 'sec@example.com', enabled: true });
          expect([emu.state.fastedgeApps.has(1234), emu.state.players.has(55), emu.state.quotaRequests.has(42)]).toEqual([false, false, false]);
        },
      },
      {
        stack: 'multi-file',
        changed: 3,
        destroyed: 0,
        expectState(emu) {
          expect(userTags(emu, DEMO.fip)).toEqual({ env: 'prod', team: 'edge' });
          expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
          expect(emu.state.k8sClusters.get('1/76/prod-eu')!.version).toBe('v1.31.3');
        },
      },
      { stack: 'checks.yaml', changed: 0, destroyed: 0, expectState: () => undefined },
      {
        stack: 'edge-apps.yaml',
        added: 2,
        changed: 2,
        destroyed: 0,
        expectState(emu) {
          const apps = [...emu.state.fastedgeApps.values()];
          expect(apps.filter((a) => a.name === 'edge-gateway')).toEqual([expect.objectContaining({ binary: 502, status: 1, env: { UPSTREAM: 'https://origin.example.com' } })]);
          expect(emu.state.fastedgeApps.get(1300)!.comment).toBe('Routes to the origin');
          const players = [...emu.state.players.values()];
          expect(players.filter((p) => p.name === 'brand-player')).toEqual([expect.objectContaining({ bg_color: '#112233', autoplay: true, logo_position: 'tr' })]);
          expect(emu.state.players.get(60)!.mute).toBe(true);
        },
      },
    ];

    it.each(cases)('$stack: $changed changed, $destroyed destroyed', async ({ stack, added = 0, changed, destroyed, expectState }) => {
      const { emu, env } = await start();
      const applied = await runCliInProcess(['apply', example(stack), '--auto-approve'], { env });
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toContain(`Apply complete! Resources: ${added} added, ${changed} changed, ${destroyed} destroyed.`);
      expect(applied.code).toBe(0);
      expectState(emu);

      const again = await runCliInProcess(['plan', example(stack), '--detailed-exitcode'], { env });
      expect(again.stdout).toContain('No changes.');
      expect(again.code).toBe(0);
    });
  });

  describe('saved plans', () => {
    async function savePlan(env: Record<string, string>, stack = example('cloud.yaml')): Promise<string> {
      const file = join(writeStackFiles({}), 'p.json');
      const planned = await runCliInProcess(['plan', stack, '--out', file], { env });
      expect(planned.code).toBe(0);
      return file;
    }

    it('refuses a stale plan, naming the resource and how it changed, and sends no write', async () => {
      const { emu, env } = await start();
      const file = await savePlan(env);
      await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev' } } });
      emu.requests.length = 0;

      const result = await runCliInProcess(['apply', file], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Saved plan is stale');
      expect(result.stderr).toContain('cloud_floating_ip.web_ip:');
      expect(result.stderr).toContain('tags: {"env":"staging","owner":"alice","team":"edge"} when planned, now {"env":"dev","owner":"alice","team":"edge"}');
      expect(result.stderr).not.toContain('cloud_instance.web_vm');
      expect(writesSeen(emu)).toEqual([]);
    });

    it('refuses a plan made for another base URL, sending nothing to either', async () => {
      const { emu, env } = await start();
      const file = await savePlan(env);
      const other = await startTestEmulator({ taskDurationMs: 0 });
      extra.push(other);
      emu.requests.length = 0;

      const result = await runCliInProcess(['apply', file], { env: emulatorEnv(other) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the saved plan was made against ${emu.url}`);
      expect(result.stderr).toContain(other.url);
      expect(emu.requests).toEqual([]);
      expect(other.requests).toEqual([]);
    });

    it('refuses a plan file of another format major version', async () => {
      const { emu, env } = await start();
      const file = await savePlan(env);
      const plan = JSON.parse(readFileSync(file, 'utf8')) as { format_version: string };
      writeFileSync(file, JSON.stringify({ ...plan, format_version: '9.0' }));
      emu.requests.length = 0;

      const result = await runCliInProcess(['apply', file], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('plan format 9.0');
      expect(result.stderr).toContain('Run edgeform plan again');
      expect(emu.requests).toEqual([]);
    });
  });

  describe('a task that ends in ERROR', () => {
    it('fails that resource, skips its dependants, completes the other branch, and exits 1', async () => {
      const { emu, env } = await start();
      emu.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found');
      const stack = stackFile(TWO_BRANCHES);

      const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env });

      const [vmTask] = taskIdsOf(emu, DEMO.instance);
      const [fipTask] = taskIdsOf(emu, DEMO.fip);
      const [mediaTask] = taskIdsOf(emu, DEMO.fipDown);
      expect(result.code).toBe(1);
      const summary = result.stdout.slice(result.stdout.indexOf('Apply failed.'));
      expect(summary).toBe(
        [
          'Apply failed. Resources: 0 added, 2 changed, 0 destroyed.',
          '',
          'Applied (2):',
          `  cloud_floating_ip.web_ip (update) [task ${fipTask}]`,
          `  cloud_floating_ip.media_ip (update) [task ${mediaTask}]`,
          '',
          'Failed (1):',
          `  cloud_instance.web_vm (update) [task ${vmTask}]: task ${vmTask} (resize_vm) failed: No valid host was found`,
          '',
          'Skipped (1):',
          '  cloud_k8s_cluster.cluster: depends on cloud_instance.web_vm, which failed',
          '',
          'Run edgeform apply again to converge: finished work is not repeated.',
          '',
        ].join('\n'),
      );
      expect(countOf(emu, UPGRADE_POST)).toBe(0);
    });

    it('converges on the next run once the fault is gone', async () => {
      const { emu, env } = await start();
      emu.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found');
      const stack = stackFile(TWO_BRANCHES);
      expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(1);

      const again = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
      expect(again.stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
      expect(again.code).toBe(0);
      expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
      expect(emu.state.k8sClusters.get('1/76/prod-eu')!.version).toBe('v1.30.6');
      expect(countOf(emu, FIP_PATCH)).toBe(1);
    });
  });

  it('skips a resource that depends on a failing check, naming the check, sends nothing for it, and exits 1', async () => {
    const { emu, env } = await start();
    const stack = stackFile(`version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge }, depends_on: [streaming_video_subtitles.tour_subtitles] }
  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }
checks:
  tour_subtitles: { type: streaming_video_subtitles, video_id: 9877, languages: [eng, ger] }
`);

    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('! depends on check streaming_video_subtitles.tour_subtitles, which is failing; apply will skip this resource');
    const [vmTask] = taskIdsOf(emu, DEMO.instance);
    expect(result.stdout.slice(result.stdout.indexOf('Apply failed.'))).toBe(
      [
        'Apply failed. Resources: 0 added, 1 changed, 0 destroyed.',
        '',
        'Applied (1):',
        `  cloud_instance.web_vm (update) [task ${vmTask}]`,
        '',
        'Skipped (1):',
        '  cloud_floating_ip.web_ip: depends on streaming_video_subtitles.tour_subtitles, which is failing',
        '',
        'Run edgeform apply again to converge: finished work is not repeated.',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toMatch(/cloud_floating_ip\.web_ip: Modifying/);
    expect(writesSeen(emu)).toEqual([RESIZE_POST]);
    expect(userTags(emu, DEMO.fip)).toEqual({ env: 'staging', owner: 'alice', team: 'edge' });
  });

  it('exits 0 when only a resource with nothing to change depends on a failing check', async () => {
    const { emu, env } = await start();
    const stack = stackFile(`version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: staging, owner: alice, team: edge }, depends_on: [streaming_video_subtitles.tour_subtitles] }
checks:
  tour_subtitles: { type: streaming_video_subtitles, video_id: 9877, languages: [eng, ger] }
`);

    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env });

    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed.');
    expect(result.stdout).not.toContain('Skipped');
    expect(result.code).toBe(0);
    expect(writesSeen(emu)).toEqual([]);
  });

  it('--max-tasks 3 runs at most three changes (and their tasks) at once, and does reach three', async () => {
    const { emu, env } = await start({ taskDurationMs: 2000, fixtures: withExtraFloatingIps(8) });
    const stack = stackFile(`version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${extraFipBlocks(8)}`);
    const exited = runCliInProcess(['apply', stack, '--auto-approve', '--format', 'json', '--max-tasks', '3'], { env: { ...env, EDGEFORM_TASK_POLL_INTERVAL: '50' } });

    // Every task is held by the manual clock until the test moves it, so three start and wait.
    await waitFor(() => emu.state.pendingTasks.length === 3, { what: 'three held tasks', timeoutMs: 20_000 });
    const result = await driveTasks(emu, exited);

    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; address?: string; status?: string });
    let running = 0;
    let maxRunning = 0;
    for (const e of events) {
      if (e.type === 'apply_start') maxRunning = Math.max(maxRunning, ++running);
      else if (e.type === 'apply_complete' || e.type === 'apply_errored') running--;
    }
    expect(maxRunning).toBe(3);
    expect(events.filter((e) => e.type === 'apply_start')).toHaveLength(8);
    expect(events.at(-1)).toMatchObject({ type: 'change_summary', change: 8, failed: 0 });
  });

  it('ends a targeted apply with the warning that the changes may be incomplete, in text and JSON, and an untargeted one without it', async () => {
    const { env } = await start();
    // A copy: the e2e tests apply examples/cloud.yaml itself, and its apply lock would refuse this run.
    const stack = stackFile(readFileSync(example('cloud.yaml'), 'utf8'));
    const targeted = await runCliInProcess(['apply', stack, '--target', 'cloud_floating_ip.web_ip', '--auto-approve'], { env });
    expect(targeted.code).toBe(0);
    const tail = targeted.stdout.slice(targeted.stdout.indexOf('Apply complete!'));
    expect(tail).toContain('Warning: Applied changes may be incomplete');
    expect(tail).toContain(`Run edgeform plan ${stack} to check that no other changes are pending.`);
    const json = await runCliInProcess(['apply', stack, '--target', 'cloud_instance.web_vm', '--auto-approve', '--format', 'json'], { env });
    const events = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; [k: string]: unknown });
    expect(events.at(-1)!.type).toBe('change_summary');
    expect(events.at(-2)).toMatchObject({ type: 'diagnostic', diagnostic: { severity: 'warning', code: 'targeted-apply', summary: 'Applied changes may be incomplete' } });
    const whole = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
    expect(whole.code).toBe(0);
    expect(whole.stdout).not.toContain('may be incomplete');
  });

  it('--format json writes one event object per line, each with a type and a timestamp', async () => {
    const { emu, env } = await start();
    emu.state.setNextTaskError('instance', DEMO.instance, 'No valid host was found');
    const result = await runCliInProcess(['apply', stackFile(TWO_BRANCHES), '--auto-approve', '--format', 'json'], { env });
    expect(result.code).toBe(1);

    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; timestamp: string; [k: string]: unknown });
    for (const e of events) expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['apply_start', 'apply_progress', 'apply_complete', 'apply_errored', 'change_summary']));
    expect(events[0]!.type).toBe('apply_start');
    expect(events.at(-1)).toMatchObject({ type: 'change_summary', add: 0, change: 2, destroy: 0, failed: 1, skipped: 1, interrupted: false });
    expect(events.filter((e) => e.type === 'apply_errored').map((e) => [e.address, e.status, e.skipped_because])).toEqual([
      ['cloud_instance.web_vm', 'failed', null],
      ['cloud_k8s_cluster.cluster', 'skipped', 'cloud_instance.web_vm'],
    ]);
    expect(result.stderr).toContain('Plan: 0 to add, 4 to change, 0 to destroy.');
  });

  it('--format json ends with a change_summary even when there is nothing to do', async () => {
    const { env } = await start();
    const result = await runCliInProcess(['apply', example('checks.yaml'), '--auto-approve', '--format', 'json'], { env });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.at(-1)).toMatchObject({ type: 'change_summary', add: 0, change: 0, destroy: 0, failed: 0, interrupted: false });
  });

  describe('the API key (it contains $)', () => {
    it('never appears in plan or apply output, nor in the saved plan', async () => {
      const { emu, env } = await start();
      expect(emu.apiKey).toContain('$');
      const file = join(writeStackFiles({}), 'p.json');
      const planned = await runCliInProcess(['plan', example('quickstart.yaml'), '--out', file], { env });
      const applied = await runCliInProcess(['apply', file], { env });
      const json = await runCliInProcess(['apply', example('cleanup.yaml'), '--auto-approve', '--format', 'json'], { env });

      expect(applied.code).toBe(0);
      for (const text of [output(planned), output(applied), output(json), readFileSync(file, 'utf8')]) expect(text).not.toContain(emu.apiKey);
    });

    it('is redacted from a platform error that echoes it', async () => {
      const { emu, env } = await start();
      emu.state.setNextTaskError('instance', DEMO.instance, `quota exceeded for key ${emu.apiKey}`);
      const stack = stackFile(TWO_BRANCHES);
      const text = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
      emu.state.setNextTaskError('instance', DEMO.instance, `quota exceeded for key ${emu.apiKey}`);
      const json = await runCliInProcess(['apply', stack, '--auto-approve', '--format', 'json'], { env });

      expect(text.code).toBe(1);
      expect(text.stdout).toContain('quota exceeded for key [REDACTED]');
      expect(json.stdout).toContain('quota exceeded for key [REDACTED]');
      for (const r of [text, json]) expect(output(r)).not.toContain(emu.apiKey);
    });
  });
});
