#!/usr/bin/env node
// Posts edgeform's plan (Markdown) as the one comment of a stack on the pull request (GitHub)
// or merge request (GitLab): the comment that starts with the stack's marker is updated, and
// only when there is none is a new one created, so every push edits the same comment.
//
//   node upsert-comment.mjs --stack stacks/prod.yaml --body-file plan.md [--exit-code N] [--change NUMBER] [--platform github|gitlab]
//
// A missing or empty body file (edgeform did not get that far) still posts a note under the
// marker that points at the job log. Outputs: comment-id, action (created|updated|unchanged).
import { forgeFor, markerFor, readArgs, readBody, runMain, setOutput } from './forge.mjs';

runMain(async () => {
  const args = readArgs({
    stack: { type: 'string', required: true },
    'body-file': { type: 'string', required: true },
    'exit-code': { type: 'string' },
    change: { type: 'string' },
  });
  const forge = await forgeFor(args.platform);
  const change = forge.currentChange(args.change);
  const body = readBody(args['body-file'], { kind: 'plan', stack: args.stack, exitCode: args['exit-code'], logUrl: forge.logUrl });
  const marker = markerFor('plan', args.stack);
  let mine;
  for await (const comment of forge.comments(change)) {
    if (typeof comment?.body === 'string' && comment.body.startsWith(marker)) {
      mine = comment;
      break;
    }
  }
  if (!mine) {
    const created = await forge.createComment(change, body);
    setOutput('comment-id', created?.id);
    setOutput('action', 'created');
  } else if (mine.body === body) {
    setOutput('comment-id', mine.id);
    setOutput('action', 'unchanged');
  } else {
    await forge.updateComment(change, mine.id, body);
    setOutput('comment-id', mine.id);
    setOutput('action', 'updated');
  }
});
