#!/usr/bin/env node
// The run step of the GitHub Action (action.yml): runs one edgeform command built from the
// action's inputs, writes its standard output to a file and to the log, and sets the outputs
// exit-code, summary and output-file. The inputs arrive as environment variables (INPUT_*), never
// spliced into a shell line, so no input can inject a command.
//
// The step succeeds on exit 0 and 2 (changes or drift found: a result, read it from exit-code)
// and fails on anything else (1: error). edgeform itself reads EDGEFORM_API_KEY and
// EDGEFORM_BASE_URL from the environment the workflow gives the step.
import { spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const input = (name) => (process.env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '').trim();

/** Fails the step with one annotated line. */
function fail(message) {
  console.error(`::error::${message}`);
  process.exit(1);
}

/** The command line for edgeform: where stack and plan-file go depends on the command. */
function commandLine({ command, stack, format, planFile, args }) {
  const extra = args === '' ? [] : args.split(/\s+/);
  const fmt = format === '' ? [] : ['--format', format];
  switch (command) {
    case 'plan':
      if (stack === '') fail('input stack is required for plan');
      return ['plan', stack, '--detailed-exitcode', ...fmt, ...(planFile === '' ? [] : ['--out', planFile]), ...extra];
    case 'apply':
      if (planFile !== '') return ['apply', planFile, ...(stack === '' ? [] : ['--stack', stack]), ...fmt, ...extra];
      if (stack === '') fail('input stack or plan-file is required for apply');
      return ['apply', stack, ...fmt, ...extra];
    default:
      return [command, ...[planFile, stack].filter((v) => v !== ''), ...fmt, ...extra];
  }
}

/** The counts of the run, as JSON: from the JSON output, or else from the saved plan. */
function summaryOf({ command, format, planFile }, stdout, code) {
  try {
    if (format === 'json') {
      if (command === 'apply') {
        const last = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
        if (last?.type !== 'change_summary') return '';
        const { type: _type, timestamp: _timestamp, resources: _resources, ...counts } = last;
        return JSON.stringify(counts);
      }
      const summary = JSON.parse(stdout).summary;
      return summary === undefined ? '' : JSON.stringify(summary);
    }
    if (command === 'plan' && planFile !== '' && (code === 0 || code === 2) && existsSync(planFile)) {
      return JSON.stringify(JSON.parse(readFileSync(planFile, 'utf8')).summary ?? null);
    }
  } catch {
    console.log(`::warning::could not read a summary from the output of edgeform ${command}`);
  }
  return '';
}

function setOutput(name, value) {
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

const inputs = { command: input('command'), stack: input('stack'), format: input('format'), planFile: input('plan-file'), args: input('args') };
if (!/^[a-z][a-z-]*$/.test(inputs.command)) fail(`input command is not an edgeform command: ${JSON.stringify(inputs.command)}`);
const outputFile = input('output-file') || `edgeform-${inputs.command}.${{ markdown: 'md', json: inputs.command === 'apply' ? 'jsonl' : 'json' }[inputs.format] ?? 'txt'}`;
const argv = commandLine(inputs);
console.log(`edgeform ${argv.join(' ')}`);

const bin = join(root, 'action', 'bin');
const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
const child = spawn('edgeform', argv, { env, stdio: ['ignore', 'pipe', 'inherit'] });
// A cancelled job: pass the signal on, so edgeform stops cleanly (running platform tasks finish).
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));

const file = createWriteStream(outputFile, { mode: 0o644 });
let stdout = '';
child.stdout.on('data', (chunk) => {
  stdout += chunk;
  file.write(chunk);
  process.stdout.write(chunk);
});
child.on('error', (error) => fail(`could not run edgeform: ${error.message}`));
child.on('close', (code, signal) => {
  file.end(() => {
    const exitCode = code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 130 : 1);
    setOutput('exit-code', exitCode);
    setOutput('summary', summaryOf(inputs, stdout, exitCode));
    setOutput('output-file', outputFile);
    if (exitCode !== 0 && exitCode !== 2) fail(`edgeform ${inputs.command} exited with ${exitCode}`);
  });
});
