#!/usr/bin/env node
// Keeps one open issue per stack for drift, keyed by the marker edgeform's drift Markdown
// starts with, and labelled (default `edgeform-drift`):
//   exit 2 (drift)    update the open issue's body with the report, or open one;
//   exit 0 (in sync)  close the open issue, with a comment saying so;
//   exit 1 (error)    leave the issue alone: nothing could be compared (the job fails on its own).
//
//   node drift-issue.mjs --stack stacks/prod.yaml --body-file drift.md --exit-code N [--label L] [--title T] [--platform github|gitlab]
//
// Outputs: action (opened|updated|closed|none), issue (its number, when there is one).
import { forgeFor, markerFor, readArgs, readBody, runMain, setOutput } from './forge.mjs';

runMain(async () => {
  const args = readArgs({
    stack: { type: 'string', required: true },
    'body-file': { type: 'string', required: true },
    'exit-code': { type: 'string', required: true },
    label: { type: 'string', default: 'edgeform-drift' },
    title: { type: 'string' },
  });
  const code = args['exit-code'];
  if (code !== '0' && code !== '2') {
    console.log(`edgeform drift exited ${code}: the platform could not be compared; the drift issue is left as it is`);
    setOutput('action', 'none');
    return;
  }
  const forge = await forgeFor(args.platform);
  const marker = markerFor('drift', args.stack);
  let open;
  for await (const issue of forge.openIssues(args.label)) {
    if (issue.body.startsWith(marker)) {
      open = issue;
      break;
    }
  }
  if (code === '0') {
    if (open) {
      await forge.closeIssue(open.id, `edgeform drift found \`${args.stack}\` in sync again${forge.logUrl ? ` (${forge.logUrl})` : ''}; closing.`);
      setOutput('issue', open.id);
    }
    setOutput('action', open ? 'closed' : 'none');
    return;
  }
  const body = readBody(args['body-file'], { kind: 'drift', stack: args.stack, exitCode: code, logUrl: forge.logUrl });
  if (open) {
    await forge.updateIssue(open.id, body);
    setOutput('issue', open.id);
    setOutput('action', 'updated');
  } else {
    const created = await forge.createIssue({ title: args.title ?? `edgeform drift in ${args.stack}`, body, label: args.label });
    setOutput('issue', args.platform === 'github' ? created?.number : created?.iid);
    setOutput('action', 'opened');
  }
});
