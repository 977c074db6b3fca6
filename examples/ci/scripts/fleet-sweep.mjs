#!/usr/bin/env node
// One shard of a fleet's matrix: lists the stacks of shard I of N under ROOT (`edgeform stacks
// ROOT --shard I/N`) and runs `edgeform COMMAND STACK --format json` for each valid one, writing
// each result to OUT/<command>-<stack>.json for `edgeform report merge`. The listing itself goes
// to OUT/stacks-<I>-of-<N>.json, so the merge sees the shard's invalid stacks (with their errors)
// and any stack that got no result.
//
//   node fleet-sweep.mjs --root stacks --shard 2/4 [--command drift|plan] [--out results]
//
// Runs the edgeform of the same version as this script (the package's dist/bin/edgeform.js, or
// EDGEFORM_BIN). A stack's error or drift is its result, not the script's: it exits 0 once every
// stack of the shard has a result file, 1 only when it could not list or run at all.
// Outputs: stacks (how many of the shard were run), results (the directory).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CiScriptError, runMain, setOutput } from './forge.mjs';

/** The edgeform this script belongs to: EDGEFORM_BIN, else the package's bundle beside these scripts, else `edgeform` on PATH. */
function edgeformCommand() {
  if (process.env.EDGEFORM_BIN) return [process.env.EDGEFORM_BIN];
  const bundle = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'bin', 'edgeform.js');
  return existsSync(bundle) ? [process.execPath, bundle] : ['edgeform'];
}

/** Runs edgeform with `args`, its stdout into `outFile` (or collected), its stderr to ours; resolves with the exit code and the output collected. */
function run(args, outFile) {
  const [command, ...first] = edgeformCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...first, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    const file = outFile ? createWriteStream(outFile) : undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk) => (file ? file.write(chunk) : (stdout += chunk)));
    child.on('error', (error) => reject(new CiScriptError(`cannot run edgeform (${command}): ${error.message}`)));
    child.on('close', (code, signal) => {
      const done = () => resolve({ code: code ?? (signal ? 128 : 1), stdout });
      if (file) file.end(done);
      else done();
    });
  });
}

/** A file name for a stack's result: its key with anything but letters, digits, `.`, `-` and `_` made `_`. */
const fileNameOf = (command, key) => `${command}-${key.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;

runMain(async () => {
  let args;
  try {
    args = parseArgs({
      options: { root: { type: 'string' }, shard: { type: 'string' }, command: { type: 'string', default: 'drift' }, out: { type: 'string', default: 'results' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new CiScriptError(error.message);
  }
  if (!args.root) throw new CiScriptError('--root is required');
  if (!args.shard) throw new CiScriptError('--shard I/N is required');
  if (args.command !== 'drift' && args.command !== 'plan') throw new CiScriptError(`--command is drift or plan, not ${JSON.stringify(args.command)}`);
  const [index, count] = args.shard.split('/');
  mkdirSync(args.out, { recursive: true });

  const listing = await run(['stacks', args.root, '--shard', args.shard, '--format', 'json']);
  let stacks;
  try {
    stacks = JSON.parse(listing.stdout).stacks;
  } catch {
    throw new CiScriptError(`edgeform stacks ${args.root} --shard ${args.shard} listed nothing (exit ${listing.code}); see the error above`);
  }
  writeFileSync(join(args.out, `stacks-${index}-of-${count}.json`), listing.stdout);
  const valid = stacks.filter((s) => s.valid);
  for (const stack of valid) {
    const outFile = join(args.out, fileNameOf(args.command, stack.key));
    const { code } = await run([args.command, stack.path, '--format', 'json', ...(args.command === 'plan' ? ['--detailed-exitcode'] : [])], outFile);
    console.log(`${args.command} ${stack.path}: exit ${code}`);
  }
  console.log(`shard ${args.shard}: ${valid.length} of ${stacks.length} stacks run (${stacks.length - valid.length} invalid, reported by the listing)`);
  setOutput('stacks', valid.length);
  setOutput('results', args.out);
});
