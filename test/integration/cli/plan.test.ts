import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../cmd/run-cli.js';
import { captureStream } from '../../helpers/capture.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { PLAN_FORMAT_VERSION } from '../../../src/plan/types.js';

const INSTANCE = '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}';
const ANSI = /\u001b\[/;

let emu: TestEmulator;
/** Every text the CLI produced in this file (stdout, stderr, saved plans): none may hold the key. */
const outputs: string[] = [];

useTestEmulator((started) => (emu = started));

/** Runs `edgeform plan ARGS` against the emulator; env entries override (undefined removes). */
async function plan(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const result = await runCliInProcess(['plan', ...args], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, ...env } });
  outputs.push(result.stdout, result.stderr);
  expect(result.stdout).not.toContain(emu.apiKey);
  expect(result.stderr).not.toContain(emu.apiKey);
  return result;
}

function readSaved(file: string): string {
  const text = readFileSync(file, 'utf8');
  outputs.push(text);
  expect(text).not.toContain(emu.apiKey);
  return text;
}

const tempFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'edgeform-plan-')), name);

describe('edgeform plan: exit codes', () => {
  it('exits 0 when the plan has changes and --detailed-exitcode is not given', async () => {
    const result = await plan(['examples/quickstart.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Plan: 0 to add, 4 to change, 3 to destroy.');
  });

  it('exits 0 with --detailed-exitcode when nothing would change', async () => {
    const result = await plan(['examples/checks.yaml', '--detailed-exitcode']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No changes. Your infrastructure matches the configuration.');
  });

  it("exits 1 on a failed read, printing that resource's address and the platform's message, and still plans the rest", async () => {
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const result = await plan(['examples/quickstart.yaml', '--detailed-exitcode']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('error: reading cloud_instance.web_vm failed:');
    expect(result.stdout).toContain('Forbidden (injected by the emulator)');
    expect(result.stdout).toContain('  on resource cloud_instance.web_vm');
    // The code frame of the resource's block, from the stack text loadStack already read.
    expect(result.stdout).toMatch(/> \s*\d+ \|\s+web_vm:/);
    for (const address of ['cloud_floating_ip.web_ip', 'cloud_k8s_cluster.cluster', 'fastedge_app.legacy_app', 'iam_reseller_notification_setting.login_alerts']) {
      expect(result.stdout).toContain(`# ${address} will be`);
    }
    expect(result.stdout).not.toContain('# cloud_instance.web_vm will be');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Plan failed: 1 error; nothing can be applied until it is fixed. The rest of the plan: 0 to add, 3 to change, 3 to destroy.',
    );
  });

  it('exits 1 when a check fails to evaluate, naming the check', async () => {
    emu.faults.failNext({ method: 'GET', path: '/streaming/ai/tasks', status: 400 });
    const result = await plan(['examples/checks.yaml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('check streaming_ai_tasks.');
  });
});

describe('edgeform plan: formats', () => {
  it('prints versioned JSON with actions per resource, checks, applyable and errored', async () => {
    const result = await plan(['examples/quickstart.yaml', '--format', 'json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.format_version).toBe(PLAN_FORMAT_VERSION);
    expect(json.applyable).toBe(true);
    expect(json.errored).toBe(false);
    expect(Object.fromEntries(json.resource_changes.map((c: any) => [c.address, c.action]))).toEqual({
      'cloud_floating_ip.web_ip': 'update',
      'cloud_instance.web_vm': 'update',
      'cloud_k8s_cluster.cluster': 'update',
      'fastedge_app.legacy_app': 'delete',
      'streaming_player.old_player': 'delete',
      'iam_reseller_notification_setting.login_alerts': 'update',
      'cloud_quota_limit_request.stale_request': 'delete',
    });
    expect(json.checks.map((c: any) => [c.address, c.status])).toEqual([
      ['streaming_video_subtitles.subtitles_ready', 'pass'],
      ['streaming_ai_tasks.no_failed_transcriptions', 'pass'],
    ]);
    expect(result.stderr).toBe('');
  });

  it('prints an errored JSON plan on a failed read: errored, not applyable, the diagnostic with its address', async () => {
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const result = await plan(['examples/quickstart.yaml', '--format', 'json']);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ errored: true, applyable: false });
    expect(json.diagnostics).toHaveLength(1);
    expect(json.diagnostics[0]).toMatchObject({ severity: 'error', address: 'cloud_instance.web_vm' });
    expect(json.diagnostics[0].summary).toContain('Forbidden (injected by the emulator)');
  });

  it('prints Markdown with the sticky-comment marker, the destroy warning and the text plan in <details>', async () => {
    const result = await plan(['examples/cleanup.yaml', '--format', 'markdown']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('<!-- edgeform:plan stack=examples/cleanup.yaml -->');
    expect(result.stdout).toContain('> [!WARNING]\n> This plan **destroys 3 resources**. Deletion cannot be undone.');
    expect(result.stdout).toContain('<details><summary>Full plan</summary>');
    expect(result.stdout).toContain('</details>');
    expect(result.stdout).toContain('Plan: 0 to add, 0 to change, 3 to destroy.');
  });

  it('states in the Markdown comment the commit from GITHUB_SHA, else CI_COMMIT_SHA, and the time planned', async () => {
    const github = await plan(['examples/cleanup.yaml', '--format', 'markdown'], { GITHUB_SHA: 'a'.repeat(40), CI_COMMIT_SHA: 'b'.repeat(40) });
    expect(github.stdout).toMatch(/_Planned commit `a{12}` at `\d{4}-\d\d-\d\dT[\d:.]+Z`\._/);
    const gitlab = await plan(['examples/cleanup.yaml', '--format', 'markdown'], { CI_COMMIT_SHA: 'b'.repeat(40) });
    expect(gitlab.stdout).toContain('_Planned commit `bbbbbbbbbbbb` at');
    const local = await plan(['examples/cleanup.yaml', '--format', 'markdown'], { GITHUB_SHA: undefined, CI_COMMIT_SHA: undefined });
    expect(local.stdout).toMatch(/_Planned at `[^`]+`\._/);
  });

  it('prints a failed plan as a Markdown comment with the error outside the collapsed plan', async () => {
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const result = await plan(['examples/quickstart.yaml', '--format', 'markdown']);
    expect(result.code).toBe(1);
    const opened = result.stdout.slice(0, result.stdout.indexOf('<details>'));
    expect(opened).toContain('**Plan failed** with 1 error');
    expect(opened).toMatch(/\*\*Errors\*\*\n\n- `examples\/quickstart\.yaml:\d+:\d+` `reading cloud_instance\.web_vm failed: [^`]*Forbidden/);
    expect(result.stdout).toContain('```diff\n');
  });

  it('prints no ANSI codes with --no-color or NO_COLOR', async () => {
    for (const [args, env] of [
      [['--no-color'], { NO_COLOR: undefined }],
      [[], { NO_COLOR: '1' }],
    ] as const) {
      const result = await plan(['examples/quickstart.yaml', ...args], env);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(ANSI);
      expect(result.stderr).not.toMatch(ANSI);
    }
  });
});

describe('edgeform plan: colour on a terminal', () => {
  /** Runs plan in-process with a stdout that claims to be a TTY (a spawned CLI never has one). */
  async function planOnTty(args: string[], env: Record<string, string> = {}): Promise<string> {
    const stdout = captureStream({ isTTY: true });
    const stderr = captureStream();
    const code = await runCli(['plan', 'examples/cleanup.yaml', ...args], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, ...env }, stdout, stderr });
    expect(code).toBe(0);
    outputs.push(stdout.text(), stderr.text());
    return stdout.text();
  }

  it('colours the plan on a terminal', async () => {
    expect(await planOnTty([])).toMatch(ANSI);
  });

  it('prints no ANSI codes on a terminal with --no-color', async () => {
    expect(await planOnTty(['--no-color'])).not.toMatch(ANSI);
  });

  it('prints no ANSI codes on a terminal with NO_COLOR set', async () => {
    expect(await planOnTty([], { NO_COLOR: '1' })).not.toMatch(ANSI);
  });
});

describe('edgeform plan --out', () => {
  it('writes the Plan value, readable only by its owner, and says how to apply it', async () => {
    const file = tempFile('plan.json');
    const result = await plan(['examples/quickstart.yaml', '--out', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Saved the plan to ${file}. To perform exactly these actions, run: edgeform apply ${file}`);
    const saved = JSON.parse(readSaved(file));
    expect(saved).toMatchObject({ format_version: PLAN_FORMAT_VERSION, base_url: emu.url, applyable: true, errored: false, summary: { change: 4, destroy: 3 } });
    const fip = saved.resource_changes.find((c: any) => c.address === 'cloud_floating_ip.web_ip');
    expect(fip).toMatchObject({ action: 'update', payload: { tags_patch: { env: 'prod', owner: null } } });
    expect(saved.resource_changes.find((c: any) => c.address === 'cloud_k8s_cluster.cluster').payload).toEqual({ upgrade_path: ['v1.30.6', 'v1.31.3'] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('does not write the file when the plan errored', async () => {
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const file = tempFile('plan.json');
    const result = await plan(['examples/quickstart.yaml', '--out', file]);
    expect(result.code).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(result.stderr).toContain(`The plan has errors, so it was not saved to ${file}.`);
  });

  it('removes an older plan file at the same path when the new plan errored, so it cannot be applied by mistake', async () => {
    const file = tempFile('plan.json');
    expect((await plan(['examples/quickstart.yaml', '--out', file])).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const result = await plan(['examples/quickstart.yaml', '--out', file]);
    expect(result.code).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(result.stderr).toContain(`The older plan file at ${file} was removed`);
  });

  it('never removes or overwrites a file at --out that is not a plan file', async () => {
    const file = tempFile('notes.txt');
    writeFileSync(file, 'my notes\n');
    emu.faults.failNext({ method: 'GET', path: INSTANCE, status: 403 });
    const errored = await plan(['examples/quickstart.yaml', '--out', file]);
    expect(errored.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');

    const refused = await plan(['examples/quickstart.yaml', '--out', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the file exists and is not an edgeform plan file; refusing to overwrite it');
    expect(readFileSync(file, 'utf8')).toBe('my notes\n');
  });
});

describe('edgeform plan --target', () => {
  it('plans the target and what it depends on, and reads nothing else', async () => {
    const result = await plan(['examples/quickstart.yaml', '--target', 'cloud_k8s_cluster.cluster', '--format', 'json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.resource_changes.map((c: any) => c.address)).toEqual(['cloud_instance.web_vm', 'cloud_k8s_cluster.cluster']);
    expect(json.checks).toEqual([]);
    const paths = new Set(emu.requests.map((r) => r.path));
    expect([...paths].sort()).toEqual(
      [
        `/cloud/v1/instances/1/76/${DEMO.instance}`,
        `/cloud/v1/instances/1/76/${DEMO.instance}/available_flavors`,
        `/cloud/v2/k8s/clusters/1/76/${DEMO.cluster}`,
        `/cloud/v2/k8s/clusters/1/76/${DEMO.cluster}/upgrade_versions`,
      ].sort(),
    );
  });

  it("prints Terraform's targeting warning and names the skipped checks, in text, Markdown and JSON", async () => {
    const skipped = '2 checks were not selected and skipped: streaming_video_subtitles.subtitles_ready, streaming_ai_tasks.no_failed_transcriptions.';
    const args = ['examples/quickstart.yaml', '--target', 'cloud_floating_ip.web_ip'];
    const text = await plan(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('warning: Resource targeting is in effect');
    expect(text.stdout).toContain('--target is not for routine use');
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(skipped);
    const markdown = await plan([...args, '--format', 'markdown']);
    const opened = markdown.stdout.slice(0, markdown.stdout.indexOf('<details>'));
    expect(opened).toContain('**Warnings**\n\n- `Resource targeting is in effect`');
    expect(opened).toContain(skipped);
    const json = JSON.parse((await plan([...args, '--format', 'json'])).stdout);
    expect(json.errored).toBe(false);
    expect(json.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'targeting-in-effect', summary: 'Resource targeting is in effect' })]);
    expect(json.diagnostics[0].detail).toContain(skipped);
  });

  it('prints no targeting warning without --target', async () => {
    const result = await plan(['examples/quickstart.yaml']);
    expect(result.stdout).not.toContain('targeting');
  });

  it('rejects an unknown target with a did-you-mean and sends nothing', async () => {
    const result = await plan(['examples/quickstart.yaml', '--target', 'cloud_k8s_cluster.clustr']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--target cloud_k8s_cluster.clustr: no resource or check with this address in the stack');
    expect(result.stderr).toContain('Did you mean "cloud_k8s_cluster.cluster"?');
    expect(emu.requests).toHaveLength(0);
  });
});

describe('edgeform plan: refusing to start', () => {
  it('rejects an invalid stack with file:line:col and sends no request', async () => {
    const result = await plan(['test/fixtures/invalid/bad-uuid/stack.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('test/fixtures/invalid/bad-uuid/stack.yaml:6:21: error: floating_ip_id must be a UUID');
    expect(result.stderr).toMatch(/> 6 \|/);
    expect(emu.requests).toHaveLength(0);
  });

  it('rejects an invalid stack in JSON with its diagnostics on stdout and sends no request', async () => {
    const result = await plan(['test/fixtures/invalid/bad-uuid/stack.yaml', '--format', 'json']);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout);
    expect(json.valid).toBe(false);
    expect(json.diagnostics[0].range.start).toEqual({ line: 6, column: 21 });
    expect(emu.requests).toHaveLength(0);
  });

  it('rejects an invalid stack in Markdown under the same sticky-comment marker and sends no request', async () => {
    const result = await plan(['test/fixtures/invalid/bad-uuid/stack.yaml', '--format', 'markdown']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('<!-- edgeform:plan stack=test/fixtures/invalid/bad-uuid/stack.yaml -->');
    expect(result.stdout).toContain('**The stack is invalid**; nothing was read or changed.');
    expect(result.stdout).toContain('stack.yaml:6:21: error: floating_ip_id must be a UUID');
    expect(emu.requests).toHaveLength(0);
  });

  it('refuses a plain-http base URL to a non-loopback host', async () => {
    const result = await plan(['examples/quickstart.yaml'], { EDGEFORM_BASE_URL: 'http://api.example.com' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('EDGEFORM_BASE_URL uses plain http:// to api.example.com; the API key would travel unencrypted.');
  });

  it('refuses a plain-http provider.base_url in the stack to a non-loopback host', async () => {
    const dir = writeStackFiles({
      'stack.yaml': 'version: 1\nprovider:\n  base_url: http://api.example.com\nresources:\n  old_player:\n    type: streaming_player\n    player_id: 55\n',
    });
    const result = await plan([join(dir, 'stack.yaml')], { EDGEFORM_BASE_URL: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('provider.base_url uses plain http:// to api.example.com');
  });

  it.each(['abc', '5', '1.5', '600001'])('rejects EDGEFORM_TASK_POLL_INTERVAL=%s and sends nothing', async (value) => {
    const result = await plan(['examples/quickstart.yaml'], { EDGEFORM_TASK_POLL_INTERVAL: value });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`EDGEFORM_TASK_POLL_INTERVAL must be a whole number of milliseconds from 10 to 600000, got "${value}"`);
    expect(emu.requests).toHaveLength(0);
  });

  it('accepts a valid EDGEFORM_TASK_POLL_INTERVAL', async () => {
    expect((await plan(['examples/checks.yaml'], { EDGEFORM_TASK_POLL_INTERVAL: '50' })).code).toBe(0);
  });
});

describe('edgeform plan: the API key', () => {
  it('refuses a stack that references ${env:EDGEFORM_API_KEY} and sends nothing', async () => {
    const dir = writeStackFiles({
      'stack.yaml':
        'version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  cluster:\n    type: cloud_k8s_cluster\n    cluster_name: "${env:EDGEFORM_API_KEY}"\n    version: v1.31.3\n',
    });
    const result = await plan([join(dir, 'stack.yaml'), '--format', 'json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).diagnostics[0]).toMatchObject({ code: 'secret-in-stack', range: { start: { line: 6, column: 19 } } });
    expect(emu.requests).toHaveLength(0);
  });

  it.each(['text', 'json', 'markdown'])('refuses in %s a stack that pulls the key in through another variable, without printing it, and sends nothing', async (format) => {
    const dir = writeStackFiles({
      'stack.yaml': [
        'version: 1',
        'defaults: { project_id: 1, region_id: 76 }',
        'resources:',
        '  cluster:',
        '    type: cloud_k8s_cluster',
        '    cluster_name: "${env:EDGEFORM_TEST_COPY}"',
        '    version: v1.31.3',
        'checks:',
        '  search:',
        '    type: streaming_ai_tasks',
        '    where: { search: "${env:EDGEFORM_TEST_COPY}" }',
        '    max_count: 0',
        '',
      ].join('\n'),
    });
    const file = tempFile('plan.json');
    const result = await plan([join(dir, 'stack.yaml'), '--format', format, '--out', file], { EDGEFORM_TEST_COPY: emu.apiKey });
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`.match(/this value contains the API key/g)).toHaveLength(2);
    expect(`${result.stdout}${result.stderr}`).not.toContain('[REDACTED]');
    expect(existsSync(file)).toBe(false);
    expect(emu.requests).toHaveLength(0);
  });

  it('never appears in anything plan printed or saved in this file', () => {
    expect(outputs.length).toBeGreaterThan(20);
    for (const text of outputs) expect(text).not.toContain(emu.apiKey);
  });
});
