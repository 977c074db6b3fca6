#!/usr/bin/env node
// Finds the plan that was reviewed for the commit just merged to the default branch; the apply
// job applies exactly it and never plans anew. No reviewed plan: exit 1, never a fallback.
//
//   node reviewed-plan.mjs --stack stacks/prod.yaml [--sha MERGED_SHA] [--platform github|gitlab]
//       GitHub: the pull request the commit came from, the newest successful pull_request run
//       of this workflow for its head commit, and that run's artifact named by
//       plan-artifact.mjs. Outputs run-id, artifact, change, head-sha, for
//       actions/download-artifact (`run-id`, `name`, `github-token`).
//   GitLab: also [--job edgeform-plan] [--file plan.json] [--out reviewed/plan.json]: the merge
//       request the commit came from, the newest pipeline at its head commit whose plan job
//       succeeded, and that job's artifact file, written to --out. Outputs change, head-sha,
//       pipeline-id, job-id.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { forgeFor, readArgs, requireEnv, runMain, setOutput } from './forge.mjs';

runMain(async () => {
  const args = readArgs({
    stack: { type: 'string', required: true },
    sha: { type: 'string' },
    job: { type: 'string', default: 'edgeform-plan' },
    file: { type: 'string', default: 'plan.json' },
    out: { type: 'string', default: 'reviewed/plan.json' },
  });
  const forge = await forgeFor(args.platform);
  const sha = args.sha ?? requireEnv(args.platform === 'github' ? 'GITHUB_SHA' : 'CI_COMMIT_SHA', 'the merged commit');
  const found = await forge.findReviewedPlan({ stack: args.stack, sha, job: args.job, file: args.file });
  setOutput('change', found.change);
  setOutput('head-sha', found.headSha);
  if (args.platform === 'github') {
    setOutput('run-id', found.runId);
    setOutput('artifact', found.artifact);
  } else {
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, found.data, { mode: 0o600 });
    setOutput('pipeline-id', found.pipelineId);
    setOutput('job-id', found.jobId);
    console.log(`wrote the reviewed plan to ${args.out}`);
  }
});
