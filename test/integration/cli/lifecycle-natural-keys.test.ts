import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { example } from '../../helpers/demo-stacks.js';

/**
 * The whole life of the kinds found by a natural key, through the CLI in process against the
 * emulator's demo world: create, a plan with no changes, an update (a replace for quota
 * requests), ensure: absent, and the destroyed resource gone; an identity matching two
 * resources is a plan error naming both.
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;

let emu: TestEmulator;
let env: Record<string, string>;
beforeEach(async () => {
  emu = await startTestEmulator({ taskDurationMs: 0 });
  env = emulatorEnv(emu);
});
afterEach(() => emu.close());

/** A stack directory holding stack.yaml (and any other files); returns the stack file's path. */
function stackIn(files: Record<string, string>): string {
  return join(writeStackFiles(files), 'stack.yaml');
}

async function applyOk(stack: string): Promise<CliResult> {
  const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env });
  expect(applied.code, output(applied)).toBe(0);
  return applied;
}

async function expectNoChanges(stack: string): Promise<void> {
  const again = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
  expect(again.code, output(again)).toBe(0);
  expect(again.stdout).toContain('No changes.');
}

const VTT_DE = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWillkommen zur Produkttour.\n';
const VTT_DE_2 = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWillkommen zur Produkttour!\n\n2\n00:00:05.000 --> 00:00:07.500\nLos geht es.\n';

describe('streaming_video_subtitle through the CLI', () => {
  const subtitleYaml = (extra = '') => `version: 1
resources:
  german:
    type: streaming_video_subtitle
    video_id: 9877
    language: ger
    name: Deutsch
    vtt_file: subtitles/ger.vtt
${extra}`;
  const subtitlesOf = (video: number, language: string) => emu.state.videos.get(video)!.subtitles.filter((s) => s.language === language);

  it('creates from a .vtt file, plans no changes, updates the text when the file changes, and destroys it with ensure: absent', async () => {
    const stack = stackIn({ 'stack.yaml': subtitleYaml(), 'subtitles/ger.vtt': VTT_DE });
    const planned = await runCliInProcess(['plan', stack], { env });
    expect(planned.code, output(planned)).toBe(0);
    expect(planned.stdout).toContain('# streaming_video_subtitle.german will be created (to be found by video_id 9877 and language "ger")');
    expect(planned.stdout).toContain('+ subtitle_id: (known after apply)');
    expect(planned.stdout).toContain('+ vtt_file: "subtitles/ger.vtt"');
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const created = await applyOk(stack);
    expect(subtitlesOf(9877, 'ger')).toEqual([{ id: expect.any(Number), name: 'Deutsch', language: 'ger', vtt: VTT_DE }]);
    const id = subtitlesOf(9877, 'ger')[0]!.id;
    expect(output(created)).toContain(String(id));
    await expectNoChanges(stack);

    writeFileSync(join(stack, '..', 'subtitles/ger.vtt'), VTT_DE_2);
    const update = await runCliInProcess(['plan', stack], { env });
    expect(update.stdout).toContain('# streaming_video_subtitle.german will be updated in-place (found by video_id 9877 and language "ger")');
    expect(update.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    await applyOk(stack);
    expect(subtitlesOf(9877, 'ger')).toEqual([{ id, name: 'Deutsch', language: 'ger', vtt: VTT_DE_2 }]);
    await expectNoChanges(stack);

    writeFileSync(stack, subtitleYaml('    ensure: absent\n'));
    const destroy = await runCliInProcess(['plan', stack], { env });
    expect(destroy.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
    await applyOk(stack);
    expect(subtitlesOf(9877, 'ger')).toEqual([]);
    expect(emu.state.videos.get(9877)!.subtitles.map((s) => s.language)).toEqual(['eng']);
    await expectNoChanges(stack);
  });

  it('the example examples/subtitles.yaml plans one create against the demo world, applies, and then plans no changes', async () => {
    const stack = example('subtitles.yaml');
    const planned = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env });
    expect(planned.code, output(planned)).toBe(2);
    expect(planned.stdout).toContain('+ vtt_file: "subtitles/fre.vtt"');
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    await runCliInProcess(['apply', stack, '--auto-approve', '--lock=false'], { env });
    expect(subtitlesOf(9877, 'fre')).toEqual([expect.objectContaining({ name: 'Français', vtt: expect.stringContaining('Voici la visite du produit.') })]);
    await expectNoChanges(stack);
  });

  it('a create whose answer was lost is confirmed by its re-read, never sent twice', async () => {
    const stack = stackIn({ 'stack.yaml': subtitleYaml(), 'subtitles/ger.vtt': VTT_DE });
    emu.faults.dropNext({ method: 'POST', path: '/streaming/videos/{video_id}/subtitles', when: 'after' });
    const applied = await applyOk(stack);
    expect(output(applied)).toContain('1 added');
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(subtitlesOf(9877, 'ger')).toHaveLength(1);
    await expectNoChanges(stack);
  });

  it('refuses to plan a video whose language has two subtitles, naming both ids', async () => {
    const video = emu.state.videos.get(9876)!;
    video.subtitles.push({ id: 1500, name: 'English (2)', language: 'eng', vtt: VTT_DE });
    const stack = stackIn({ 'stack.yaml': `version: 1\nresources:\n  english: { type: streaming_video_subtitle, video_id: 9876, language: eng, vtt: "WEBVTT\\n" }\n` });
    const result = await runCliInProcess(['plan', stack], { env });
    expect(result.code).toBe(1);
    expect(output(result)).toContain('2 streaming_video_subtitle resources match video_id 9876 and language "eng": ids 1000, 1500');
    expect(output(result)).toContain('set subtitle_id in the block');
  });

  describe('a vtt_file that cannot be used is a validate error with file:line:col, before anything is read', () => {
    it.each([
      ['a missing file', {}, 'stack.yaml:8:15: error: vtt_file "subtitles/ger.vtt": no such file'],
      ['a file that is not WebVTT', { 'subtitles/ger.vtt': '1\n00:00:01,000 --> 00:00:04,000\nHallo\n' }, 'ger.vtt:1:1: error: '],
      ['a cue timing that is not well-formed', { 'subtitles/ger.vtt': 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04,000\nHallo\n' }, 'ger.vtt:4:18: error: '],
    ])('%s', async (_what, files: Record<string, string>, expected) => {
      const stack = stackIn({ 'stack.yaml': subtitleYaml(), ...files });
      const result = await runCliInProcess(['validate', stack], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(expected);
      expect(emu.requests).toEqual([]);
    });

    it('names the file and line of a file that is not WebVTT, and says why', async () => {
      const stack = stackIn({ 'stack.yaml': subtitleYaml(), 'subtitles/ger.vtt': 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04,000\nHallo\n' });
      const result = await runCliInProcess(['validate', stack], { env });
      expect(result.stderr).toContain(
        `${join(stack, '..', 'subtitles', 'ger.vtt')}:4:18: error: ${join(stack, '..', 'subtitles', 'ger.vtt')} is not a WebVTT file: "00:00:04,000" is not a WebVTT timestamp`,
      );
      expect(result.stderr).toContain('Read for vtt_file of streaming_video_subtitle.german');
    });

    it('a path outside the stack directory', async () => {
      const dir = writeStackFiles({ 'stacks/stack.yaml': subtitleYaml().replace('subtitles/ger.vtt', '../ger.vtt'), 'ger.vtt': VTT_DE });
      const result = await runCliInProcess(['validate', join(dir, 'stacks', 'stack.yaml')], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('stack.yaml:8:15: error: vtt_file "../ger.vtt" is outside the stack\'s directory');
    });
  });
});

describe('iam_reseller_notification_setting through the CLI', () => {
  const settingYaml = (extra = '') => `version: 1
defaults:
  reseller_id: 7
resources:
  noc_logins:
    type: iam_reseller_notification_setting
    notification_type: failed_login
    email: noc@example.com
${extra}`;
  const settingsWith = (email: string) => [...emu.state.notificationSettings.values()].filter((s) => s.email === email);

  it('creates by its natural key, plans no changes, updates enabled in place, and destroys it with ensure: absent', async () => {
    const stack = stackIn({ 'stack.yaml': settingYaml('    enabled: false\n') });
    const planned = await runCliInProcess(['plan', stack], { env });
    expect(planned.stdout).toContain(
      '# iam_reseller_notification_setting.noc_logins will be created (to be found by reseller_id 7, notification_type "failed_login" and email "noc@example.com")',
    );
    await applyOk(stack);
    expect(settingsWith('noc@example.com')).toEqual([{ id: 5, reseller: 7, notification_type: 'failed_login', email: 'noc@example.com', enabled: false }]);
    await expectNoChanges(stack);

    writeFileSync(stack, settingYaml('    enabled: true\n'));
    const update = await runCliInProcess(['plan', stack], { env });
    expect(update.stdout).toContain('~ enabled: false -> true');
    await applyOk(stack);
    expect(settingsWith('noc@example.com')).toEqual([{ id: 5, reseller: 7, notification_type: 'failed_login', email: 'noc@example.com', enabled: true }]);
    await expectNoChanges(stack);

    writeFileSync(stack, settingYaml('    ensure: absent\n'));
    await applyOk(stack);
    expect(settingsWith('noc@example.com')).toEqual([]);
    expect([...emu.state.notificationSettings.keys()]).toEqual([3, 4]);
    await expectNoChanges(stack);
  });

  it('refuses to plan a key two settings share, naming both ids', async () => {
    emu.state.notificationSettings.set(8, { id: 8, reseller: 7, notification_type: 'failed_login', email: 'noc@example.com', enabled: true });
    emu.state.notificationSettings.set(9, { id: 9, reseller: 7, notification_type: 'failed_login', email: 'noc@example.com', enabled: false });
    const result = await runCliInProcess(['plan', stackIn({ 'stack.yaml': settingYaml() })], { env });
    expect(result.code).toBe(1);
    expect(output(result)).toContain('2 iam_reseller_notification_setting resources match reseller_id 7, notification_type "failed_login" and email "noc@example.com": ids 8, 9');
  });
});

describe('cloud_quota_limit_request through the CLI', () => {
  const requestYaml = (limits: string, extra = '') => `version: 1
resources:
  gpu_quota:
    type: cloud_quota_limit_request
    description: GPUs for the inference project
    requested_limits:
${limits}${extra}`;
  const FOUR = '      regional_limits:\n        - { region_id: 76, gpu_count_limit: 4 }\n';
  const EIGHT = '      regional_limits:\n        - { region_id: 76, gpu_count_limit: 8 }\n      global_limits: { inference_instance_count_limit: 2 }\n';
  const requestsNamed = () => [...emu.state.quotaRequests.values()].filter((r) => r.description === 'GPUs for the inference project');

  it('creates by description, plans no changes, replaces it when its limits change, and destroys it with ensure: absent', async () => {
    const stack = stackIn({ 'stack.yaml': requestYaml(FOUR) });
    await applyOk(stack);
    expect(requestsNamed()).toEqual([expect.objectContaining({ id: 44, status: 'in progress', requested_limits: { regional_limits: [{ region_id: 76, gpu_count_limit: 4 }] } })]);
    await expectNoChanges(stack);

    writeFileSync(stack, requestYaml(EIGHT));
    const replace = await runCliInProcess(['plan', stack], { env });
    expect(replace.stdout).toContain('-/+ destroy and then create replacement');
    expect(replace.stdout).toContain('# cloud_quota_limit_request.gpu_quota must be replaced (found by description "GPUs for the inference project")');
    expect(replace.stdout).toContain('# forces replacement');
    expect(replace.stdout).toContain('# status: in progress');
    expect(replace.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    await applyOk(stack);
    expect(requestsNamed()).toEqual([
      expect.objectContaining({ requested_limits: { regional_limits: [{ region_id: 76, gpu_count_limit: 8 }], global_limits: { inference_instance_count_limit: 2 } } }),
    ]);
    expect(emu.mutations.filter((m) => m.kind === 'quota_request').map((m) => `${m.change} ${m.id}`)).toEqual(['create 44', 'delete 44', 'create 44']);
    await expectNoChanges(stack);

    writeFileSync(stack, requestYaml(EIGHT, '    ensure: absent\n'));
    await applyOk(stack);
    expect(requestsNamed()).toEqual([]);
    expect([...emu.state.quotaRequests.keys()]).toEqual([42, 43]);
    await expectNoChanges(stack);
  });

  it('refuses to plan a description two requests share, naming both ids', async () => {
    for (const description of ['GPUs for the inference project', 'GPUs for the inference project']) {
      expect((await emu.call('POST', '/cloud/v2/limits_request', { body: { description, requested_limits: { global_limits: { keypair_count_limit: 1 } } } })).status).toBe(201);
    }
    const result = await runCliInProcess(['plan', stackIn({ 'stack.yaml': requestYaml(FOUR) })], { env });
    expect(result.code).toBe(1);
    expect(output(result)).toContain('2 cloud_quota_limit_request resources match description "GPUs for the inference project": ids 44, 45');
  });

  it('refuses an unknown limit name at validate time with its line and column and a did-you-mean', async () => {
    const stack = stackIn({ 'stack.yaml': requestYaml('      regional_limits:\n        - region_id: 76\n          gpu_count_limits: 4\n') });
    const result = await runCliInProcess(['validate', stack], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'stack.yaml:9:11: error: unknown field "gpu_count_limits" in cloud_quota_limit_request requested_limits.regional_limits[0]; did you mean "gpu_count_limit"?',
    );
  });
});
