// The GitLab REST API (v4) calls the CI scripts make, with the variables GitLab CI sets:
// CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID, CI_COMMIT_SHA, CI_JOB_URL. The token comes
// from GITLAB_TOKEN: a project access token with the `api` scope (CI_JOB_TOKEN may not write
// merge request notes or issues).
import { CiScriptError, createApiClient, requireEnv } from './forge.mjs';

/** A forge client for GitLab; the same methods as github.mjs. */
export function createForge(env) {
  const token = requireEnv('GITLAB_TOKEN', 'a project access token with the api scope, stored as a masked CI/CD variable');
  const api = createApiClient({
    name: 'GitLab',
    baseUrl: requireEnv('CI_API_V4_URL', 'the GitLab API, e.g. https://gitlab.com/api/v4'),
    token,
    headers: { 'private-token': token, 'user-agent': 'edgeform-ci' },
  });
  const p = `/projects/${encodeURIComponent(requireEnv('CI_PROJECT_ID'))}`;

  return {
    name: 'GitLab',
    logUrl: env.CI_JOB_URL || undefined,

    /** The iid of the merge request this pipeline is for, from CI_MERGE_REQUEST_IID or `--change`. */
    currentChange(number) {
      const n = number ?? env.CI_MERGE_REQUEST_IID;
      if (!n) throw new CiScriptError('not a merge request pipeline: pass --change IID');
      return Number(n);
    },

    /** The merge request's notes, oldest first, without GitLab's own system notes. */
    async *comments(iid) {
      for await (const note of api.paginate(`${p}/merge_requests/${iid}/notes`, { sort: 'asc', order_by: 'created_at' })) {
        if (!note.system) yield note;
      }
    },
    createComment: (iid, body) => api.request('POST', `${p}/merge_requests/${iid}/notes`, { body: { body } }),
    updateComment: (iid, id, body) => api.request('PUT', `${p}/merge_requests/${iid}/notes/${id}`, { body: { body } }),

    async *openIssues(label) {
      for await (const issue of api.paginate(`${p}/issues`, { state: 'opened', labels: label })) {
        yield { id: issue.iid, body: issue.description ?? '', url: issue.web_url };
      }
    },
    createIssue: ({ title, body, label }) => api.request('POST', `${p}/issues`, { body: { title, description: body, labels: label } }),
    updateIssue: (iid, body) => api.request('PUT', `${p}/issues/${iid}`, { body: { description: body } }),
    commentOnIssue: (iid, body) => api.request('POST', `${p}/issues/${iid}/notes`, { body: { body } }),
    async closeIssue(iid, comment) {
      await api.request('POST', `${p}/issues/${iid}/notes`, { body: { body: comment } });
      await api.request('PUT', `${p}/issues/${iid}`, { body: { state_event: 'close' } });
    },

    /**
     * The reviewed plan of the merged commit `sha`: the merge request it was merged from, the
     * newest pipeline of that merge request at its head commit whose job `job` succeeded, and
     * that job's artifact `file`. Resolves with the file's bytes; throws when any link is missing.
     */
    async findReviewedPlan({ sha, job, file }) {
      const mrs = await api.request('GET', `${p}/repository/commits/${sha}/merge_requests`);
      const merged = (Array.isArray(mrs) ? mrs : []).filter((m) => m?.state === 'merged');
      const mr = merged.find((m) => m.merge_commit_sha === sha || m.squash_commit_sha === sha) ?? merged[0];
      if (!mr) throw new CiScriptError(`${sha} was not merged from a merge request: no reviewed plan to apply`);
      const head = mr.sha;
      const pipelines = [];
      for await (const pipeline of api.paginate(`${p}/merge_requests/${mr.iid}/pipelines`)) if (pipeline.sha === head) pipelines.push(pipeline);
      pipelines.sort((a, b) => b.id - a.id);
      for (const pipeline of pipelines) {
        for await (const found of api.paginate(`${p}/pipelines/${pipeline.id}/jobs`, { 'scope[]': 'success' })) {
          if (found.name === job && found.status === 'success') {
            const data = await api.download(`${p}/jobs/${found.id}/artifacts/${file.split('/').map(encodeURIComponent).join('/')}`);
            return { change: mr.iid, headSha: head, pipelineId: pipeline.id, jobId: found.id, data };
          }
        }
      }
      throw new CiScriptError(`no successful ${job} job in the pipelines of merge request !${mr.iid} at its head ${head}: no reviewed plan to apply`);
    },
  };
}
