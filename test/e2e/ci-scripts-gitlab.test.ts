import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createScratchDir, runCiScript, type ScratchDir } from '../helpers/ci-script.js';
import { startFakeGitLab } from '../helpers/fake-forge.js';
import { startLoopbackServer } from '../helpers/loopback-server.js';

/**
 * The scripts of the GitLab CI recipe (examples/ci/gitlab-ci.yml) against a fake of the GitLab
 * REST API on loopback: the same scripts as on GitHub, talking GitLab's API.
 */
const TOKEN = 'glpat-fake$token';
const HEAD = 'c'.repeat(40);
const MERGED = 'd'.repeat(40);
const STACK = 'stacks/prod.yaml';
const planMarker = (stack: string) => `<!-- edgeform:plan stack=${stack} -->`;
const driftMarker = (stack: string) => `<!-- edgeform:drift stack=${stack} -->`;

let gitlab: Awaited<ReturnType<typeof startFakeGitLab>>;
let dir: ScratchDir;
let env: Record<string, string>;

beforeAll(async () => {
  gitlab = await startFakeGitLab(TOKEN);
});
afterAll(() => gitlab.close());
beforeEach(() => {
  gitlab.state.notes.clear();
  gitlab.state.issues.length = 0;
  gitlab.state.mrsByCommit = {};
  gitlab.state.pipelines.clear();
  gitlab.state.artifacts.clear();
  gitlab.calls().length = 0;
  dir = createScratchDir();
  env = {
    GITLAB_CI: 'true',
    CI_API_V4_URL: gitlab.apiUrl,
    CI_PROJECT_ID: gitlab.projectId,
    GITLAB_TOKEN: TOKEN,
    CI_MERGE_REQUEST_IID: '12',
    CI_COMMIT_SHA: HEAD,
    CI_JOB_URL: 'https://gitlab.example/acme/stacks/-/jobs/77',
  };
});
afterEach(() => dir.remove());

const writes = () => gitlab.calls().filter((c) => c.call.split(' ')[0] !== 'GET');
const run = (script: string, args: string[]) => runCiScript(script, args, env, dir.path);

describe('upsert-comment.mjs on GitLab', () => {
  it('creates the plan note once, then updates that same note by its marker', async () => {
    gitlab.state.notes.set(12, [
      { id: 1, body: 'added 1 commit', system: true },
      { id: 2, body: `${planMarker(STACK)}\nwritten by GitLab itself?`, system: true },
      { id: 3, body: 'looks fine', system: false },
    ]);
    dir.write('plan.md', `${planMarker(STACK)}\n**Plan:** 1 to change.\n`);
    const first = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '2']);
    expect(first.code).toBe(0);
    expect(first.outputs).toEqual({ 'comment-id': '5000', action: 'created' });
    expect(gitlab.calls().map((c) => c.call)).toEqual([
      'GET /projects/42/merge_requests/12/notes?per_page=100&sort=asc&order_by=created_at',
      'GET /projects/42/merge_requests/12/notes?per_page=100&sort=asc&order_by=created_at&page=2',
      'POST /projects/42/merge_requests/12/notes',
    ]);

    gitlab.calls().length = 0;
    dir.write('plan.md', `${planMarker(STACK)}\n**No changes.**\n`);
    const second = await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'plan.md', '--exit-code', '0']);
    expect(second.outputs).toEqual({ 'comment-id': '5000', action: 'updated' });
    expect(writes()).toEqual([{ call: 'PUT /projects/42/merge_requests/12/notes/5000', body: { body: `${planMarker(STACK)}\n**No changes.**\n` } }]);
    expect(gitlab.state.notes.get(12)!.map((n) => n.id)).toEqual([1, 2, 3, 5000]);
  });

  it('still posts a note under the marker, linking the job log, when edgeform wrote no Markdown', async () => {
    await run('upsert-comment.mjs', ['--stack', STACK, '--body-file', 'missing.md', '--exit-code', '1']);
    const body = writes()[0]!.body.body as string;
    expect(body.startsWith(`${planMarker(STACK)}\n`)).toBe(true);
    expect(body).toContain('See the job log: https://gitlab.example/acme/stacks/-/jobs/77'.replace('See', 'see'));
  });
});

describe('drift-issue.mjs on GitLab', () => {
  const args = (code: string) => ['--stack', STACK, '--body-file', 'drift.md', '--exit-code', code];

  it('opens one drift issue, updates it on the next drift, and closes it when the stack is in sync again', async () => {
    gitlab.state.issues.push({ iid: 1, title: 'staging', description: `${driftMarker('stacks/staging.yaml')}\n`, labels: ['edgeform-drift'], state: 'opened', notes: [] });
    dir.write('drift.md', `${driftMarker(STACK)}\n1 resource drifted\n`);
    const opened = await run('drift-issue.mjs', args('2'));
    expect(opened.outputs).toEqual({ issue: '2', action: 'opened' });
    expect(writes()).toEqual([
      { call: 'POST /projects/42/issues', body: { title: `edgeform drift in ${STACK}`, description: `${driftMarker(STACK)}\n1 resource drifted\n`, labels: 'edgeform-drift' } },
    ]);

    gitlab.calls().length = 0;
    dir.write('drift.md', `${driftMarker(STACK)}\n2 resources drifted\n`);
    const updated = await run('drift-issue.mjs', args('2'));
    expect(updated.outputs).toEqual({ issue: '2', action: 'updated' });
    expect(writes()).toEqual([{ call: 'PUT /projects/42/issues/2', body: { description: `${driftMarker(STACK)}\n2 resources drifted\n` } }]);

    gitlab.calls().length = 0;
    const closed = await run('drift-issue.mjs', args('0'));
    expect(closed.outputs).toEqual({ issue: '2', action: 'closed' });
    expect(writes()).toEqual([
      { call: 'POST /projects/42/issues/2/notes', body: { body: `edgeform drift found \`${STACK}\` in sync again (https://gitlab.example/acme/stacks/-/jobs/77); closing.` } },
      { call: 'PUT /projects/42/issues/2', body: { state_event: 'close' } },
    ]);
    expect(gitlab.state.issues.map((i) => i.state)).toEqual(['opened', 'closed']);
  });
});

describe('reviewed-plan.mjs on GitLab', () => {
  const merged = () => {
    gitlab.state.mrsByCommit[MERGED] = [{ iid: 12, state: 'merged', sha: HEAD, merge_commit_sha: MERGED, squash_commit_sha: null }];
    env.CI_COMMIT_SHA = MERGED;
  };

  it("downloads plan.json of the successful plan job in the newest pipeline at the merge request's head", async () => {
    merged();
    gitlab.state.pipelines.set(12, [
      { id: 300, sha: HEAD, status: 'success', jobs: [{ id: 3001, name: 'edgeform-plan', status: 'success' }] },
      { id: 301, sha: 'e'.repeat(40), status: 'success', jobs: [{ id: 3011, name: 'edgeform-plan', status: 'success' }] },
      { id: 302, sha: HEAD, status: 'failed', jobs: [{ id: 3021, name: 'edgeform-plan', status: 'failed' }] },
    ]);
    gitlab.state.artifacts.set(3001, { 'plan.json': '{"reviewed":true}' });
    gitlab.state.artifacts.set(3011, { 'plan.json': '{"reviewed":"another commit"}' });
    const result = await run('reviewed-plan.mjs', ['--stack', STACK]);
    expect(result.stderr).toBe('');
    expect(result.outputs).toEqual({ change: '12', 'head-sha': HEAD, 'pipeline-id': '300', 'job-id': '3001' });
    const file = join(dir.path, 'reviewed/plan.json');
    expect(readFileSync(file, 'utf8')).toBe('{"reviewed":true}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(gitlab.calls().map((c) => c.call)).toEqual([
      `GET /projects/42/repository/commits/${MERGED}/merge_requests`,
      'GET /projects/42/merge_requests/12/pipelines?per_page=100',
      'GET /projects/42/merge_requests/12/pipelines?per_page=100&page=2',
      'GET /projects/42/pipelines/302/jobs?per_page=100&scope%5B%5D=success',
      'GET /projects/42/pipelines/300/jobs?per_page=100&scope%5B%5D=success',
      'GET /projects/42/jobs/3001/artifacts/plan.json',
    ]);
  });

  it('follows a redirect to object storage without sending the token there', async () => {
    const storage = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('{"from":"storage"}');
    });
    try {
      merged();
      gitlab.state.pipelines.set(12, [{ id: 300, sha: HEAD, status: 'success', jobs: [{ id: 3001, name: 'edgeform-plan', status: 'success' }] }]);
      gitlab.state.artifacts.set(3001, { 'plan.json': { redirect: `${storage.url}/bucket/plan.json?signature=x` } });
      const result = await run('reviewed-plan.mjs', ['--stack', STACK, '--out', 'r/plan.json']);
      expect(result.code).toBe(0);
      expect(readFileSync(join(dir.path, 'r/plan.json'), 'utf8')).toBe('{"from":"storage"}');
      expect(storage.requests).toHaveLength(1);
      expect(storage.requests[0]!.headers['private-token']).toBeUndefined();
      expect(JSON.stringify(storage.requests[0]!.headers)).not.toContain(TOKEN);
    } finally {
      await storage.close();
    }
  });

  it('fails, and writes nothing, when no plan job of the merge request succeeded at its head', async () => {
    merged();
    gitlab.state.pipelines.set(12, [{ id: 302, sha: HEAD, status: 'failed', jobs: [{ id: 3021, name: 'edgeform-plan', status: 'failed' }] }]);
    const result = await run('reviewed-plan.mjs', ['--stack', STACK]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`error: no successful edgeform-plan job in the pipelines of merge request !12 at its head ${HEAD}: no reviewed plan to apply`);
    expect(() => statSync(join(dir.path, 'reviewed'))).toThrow();
  });
});
