#!/usr/bin/env node
// The name of the artifact that keeps the reviewed plan of a stack: `edgeform-plan-<sha>-<stack>`,
// where <sha> is the head commit of the pull request (GitHub) or merge request (GitLab) that was
// planned. The plan job uploads under this name and reviewed-plan.mjs looks for exactly it.
//
//   node plan-artifact.mjs --stack stacks/prod.yaml [--sha SHA] [--platform github|gitlab]
//
// Output: name. Needs no token and makes no request.
import { changeHeadSha, planArtifactName, readArgs, runMain, setOutput } from './forge.mjs';

runMain(async () => {
  const args = readArgs({ stack: { type: 'string', required: true }, sha: { type: 'string' } });
  setOutput('name', planArtifactName(args.stack, args.sha ?? changeHeadSha(args.platform)));
});
