#!/usr/bin/env node
// Keeps ONE open drift issue for a whole fleet, from the merged report of its matrix jobs
// (`edgeform report merge ... --format json` and `--format markdown`), labelled (default
// `edgeform-drift`) and found by the report's marker (`<!-- edgeform:report name=NAME -->`):
//   some stacks drifted   open the issue with the report, or update its body; comment only when
//                         a stack newly drifted or came back in sync since the last run;
//   all in sync           close the issue, with a comment saying so;
//   errors only           leave things as they are (the job fails on its own).
// A stack that could not be compared this time keeps the state it had: it neither "newly drifts"
// nor "comes back", so an outage does not flood the issue with comments. The issue's body keeps
// which stacks drifted (a hidden line of short hashes of their paths) for the next run.
//
//   node fleet-drift-issue.mjs --report-file report.json --body-file report.md [--label L] [--title T] [--platform github|gitlab]
//
// Outputs: action (opened|updated|commented|closed|none), issue, newly-drifted, back-in-sync (counts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { BODY_LIMIT, CiScriptError, forgeFor, readArgs, reportMarkerFor, runMain, setOutput } from './forge.mjs';

/** A stack path's short hash, as the issue's state line keeps it. */
const hashOf = (path) => createHash('sha256').update(path, 'utf8').digest('hex').slice(0, 12);
const STATE = /^<!-- edgeform:drifted ([0-9a-f,]*) -->$/m;
/** How many stacks a comment names, the rest counted. */
const MAX_NAMED = 50;

/** Untrusted text as a Markdown code span it cannot close. */
function code(text) {
  const plain = String(text).replace(/[\u0000-\u001f\u007f]/g, ' ');
  const fence = '`'.repeat(Math.max(0, ...[...plain.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return `${fence} ${plain} ${fence}`;
}

function names(paths) {
  const shown = paths.slice(0, MAX_NAMED).map(code).join(', ');
  return paths.length > MAX_NAMED ? `${shown} and ${paths.length - MAX_NAMED} more` : shown;
}

/** The merged report's JSON: its name, exit code and each stack's path and status. */
function readReport(file) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CiScriptError(`cannot read the merged report ${file}: ${error.code === 'ENOENT' ? 'no such file (did edgeform report merge run?)' : error.message}`);
  }
  const valid =
    report &&
    typeof report.name === 'string' &&
    [0, 1, 2].includes(report.exit_code) &&
    Array.isArray(report.stacks) &&
    report.stacks.every((s) => typeof s?.path === 'string' && ['error', 'differs', 'same'].includes(s.status));
  if (!valid) throw new CiScriptError(`${file} is not the JSON of edgeform report merge --format json`);
  return report;
}

runMain(async () => {
  const args = readArgs({
    'report-file': { type: 'string', required: true },
    'body-file': { type: 'string', required: true },
    label: { type: 'string', default: 'edgeform-drift' },
    title: { type: 'string' },
  });
  const report = readReport(args['report-file']);
  const marker = reportMarkerFor(report.name);
  const paths = (status) => report.stacks.filter((s) => s.status === status).map((s) => s.path);
  const drifted = paths('differs');
  const errored = paths('error');
  const inSync = paths('same');

  const forge = await forgeFor(args.platform);
  let open;
  for await (const issue of forge.openIssues(args.label)) {
    if (issue.body.startsWith(marker)) {
      open = issue;
      break;
    }
  }
  const before = new Set(open ? (STATE.exec(open.body)?.[1] ?? '').split(',').filter(Boolean) : []);
  const newly = drifted.filter((p) => !before.has(hashOf(p)));
  const back = inSync.filter((p) => before.has(hashOf(p)));
  const log = forge.logUrl ? ` ([log](${forge.logUrl}))` : '';
  setOutput('newly-drifted', newly.length);
  setOutput('back-in-sync', back.length);

  if (report.exit_code === 0) {
    if (open) {
      await forge.closeIssue(
        open.id,
        `edgeform drift found all ${report.stacks.length} stacks of ${code(report.name)} in sync again${back.length > 0 ? ` (back in sync: ${names(back)})` : ''}${log}; closing.`,
      );
      setOutput('issue', open.id);
    }
    setOutput('action', open ? 'closed' : 'none');
    return;
  }
  if (drifted.length === 0 && !open) {
    console.log(`no stack of ${report.name} drifted (${errored.length} could not be compared): no drift issue to open`);
    setOutput('action', 'none');
    return;
  }

  // What drifted now, and what could not be compared now but had drifted before (unknown: kept).
  const kept = new Set(drifted.map(hashOf));
  for (const p of errored) if (before.has(hashOf(p))) kept.add(hashOf(p));
  const body = withState(readReportBody(args['body-file'], marker), marker, [...kept].sort());
  if (!open) {
    const created = await forge.createIssue({ title: args.title ?? `edgeform drift in ${report.name}`, body, label: args.label });
    setOutput('issue', args.platform === 'github' ? created?.number : created?.iid);
    setOutput('action', 'opened');
    return;
  }
  await forge.updateIssue(open.id, body);
  setOutput('issue', open.id);
  if (newly.length === 0 && back.length === 0) {
    setOutput('action', 'updated');
    return;
  }
  const parts = [newly.length > 0 ? `**newly drifted**: ${names(newly)}` : '', back.length > 0 ? `**back in sync**: ${names(back)}` : ''].filter(Boolean);
  await forge.commentOnIssue(open.id, `edgeform drift: ${parts.join('; ')}${log}.`);
  setOutput('action', 'commented');
});

/** The Markdown report edgeform wrote; it must start with the report's marker. */
function readReportBody(file, marker) {
  const body = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (!body.startsWith(marker)) throw new CiScriptError(`${file} does not start with ${marker}: was it written by edgeform report merge --format markdown?`);
  return body;
}

/** The body with the state line right after the marker (never cut), the report cut at a line boundary below the limit. */
function withState(body, marker, hashes) {
  const state = `<!-- edgeform:drifted ${hashes.join(',')} -->`;
  let rest = body.slice(marker.length).replace(/^\n/, '');
  const room = BODY_LIMIT - marker.length - state.length - 200;
  if (rest.length > room) rest = `${rest.slice(0, rest.lastIndexOf('\n', room))}\n\n_Cut at ${BODY_LIMIT} characters; the full report is in the job's artifacts._\n`;
  return `${marker}\n${state}\n${rest}`;
}
