// The GitHub REST API calls the CI scripts make, with the variables GitHub Actions sets:
// GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_SHA, GITHUB_WORKFLOW_REF,
// GITHUB_SERVER_URL, GITHUB_RUN_ID; the token comes from GITHUB_TOKEN (or GH_TOKEN).
import { CiScriptError, createApiClient, githubEvent, planArtifactName, requireEnv } from './forge.mjs';

/** A forge client for GitHub; see forge.mjs for what each method promises. */
export function createForge(env) {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token) throw new CiScriptError('GITHUB_TOKEN is not set: give the step `env: { GITHUB_TOKEN: ${{ github.token }} }`');
  const repo = requireEnv('GITHUB_REPOSITORY', 'owner/name of the repository');
  const api = createApiClient({
    name: 'GitHub',
    baseUrl: env.GITHUB_API_URL || 'https://api.github.com',
    token,
    headers: { authorization: `Bearer ${token}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'edgeform-ci' },
  });
  const r = `/repos/${repo}`;

  return {
    name: 'GitHub',
    logUrl: env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,

    /** The number of the pull request this run is for, from the event or `--change`. */
    currentChange(number) {
      const n = number ?? githubEvent(env).pull_request?.number;
      if (!n) throw new CiScriptError('not a pull_request run: pass --change NUMBER');
      return Number(n);
    },

    comments: (number) => api.paginate(`${r}/issues/${number}/comments`),
    createComment: (number, body) => api.request('POST', `${r}/issues/${number}/comments`, { body: { body } }),
    updateComment: (_number, id, body) => api.request('PATCH', `${r}/issues/comments/${id}`, { body: { body } }),

    /** Open issues with the label (pull requests, which the issues listing also returns, left out). */
    async *openIssues(label) {
      for await (const issue of api.paginate(`${r}/issues`, { state: 'open', labels: label })) {
        if (!issue.pull_request) yield { id: issue.number, body: issue.body ?? '', url: issue.html_url };
      }
    },
    createIssue: ({ title, body, label }) => api.request('POST', `${r}/issues`, { body: { title, body, labels: [label] } }),
    updateIssue: (id, body) => api.request('PATCH', `${r}/issues/${id}`, { body: { body } }),
    commentOnIssue: (id, body) => api.request('POST', `${r}/issues/${id}/comments`, { body: { body } }),
    async closeIssue(id, comment) {
      await api.request('POST', `${r}/issues/${id}/comments`, { body: { body: comment } });
      await api.request('PATCH', `${r}/issues/${id}`, { body: { state: 'closed', state_reason: 'completed' } });
    },

    /**
     * The reviewed plan of the merged commit `sha`: the pull request it was merged from, the
     * newest successful `pull_request` run of this workflow for that pull request's head
     * commit, and its artifact named {@link planArtifactName}. Resolves to where
     * actions/download-artifact finds it; throws when any link is missing.
     */
    async findReviewedPlan({ stack, sha }) {
      const pulls = await api.request('GET', `${r}/commits/${sha}/pulls`);
      const merged = (Array.isArray(pulls) ? pulls : []).filter((p) => p?.merged_at);
      const pr = merged.find((p) => p.merge_commit_sha === sha) ?? merged[0];
      if (!pr) throw new CiScriptError(`${sha} was not merged from a pull request: no reviewed plan to apply`);
      const head = pr.head?.sha;
      const artifact = planArtifactName(stack, head);
      const workflow = workflowPath(env.GITHUB_WORKFLOW_REF, repo);
      const runs = [];
      for await (const run of api.paginate(`${r}/actions/runs`, { event: 'pull_request', head_sha: head, status: 'success' }, (page) => page?.workflow_runs)) {
        if (run.head_sha === head && (!workflow || String(run.path ?? '').split('@')[0] === workflow)) runs.push(run);
      }
      runs.sort((a, b) => b.id - a.id);
      for (const run of runs) {
        for await (const found of api.paginate(`${r}/actions/runs/${run.id}/artifacts`, { name: artifact }, (page) => page?.artifacts)) {
          if (found.name === artifact && !found.expired) return { change: pr.number, headSha: head, runId: run.id, artifact };
        }
      }
      throw new CiScriptError(
        runs.length === 0
          ? `no successful plan run of ${workflow ?? 'this workflow'} for ${head}, the head of pull request #${pr.number}: no reviewed plan to apply`
          : `no unexpired artifact ${artifact} in the plan runs for pull request #${pr.number}: re-run its plan`,
      );
    },
  };
}

/** `.github/workflows/x.yml` out of GITHUB_WORKFLOW_REF (`owner/repo/.github/workflows/x.yml@refs/heads/main`). */
function workflowPath(ref, repo) {
  if (!ref) return undefined;
  const path = ref.split('@')[0];
  return path.startsWith(`${repo}/`) ? path.slice(repo.length + 1) : path;
}
