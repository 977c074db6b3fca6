import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createScratchDir, runCiScript, type ScratchDir } from '../helpers/ci-script.js';
import { startFakeGitHub } from '../helpers/fake-forge.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';

/**
 * The scripts of the GitHub Actions recipe (examples/ci/github-actions.yml) against a fake of the
 * GitHub REST API on loopback: the requests they make and what they leave behind.
 */
const TOKEN = 'ghs_fake$token';
const HEAD = 'a'.repeat(40);
const MERGED = 'b'.repeat(40);
const STACK = 'stacks/prod.yaml';
const planMarker = (stack: string) => `<!-- edgeform:plan stack=${stack} -->`;
const driftMarker = (stack: string) => `<!-- edgeform:drift stack=${stack} -->`;

let github: Awaited<ReturnType<typeof startFakeGitHub>>;
let dir: ScratchDir;
let env: Record<string, string>;

beforeAll(async () => {
  github = await startFakeGitHub(TOKEN);
});
afterAll(() => github.close());
beforeEach(() => {
  github.state.comments.clear();
  github.state.issues.length = 0;
  github.state.runs.length = 0;
  github.state.pullsByCommit = {};
  delete github.state.nextPageOrigin;
  github.calls().length = 0;
  dir = createScratchDir();
  env = {
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: github.apiUrl,
    GITHUB_REPOSITORY: github.repo,
    GITHUB_TOKEN: TOKEN,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '99',
    GITHUB_SHA: MERGED,
    GITHUB_WORKFLOW_REF: `${github.repo}/.github/workflows/edgeform.yml@refs/heads/main`,
    GITHUB_EVENT_PATH: createEvent(),
  };
});
afterEach(() => dir.remove());

function createEvent(): string {
  return dir.write('event.json', JSON.stringify({ pull_request: { number: 7, head: { sha: HEAD } } }));
}
const writes = () => github.calls().filter((c) => c.call.split(' ')[0] !== 'GET');
const run = (script: string, args: string[]) => runCiScript(script, args, env, dir.path);

describe('upsert-comment.mjs on GitHub', () => {
  it('creates the plan comment once, then updates that same comment by its marker', async () => {
    // Three comments before ours, so the marker is looked for across pages (two per page).
    github.state.comments.set(7, [
      { id: 1, body: 'LGTM' },
      { id: 2, body: `${planMarker('stacks/staging.yaml')}\nanother stack's plan` },
      { id: 3, body: `quoting: ${planMarker(STACK)}` },
    ]);
    dir.write('plan.md', `${planMarker(STACK)}\n**Plan:** 0 to add, 1 to change, 0 to destroy.\n`);
    const first = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '2']);
    expect(first.code).toBe(0);
    expect(first.outputs).toEqual({ 'comment-id': '1000', action: 'created' });
    expect(github.calls().map((c) => c.call)).toEqual([
      'GET /repos/acme/stacks/issues/7/comments?per_page=100',
      'GET /repos/acme/stacks/issues/7/comments?per_page=100&page=2',
      'POST /repos/acme/stacks/issues/7/comments',
    ]);

    github.calls().length = 0;
    dir.write('plan.md', `${planMarker(STACK)}\n**No changes.**\n`);
    const second = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '0']);
    expect(second.outputs).toEqual({ 'comment-id': '1000', action: 'updated' });
    expect(writes()).toEqual([{ call: 'PATCH /repos/acme/stacks/issues/comments/1000', body: { body: `${planMarker(STACK)}\n**No changes.**\n` } }]);
    expect(github.state.comments.get(7)!.map((c) => c.id)).toEqual([1, 2, 3, 1000]);
    expect(github.state.comments.get(7)![1]!.body).toContain("another stack's plan");

    github.calls().length = 0;
    const third = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '0']);
    expect(third.outputs.action).toBe('unchanged');
    expect(writes()).toEqual([]);
  });

  it('still posts a note under the marker, linking the job log, when edgeform wrote no Markdown', async () => {
    const result = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '1']);
    expect(result.code).toBe(0);
    const body = writes()[0]!.body.body as string;
    expect(body.startsWith(`${planMarker(STACK)}\n`)).toBe(true);
    expect(body).toContain('failed (exit 1)');
    expect(body).toContain('https://github.example/acme/stacks/actions/runs/99');
  });

  it('refuses a body that is not the plan Markdown of that stack, and posts nothing', async () => {
    dir.write('plan.md', `${planMarker('stacks/other.yaml')}\nplan\n`);
    const result = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^::error::plan\.md does not start with <!-- edgeform:plan stack=stacks\/prod\.yaml -->/);
    expect(writes()).toEqual([]);
  });

  it('does not follow a next-page link to another origin, so the token goes nowhere else', async () => {
    const elsewhere = await startLoopbackServer((_req, res) => sendJson(res, 200, []));
    try {
      github.state.comments.set(7, [
        { id: 1, body: 'a' },
        { id: 2, body: 'b' },
        { id: 3, body: 'c' },
      ]);
      github.state.nextPageOrigin = elsewhere.url;
      dir.write('plan.md', `${planMarker(STACK)}\nplan\n`);
      const result = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`pointed the next page at another origin (${elsewhere.url})`);
      expect(elsewhere.requests).toEqual([]);
      expect(writes()).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('reports a refused token as one line naming the call, without the token', async () => {
    dir.write('plan.md', `${planMarker(STACK)}\nplan\n`);
    const result = await runCiScript('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md'], { ...env, GITHUB_TOKEN: 'wrong$token' }, dir.path);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('::error::GitHub API: GET /api/v3/repos/acme/stacks/issues/7/comments answered 401: Bad credentials');
    expect(result.stderr + result.stdout).not.toContain('wrong$token');
  });
});

describe('plan-artifact.mjs', () => {
  it("names the reviewed plan's artifact after the pull request's head commit and the stack", async () => {
    const result = await run('plan-artifact.mjs', ['--stack', STACK]);
    expect(result.code).toBe(0);
    expect(result.outputs).toEqual({ name: `edgeform-plan-${HEAD}-stacks_prod.yaml` });
    expect(github.calls()).toEqual([]);
  });

  it('refuses a head that is not a commit sha', async () => {
    const result = await run('plan-artifact.mjs', ['--stack', STACK, '--sha', 'main']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not a commit sha: "main"');
  });
});

describe('reviewed-plan.mjs on GitHub', () => {
  const artifact = `edgeform-plan-${HEAD}-stacks_prod.yaml`;

  it("finds the artifact of the newest successful plan run of this workflow for the merged pull request's head", async () => {
    github.state.pullsByCommit[MERGED] = [{ number: 7, merged_at: '2026-11-23T10:00:00Z', merge_commit_sha: MERGED, head: { sha: HEAD } }];
    github.state.runs.push(
      { id: 11, path: '.github/workflows/edgeform.yml', head_sha: HEAD, event: 'pull_request', conclusion: 'success', artifacts: [{ id: 1, name: artifact, expired: false }] },
      { id: 12, path: '.github/workflows/edgeform.yml', head_sha: HEAD, event: 'pull_request', conclusion: 'success', artifacts: [{ id: 2, name: artifact, expired: true }] },
      { id: 13, path: '.github/workflows/other.yml', head_sha: HEAD, event: 'pull_request', conclusion: 'success', artifacts: [{ id: 3, name: artifact, expired: false }] },
      { id: 14, path: '.github/workflows/edgeform.yml', head_sha: HEAD, event: 'pull_request', conclusion: 'failure', artifacts: [{ id: 4, name: artifact, expired: false }] },
    );
    const result = await run('reviewed-plan.mjs', ['--stack', STACK]);
    expect(result.stderr).toBe('');
    expect(result.outputs).toEqual({ change: '7', 'head-sha': HEAD, 'run-id': '11', artifact });
    expect(github.calls().map((c) => c.call)).toEqual([
      `GET /repos/acme/stacks/commits/${MERGED}/pulls`,
      `GET /repos/acme/stacks/actions/runs?per_page=100&event=pull_request&head_sha=${HEAD}&status=success`,
      `GET /repos/acme/stacks/actions/runs?per_page=100&event=pull_request&head_sha=${HEAD}&status=success&page=2`,
      `GET /repos/acme/stacks/actions/runs/12/artifacts?per_page=100&name=${artifact}`,
      `GET /repos/acme/stacks/actions/runs/11/artifacts?per_page=100&name=${artifact}`,
    ]);
  });

  it('fails, and names what is missing, when the merged commit has no reviewed plan', async () => {
    const noPull = await run('reviewed-plan.mjs', ['--stack', STACK]);
    expect(noPull.code).toBe(1);
    expect(noPull.stderr).toContain(`${MERGED} was not merged from a pull request: no reviewed plan to apply`);

    github.state.pullsByCommit[MERGED] = [{ number: 7, merged_at: '2026-11-23T10:00:00Z', merge_commit_sha: MERGED, head: { sha: HEAD } }];
    const noRun = await run('reviewed-plan.mjs', ['--stack', STACK]);
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toContain(`no successful plan run of .github/workflows/edgeform.yml for ${HEAD}, the head of pull request #7`);
    expect(noRun.outputs).toEqual({});
  });
});

describe('drift-issue.mjs on GitHub', () => {
  const drift = (text: string) => dir.write('drift.md', `${driftMarker(STACK)}\n${text}\n`);
  const args = (code: string) => ['--stack', STACK, '--body-file', 'drift.md', '--exit-code', code];

  it('opens one drift issue, updates it on the next drift, and closes it when the stack is in sync again', async () => {
    // Another stack's drift issue and a pull request with the label are left alone.
    github.state.issues.push(
      { number: 1, title: 'drift staging', body: `${driftMarker('stacks/staging.yaml')}\n`, labels: ['edgeform-drift'], state: 'open' },
      { number: 2, title: 'a pull request', body: `${driftMarker(STACK)}\n`, labels: ['edgeform-drift'], state: 'open', pull_request: {} },
    );
    drift('1 resource drifted');
    const opened = await run('drift-issue.mjs', args('2'));
    expect(opened.outputs).toEqual({ issue: '3', action: 'opened' });
    expect(writes()).toEqual([
      { call: 'POST /repos/acme/stacks/issues', body: { title: `edgeform drift in ${STACK}`, body: `${driftMarker(STACK)}\n1 resource drifted\n`, labels: ['edgeform-drift'] } },
    ]);

    github.calls().length = 0;
    drift('2 resources drifted');
    const updated = await run('drift-issue.mjs', args('2'));
    expect(updated.outputs).toEqual({ issue: '3', action: 'updated' });
    expect(writes()).toEqual([{ call: 'PATCH /repos/acme/stacks/issues/3', body: { body: `${driftMarker(STACK)}\n2 resources drifted\n` } }]);

    github.calls().length = 0;
    const closed = await run('drift-issue.mjs', args('0'));
    expect(closed.outputs).toEqual({ issue: '3', action: 'closed' });
    expect(writes().map((c) => c.call)).toEqual(['POST /repos/acme/stacks/issues/3/comments', 'PATCH /repos/acme/stacks/issues/3']);
    expect(github.state.issues[2]).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(github.state.issues.filter((i) => i.state === 'open').map((i) => i.number)).toEqual([1, 2]);

    github.calls().length = 0;
    const stillInSync = await run('drift-issue.mjs', args('0'));
    expect(stillInSync.outputs).toEqual({ action: 'none' });
    expect(writes()).toEqual([]);
  });

  it('leaves the issue alone, and calls nothing, when drift could not compare (exit 1)', async () => {
    const result = await run('drift-issue.mjs', args('1'));
    expect(result.code).toBe(0);
    expect(result.outputs).toEqual({ action: 'none' });
    expect(github.calls()).toEqual([]);
  });
});
