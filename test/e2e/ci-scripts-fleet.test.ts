import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mergeResults } from '../../src/plan/fleet-report.js';
import { renderReportMarkdown, reportMarker, toReportJson } from '../../src/render/report-merge.js';
import { emulatorEnv } from '../helpers/apply.js';
import { createScratchDir, runCiScript, type ScratchDir } from '../helpers/ci-script.js';
import { runCli } from '../helpers/cli.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startFakeGitHub, startFakeGitLab } from '../helpers/fake-forge.js';
import { IN_SYNC } from '../helpers/demo-stacks.js';

/**
 * The fleet drift recipes (examples/ci/github-fleet-drift.yml, gitlab-fleet-drift.yml): the shard
 * script against the emulator, merged as the report job merges; and the fleet's one drift issue
 * against local fakes of the GitHub and GitLab REST APIs, run after run.
 */
let dir: ScratchDir;
beforeEach(() => void (dir = createScratchDir()));
afterEach(() => dir.remove());

describe('fleet-sweep.mjs: one shard of the matrix', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    emu.state.instances.get(DEMO.instance)!.flavor_id = 'g2-standard-8-16';
  });
  afterAll(() => emu.close());

  it('runs drift on every valid stack of its shard, N shards together once each, and the merge sees them all', async () => {
    const stacks = Array.from({ length: 4 }, (_, i) => i);
    mkdirSync(join(dir.path, 'stacks'));
    for (const i of stacks) dir.write(`stacks/s${i}.yaml`, i === 2 ? IN_SYNC : IN_SYNC.replace(/ *web_vm: .*\n/, ''));
    dir.write('stacks/broken.yaml', 'version: 1\nbogus: true\n');
    const env = emulatorEnv(emu);
    for (const shard of ['1/2', '2/2']) {
      const result = await runCiScript('fleet-sweep.mjs', ['--root', 'stacks', '--shard', shard, '--out', 'results'], env, dir.path);
      expect(result.stderr).not.toContain('::error::');
      expect(result.code).toBe(0);
    }
    const files = readdirSync(join(dir.path, 'results')).sort();
    expect(files.filter((f) => f.startsWith('stacks-'))).toEqual(['stacks-1-of-2.json', 'stacks-2-of-2.json']);
    // Each valid stack once, in whichever shard it hashes to; the invalid one only in its shard's listing.
    expect(files.filter((f) => f.startsWith('drift-'))).toEqual(stacks.map((i) => `drift-s${i}.yaml.json`));
    const drifted = JSON.parse(readFileSync(join(dir.path, 'results', 'drift-s2.yaml.json'), 'utf8'));
    expect(drifted).toMatchObject({ in_sync: false, exit_code: 2 });

    const merged = await runCli(['report', 'merge', 'results', '--format', 'json'], { cwd: dir.path });
    expect(merged.code).toBe(1);
    expect(JSON.parse(merged.stdout).stacks.map((s: { path: string; status: string }) => [s.path, s.status])).toEqual([
      ['stacks/broken.yaml', 'error'],
      ['stacks/s2.yaml', 'differs'],
      ...[0, 1, 3].map((i) => [`stacks/s${i}.yaml`, 'same']),
    ]);
  });

  it('fails with one line when it cannot list the shard', async () => {
    const result = await runCiScript('fleet-sweep.mjs', ['--root', 'nowhere', '--shard', '1/2'], {}, dir.path);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: edgeform stacks nowhere --shard 1/2 listed nothing (exit 1)');
    const usage = await runCiScript('fleet-sweep.mjs', ['--root', 'stacks'], {}, dir.path);
    expect(usage.stderr).toContain('error: --shard I/N is required');
  });
});

/** A merged report of stacks in these states, written as the report job writes it (report.json, report.md). */
function writeReport(states: Record<string, 'drifted' | 'in-sync' | 'error'>): void {
  const files = Object.entries(states).map(([path, state]) => ({
    name: `${path}.json`,
    text: JSON.stringify({
      format_version: '1.0',
      stack: { sources: [path], digest: 'd' },
      in_sync: state === 'in-sync',
      drifted:
        state === 'drifted'
          ? [
              {
                address: 'cloud_floating_ip.ip',
                type: 'cloud_floating_ip',
                kind: 'changed',
                fields: [{ field: 'tags.env', stack: 'prod', platform: 'x' }],
                message: '1 declared field differs',
              },
            ]
          : [],
      failing_checks: [],
      errors:
        state === 'error' ? [{ severity: 'error', code: 'EDGEFORM_PLATFORM_UNAVAILABLE', summary: 'the platform is unavailable', detail: null, address: null, range: null }] : [],
    }),
  }));
  const report = mergeResults(files);
  dir.write('report.json', JSON.stringify(toReportJson(report, 'fleet'), null, 2));
  dir.write('report.md', renderReportMarkdown(report, { name: 'fleet' }));
}

const MARKER = reportMarker('fleet');
const ARGS = ['--report-file', 'report.json', '--body-file', 'report.md'];

describe('fleet-drift-issue.mjs on GitHub: one issue for the fleet', () => {
  const TOKEN = 'ghs_fake$token';
  let github: Awaited<ReturnType<typeof startFakeGitHub>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    github = await startFakeGitHub(TOKEN);
  });
  afterAll(() => github.close());
  beforeEach(() => {
    github.state.issues.length = 0;
    github.state.comments.clear();
    github.calls().length = 0;
    env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_API_URL: github.apiUrl,
      GITHUB_REPOSITORY: github.repo,
      GITHUB_TOKEN: TOKEN,
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_RUN_ID: '99',
    };
  });
  const writes = () => github.calls().filter((c) => c.call.split(' ')[0] !== 'GET');
  const sweep = async (states: Record<string, 'drifted' | 'in-sync' | 'error'>) => {
    writeReport(states);
    github.calls().length = 0;
    const result = await runCiScript('fleet-drift-issue.mjs', ARGS, env, dir.path);
    expect(result.stderr).toBe('');
    return result.outputs;
  };
  const comments = () => (github.state.comments.get(3) ?? []).map((c) => c.body);

  it('opens it once, comments only when a stack newly drifts or comes back, and closes it when all are in sync', async () => {
    // A single stack's drift issue and a pull request with the label are left alone.
    github.state.issues.push(
      { number: 1, title: 'drift staging', body: '<!-- edgeform:drift stack=stacks/staging.yaml -->\n', labels: ['edgeform-drift'], state: 'open' },
      { number: 2, title: 'a pull request', body: `${MARKER}\n`, labels: ['edgeform-drift'], state: 'open', pull_request: {} },
    );
    expect(await sweep({ 'stacks/a.yaml': 'drifted', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'opened', issue: '3', 'newly-drifted': '1' });
    expect(writes().map((c) => c.call)).toEqual(['POST /repos/acme/stacks/issues']);
    const issue = github.state.issues[2]!;
    expect(issue).toMatchObject({ title: 'edgeform drift in fleet', labels: ['edgeform-drift'] });
    expect(issue.body.split('\n').slice(0, 3)).toEqual([MARKER, expect.stringMatching(/^<!-- edgeform:drifted [0-9a-f]{12} -->$/), '### edgeform drift: 2 stacks']);

    // The same drift again: the body is updated, nobody is notified.
    expect(await sweep({ 'stacks/a.yaml': 'drifted', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'updated', 'newly-drifted': '0', 'back-in-sync': '0' });
    expect(writes().map((c) => c.call)).toEqual(['PATCH /repos/acme/stacks/issues/3']);

    expect(await sweep({ 'stacks/a.yaml': 'drifted', 'stacks/b.yaml': 'drifted' })).toMatchObject({ action: 'commented', 'newly-drifted': '1' });
    expect(writes().map((c) => c.call)).toEqual(['PATCH /repos/acme/stacks/issues/3', 'POST /repos/acme/stacks/issues/3/comments']);
    expect(comments()).toEqual(['edgeform drift: **newly drifted**: ` stacks/b.yaml ` ([log](https://github.example/acme/stacks/actions/runs/99)).']);

    // a comes back; b could not be compared: it keeps its state (no "back in sync", no "newly drifted" next time).
    expect(await sweep({ 'stacks/a.yaml': 'in-sync', 'stacks/b.yaml': 'error' })).toMatchObject({ action: 'commented', 'back-in-sync': '1' });
    expect(comments()[1]).toBe('edgeform drift: **back in sync**: ` stacks/a.yaml ` ([log](https://github.example/acme/stacks/actions/runs/99)).');
    expect(await sweep({ 'stacks/a.yaml': 'in-sync', 'stacks/b.yaml': 'drifted' })).toMatchObject({ action: 'updated' });
    expect(comments()).toHaveLength(2);

    expect(await sweep({ 'stacks/a.yaml': 'in-sync', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'closed', issue: '3', 'back-in-sync': '1' });
    expect(writes().map((c) => c.call)).toEqual(['POST /repos/acme/stacks/issues/3/comments', 'PATCH /repos/acme/stacks/issues/3']);
    expect(comments()[2]).toBe(
      'edgeform drift found all 2 stacks of ` fleet ` in sync again (back in sync: ` stacks/b.yaml `) ([log](https://github.example/acme/stacks/actions/runs/99)); closing.',
    );
    expect(github.state.issues[2]).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(github.state.issues.filter((i) => i.state === 'open').map((i) => i.number)).toEqual([1, 2]);

    // In sync with no issue, or nothing but errors with no issue: nothing to do.
    expect(await sweep({ 'stacks/a.yaml': 'in-sync' })).toMatchObject({ action: 'none' });
    expect(await sweep({ 'stacks/a.yaml': 'error', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'none' });
    expect(writes()).toEqual([]);
  });

  it('refuses a report that is not the merge JSON, and a body without the report marker, before any request', async () => {
    dir.write('report.json', '{"stacks": []}');
    dir.write('report.md', `${MARKER}\n`);
    const bad = await runCiScript('fleet-drift-issue.mjs', ARGS, env, dir.path);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('::error::report.json is not the JSON of edgeform report merge --format json\n');
    writeReport({ 'stacks/a.yaml': 'drifted' });
    dir.write('report.md', '# something else\n');
    const body = await runCiScript('fleet-drift-issue.mjs', ARGS, env, dir.path);
    expect(body.code).toBe(1);
    expect(body.stderr).toContain('report.md does not start with <!-- edgeform:report name=fleet -->');
    expect(writes()).toEqual([]);
  });
});

describe('fleet-drift-issue.mjs on GitLab', () => {
  const TOKEN = 'glpat-fake$token';
  let gitlab: Awaited<ReturnType<typeof startFakeGitLab>>;
  beforeAll(async () => {
    gitlab = await startFakeGitLab(TOKEN);
  });
  afterAll(() => gitlab.close());

  it('opens the issue, notes a newly drifted stack, and closes it when all are in sync', async () => {
    const env = {
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.apiUrl,
      CI_PROJECT_ID: gitlab.projectId,
      GITLAB_TOKEN: TOKEN,
      CI_JOB_URL: 'https://gitlab.example/acme/stacks/-/jobs/77',
    };
    const sweep = async (states: Record<string, 'drifted' | 'in-sync' | 'error'>) => {
      writeReport(states);
      return (await runCiScript('fleet-drift-issue.mjs', ARGS, env, dir.path)).outputs;
    };
    expect(await sweep({ 'stacks/a.yaml': 'drifted', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'opened', issue: '1' });
    expect(gitlab.state.issues[0]).toMatchObject({ title: 'edgeform drift in fleet', labels: ['edgeform-drift'], state: 'opened' });
    expect(gitlab.state.issues[0]!.description.startsWith(`${MARKER}\n<!-- edgeform:drifted `)).toBe(true);
    expect(await sweep({ 'stacks/a.yaml': 'drifted', 'stacks/b.yaml': 'drifted' })).toMatchObject({ action: 'commented' });
    expect(gitlab.state.issues[0]!.notes).toEqual(['edgeform drift: **newly drifted**: ` stacks/b.yaml ` ([log](https://gitlab.example/acme/stacks/-/jobs/77)).']);
    expect(await sweep({ 'stacks/a.yaml': 'in-sync', 'stacks/b.yaml': 'in-sync' })).toMatchObject({ action: 'closed' });
    expect(gitlab.state.issues[0]).toMatchObject({ state: 'closed' });
    expect(
      gitlab
        .calls()
        .map((c) => c.call)
        .filter((c) => !c.startsWith('GET')),
    ).toEqual(['POST /projects/42/issues', 'PUT /projects/42/issues/1', 'POST /projects/42/issues/1/notes', 'POST /projects/42/issues/1/notes', 'PUT /projects/42/issues/1']);
  });
});
