import type { ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer, type SeenRequest } from './loopback-server.js';

/**
 * Local fakes of the parts of the GitHub and GitLab REST APIs that the CI scripts in
 * examples/ci/scripts call, on 127.0.0.1 port 0, with in-memory state and every request recorded.
 * Lists page `perPage` items at a time with a `Link: rel="next"` header, as both APIs do, so the
 * scripts' pagination is exercised. A request without the expected token gets 401.
 */

/** A request the scripts made, as `METHOD /path?query` without the API prefix, and its JSON body. */
export interface ForgeCall {
  call: string;
  body: any;
}

interface Route {
  method: string;
  pattern: RegExp;
  handle(match: RegExpExecArray, url: URL, body: any, res: ServerResponse): void;
}

/** A fake API: its base URL (with the API prefix), the calls seen, and a way to stop it. */
export interface FakeForge extends LoopbackServer {
  apiUrl: string;
  calls(): ForgeCall[];
}

function startFake(prefix: string, authorized: (req: SeenRequest) => boolean, routes: Route[]): Promise<FakeForge> {
  const calls: ForgeCall[] = [];
  return startLoopbackServer((req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const body = req.body === '' ? undefined : JSON.parse(req.body);
    calls.push({ call: `${req.method} ${path}${url.search}`, body });
    if (!authorized(req)) return sendJson(res, 401, { message: 'Bad credentials' });
    for (const route of routes) {
      const match = route.method === req.method ? route.pattern.exec(path) : null;
      if (match) return route.handle(match, url, body, res);
    }
    sendJson(res, 404, { message: `no route for ${req.method} ${path}` });
  }).then((server) => Object.assign(server, { apiUrl: `${server.url}${prefix}`, calls: () => calls }));
}

/** Answers one page of `items` (page from `?page=`), with a Link to the next one (on `nextOrigin`, when given). */
function sendPage(res: ServerResponse, url: URL, items: unknown[], perPage: number, wrap?: (page: unknown[]) => unknown, nextOrigin?: string): void {
  const page = Number(url.searchParams.get('page') ?? '1');
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const headers: Record<string, string> = {};
  if (page * perPage < items.length) {
    const next = new URL(`${url.pathname}${url.search}`, nextOrigin ?? url.origin);
    next.searchParams.set('page', String(page + 1));
    headers.link = `<${next.href}>; rel="next", <${url.origin}${url.pathname}>; rel="first"`;
  }
  sendJson(res, 200, wrap ? wrap(slice) : slice, headers);
}

/** The state of the fake GitHub: one repository's issue comments, issues, merged pull requests and workflow runs. */
export interface GitHubState {
  comments: Map<number, Array<{ id: number; body: string }>>;
  issues: Array<{ number: number; title: string; body: string; labels: string[]; state: string; state_reason?: string; pull_request?: object }>;
  pullsByCommit: Record<string, Array<{ number: number; merged_at: string | null; merge_commit_sha: string; head: { sha: string } }>>;
  runs: Array<{ id: number; path: string; head_sha: string; event: string; conclusion: string; artifacts: Array<{ id: number; name: string; expired: boolean }> }>;
  perPage: number;
  /** Where the comment listing's next-page links point (default: the fake itself). */
  nextPageOrigin?: string;
}

/** A fake GitHub REST API under `/api/v3` (as on GitHub Enterprise Server) for repository `REPO`, token `TOKEN`. */
export async function startFakeGitHub(token = 'ghs_fake$token'): Promise<FakeForge & { state: GitHubState; repo: string }> {
  const repo = 'acme/stacks';
  const r = '/repos/acme/stacks';
  const state: GitHubState = { comments: new Map(), issues: [], pullsByCommit: {}, runs: [], perPage: 2 };
  let nextId = 1000;
  const esc = (s: string) => s.replace(/[/]/g, '\\/');
  const routes: Route[] = [
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(r)}/issues/(\\d+)/comments$`),
      handle: (m, url, _b, res) => sendPage(res, url, state.comments.get(Number(m[1])) ?? [], state.perPage, undefined, state.nextPageOrigin),
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${esc(r)}/issues/(\\d+)/comments$`),
      handle: (m, _u, body, res) => {
        const comment = { id: nextId++, body: body.body as string };
        state.comments.set(Number(m[1]), [...(state.comments.get(Number(m[1])) ?? []), comment]);
        sendJson(res, 201, comment);
      },
    },
    {
      method: 'PATCH',
      pattern: new RegExp(`^${esc(r)}/issues/comments/(\\d+)$`),
      handle: (m, _u, body, res) => {
        const comment = [...state.comments.values()].flat().find((c) => c.id === Number(m[1]));
        if (!comment) return sendJson(res, 404, { message: 'Not Found' });
        comment.body = body.body;
        sendJson(res, 200, comment);
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(r)}/issues$`),
      handle: (_m, url, _b, res) => {
        const label = url.searchParams.get('labels');
        const open = state.issues.filter((i) => i.state === url.searchParams.get('state') && (!label || i.labels.includes(label)));
        sendPage(res, url, open, state.perPage);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${esc(r)}/issues$`),
      handle: (_m, _u, body, res) => {
        const issue = { number: state.issues.length + 1, title: body.title, body: body.body, labels: body.labels, state: 'open' };
        state.issues.push(issue);
        sendJson(res, 201, issue);
      },
    },
    {
      method: 'PATCH',
      pattern: new RegExp(`^${esc(r)}/issues/(\\d+)$`),
      handle: (m, _u, body, res) => {
        const issue = state.issues.find((i) => i.number === Number(m[1]));
        if (!issue) return sendJson(res, 404, { message: 'Not Found' });
        Object.assign(issue, body);
        sendJson(res, 200, issue);
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(r)}/commits/([0-9a-f]+)/pulls$`),
      handle: (m, _u, _b, res) => sendJson(res, 200, state.pullsByCommit[m[1]!] ?? []),
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(r)}/actions/runs$`),
      handle: (_m, url, _b, res) => {
        const q = url.searchParams;
        const runs = state.runs.filter((run) => run.event === q.get('event') && run.head_sha === q.get('head_sha') && run.conclusion === q.get('status'));
        sendPage(
          res,
          url,
          runs.map(({ artifacts: _a, ...run }) => run),
          state.perPage,
          (page) => ({ total_count: runs.length, workflow_runs: page }),
        );
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(r)}/actions/runs/(\\d+)/artifacts$`),
      handle: (m, url, _b, res) => {
        const run = state.runs.find((x) => x.id === Number(m[1]));
        const artifacts = (run?.artifacts ?? []).filter((a) => a.name === url.searchParams.get('name'));
        sendPage(res, url, artifacts, state.perPage, (page) => ({ total_count: artifacts.length, artifacts: page }));
      },
    },
  ];
  const fake = await startFake('/api/v3', (req) => req.headers.authorization === `Bearer ${token}`, routes);
  return Object.assign(fake, { state, repo });
}

/** The state of the fake GitLab: one project's merge request notes, issues, merge requests, pipelines and job artifacts. */
export interface GitLabState {
  notes: Map<number, Array<{ id: number; body: string; system: boolean }>>;
  issues: Array<{ iid: number; title: string; description: string; labels: string[]; state: string; notes: string[] }>;
  mrsByCommit: Record<string, Array<{ iid: number; state: string; sha: string; merge_commit_sha: string | null; squash_commit_sha: string | null }>>;
  pipelines: Map<number, Array<{ id: number; sha: string; status: string; jobs: Array<{ id: number; name: string; status: string }> }>>;
  /** Job id → artifact path → content; or a URL the download redirects to. */
  artifacts: Map<number, Record<string, string | { redirect: string }>>;
  perPage: number;
}

/** A fake GitLab REST API under `/api/v4` for project `PROJECT_ID` 42, token `TOKEN` (sent as PRIVATE-TOKEN). */
export async function startFakeGitLab(token = 'glpat-fake$token'): Promise<FakeForge & { state: GitLabState; projectId: string }> {
  const p = '/projects/42';
  const state: GitLabState = { notes: new Map(), issues: [], mrsByCommit: {}, pipelines: new Map(), artifacts: new Map(), perPage: 2 };
  let nextId = 5000;
  const esc = (s: string) => s.replace(/[/]/g, '\\/');
  const routes: Route[] = [
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/merge_requests/(\\d+)/notes$`),
      handle: (m, url, _b, res) => sendPage(res, url, state.notes.get(Number(m[1])) ?? [], state.perPage),
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${esc(p)}/merge_requests/(\\d+)/notes$`),
      handle: (m, _u, body, res) => {
        const note = { id: nextId++, body: body.body as string, system: false };
        state.notes.set(Number(m[1]), [...(state.notes.get(Number(m[1])) ?? []), note]);
        sendJson(res, 201, note);
      },
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^${esc(p)}/merge_requests/(\\d+)/notes/(\\d+)$`),
      handle: (m, _u, body, res) => {
        const note = (state.notes.get(Number(m[1])) ?? []).find((n) => n.id === Number(m[2]));
        if (!note) return sendJson(res, 404, { message: '404 Not found' });
        note.body = body.body;
        sendJson(res, 200, note);
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/issues$`),
      handle: (_m, url, _b, res) => {
        const label = url.searchParams.get('labels');
        const open = state.issues.filter((i) => i.state === url.searchParams.get('state') && (!label || i.labels.includes(label)));
        sendPage(res, url, open, state.perPage);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${esc(p)}/issues$`),
      handle: (_m, _u, body, res) => {
        const issue = { iid: state.issues.length + 1, title: body.title, description: body.description, labels: String(body.labels).split(','), state: 'opened', notes: [] };
        state.issues.push(issue);
        sendJson(res, 201, issue);
      },
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^${esc(p)}/issues/(\\d+)$`),
      handle: (m, _u, body, res) => {
        const issue = state.issues.find((i) => i.iid === Number(m[1]));
        if (!issue) return sendJson(res, 404, { message: '404 Not found' });
        if (body.description !== undefined) issue.description = body.description;
        if (body.state_event === 'close') issue.state = 'closed';
        sendJson(res, 200, issue);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${esc(p)}/issues/(\\d+)/notes$`),
      handle: (m, _u, body, res) => {
        const issue = state.issues.find((i) => i.iid === Number(m[1]));
        if (!issue) return sendJson(res, 404, { message: '404 Not found' });
        issue.notes.push(body.body);
        sendJson(res, 201, { id: nextId++, body: body.body });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/repository/commits/([0-9a-f]+)/merge_requests$`),
      handle: (m, _u, _b, res) => sendJson(res, 200, state.mrsByCommit[m[1]!] ?? []),
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/merge_requests/(\\d+)/pipelines$`),
      handle: (m, url, _b, res) =>
        sendPage(
          res,
          url,
          (state.pipelines.get(Number(m[1])) ?? []).map(({ jobs: _j, ...pipeline }) => pipeline),
          state.perPage,
        ),
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/pipelines/(\\d+)/jobs$`),
      handle: (m, url, _b, res) => {
        const pipeline = [...state.pipelines.values()].flat().find((x) => x.id === Number(m[1]));
        const scope = url.searchParams.get('scope[]');
        sendPage(
          res,
          url,
          (pipeline?.jobs ?? []).filter((j) => !scope || j.status === scope),
          state.perPage,
        );
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${esc(p)}/jobs/(\\d+)/artifacts/(.+)$`),
      handle: (m, _u, _b, res) => {
        const content = state.artifacts.get(Number(m[1]))?.[decodeURIComponent(m[2]!)];
        if (content === undefined) return sendJson(res, 404, { message: '404 Not found' });
        if (typeof content === 'object') {
          res.writeHead(302, { location: content.redirect });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(content);
      },
    },
  ];
  const fake = await startFake('/api/v4', (req) => req.headers['private-token'] === token, routes);
  return Object.assign(fake, { state, projectId: '42' });
}
