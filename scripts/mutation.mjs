#!/usr/bin/env node
// Mutation testing of the engine's core modules (docs/testing.md).
//
//   npm run mutation                   the modules, their recorded scores, and which are stale
//   npm run mutation -- graph planner  runs Stryker on each named module, one after another
//   npm run mutation -- graph --force  the same without the incremental file (every mutant again)
//   npm run mutation -- graph --rescore  records the last run again after a judgement changed (no Stryker)
//   npm run mutation -- graph --survivors  re-tests only the last run's survivors against the tests as they are now
//
// A run mutates the module's one file (stryker/modules.json) and runs only the unit test files that
// hold its contract, one worker, incremental (reports/mutation/MODULE/incremental.json, kept on
// this machine). It then records the module's scores and the hash of the file it mutated in
// stryker/scores.json and rewrites the table of docs/testing.md; test/unit/mutation-scores.test.ts
// fails when a module no longer has the hash of its recorded run, so a change to a core module
// cannot leave its score unmeasured. Surviving mutants judged equivalent are listed, with the
// reason, in stryker/equivalent.json; every other survivor is printed for a test or a judgement.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The module list, the recorded runs, the equivalent mutants and the page showing the scores. */
export const MODULES_FILE = 'stryker/modules.json';
export const SCORES_FILE = 'stryker/scores.json';
export const EQUIVALENT_FILE = 'stryker/equivalent.json';
export const DOC_FILE = 'docs/testing.md';
export const TABLE_START = '<!-- mutation-scores: written by npm run mutation, do not edit -->';
export const TABLE_END = '<!-- /mutation-scores -->';

/** Reads a JSON file of the repository. */
export function readJson(file) {
  return JSON.parse(readFileSync(join(root, file), 'utf8'));
}

/** The SHA-256 of a repository file's bytes, hex. */
export function fileHash(file) {
  return createHash('sha256')
    .update(readFileSync(join(root, file)))
    .digest('hex');
}

const percent = (detected, undetected) => (detected + undetected === 0 ? 100 : Math.floor((1000 * detected) / (detected + undetected)) / 10);

/** The key a judgement in stryker/equivalent.json matches a mutant by. */
export function mutantKey(mutant) {
  return `${mutant.mutator} | ${mutant.line} | ${mutant.original} → ${mutant.replacement}`;
}

/**
 * A module's record from a run's mutants ({ mutator, line (the trimmed source line it starts on),
 * original (the text it replaces), replacement,
 * status, at }) and its judgements: killed counts Stryker's Killed and Timeout (a mutant that
 * hangs is caught), survived counts Survived and NoCoverage (no test of the module reaches it);
 * compile and runtime errors count for neither. score is killed / (killed + survived);
 * scoreWithoutEquivalent leaves out the survivors judged equivalent.
 */
export function recordRun(file, sha256, mutants, judgements) {
  const keys = new Set(judgements.map((j) => mutantKey(j)));
  let killed = 0;
  let survived = 0;
  let equivalent = 0;
  const unjudged = [];
  const matched = new Set();
  for (const m of mutants) {
    if (m.status === 'Killed' || m.status === 'Timeout') killed++;
    else if (m.status === 'Survived' || m.status === 'NoCoverage') {
      survived++;
      const key = mutantKey(m);
      if (keys.has(key)) {
        equivalent++;
        matched.add(key);
      } else unjudged.push(`${m.at} ${m.mutator}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}: ${m.original} → ${m.replacement}   in: ${m.line}`);
    }
  }
  return {
    file,
    sha256,
    killed,
    survived,
    equivalent,
    score: percent(killed, survived),
    scoreWithoutEquivalent: percent(killed, survived - equivalent),
    unjudged,
    staleJudgements: judgements.filter((j) => !matched.has(mutantKey(j))).map((j) => mutantKey(j)),
  };
}

/** Why each module's recorded run no longer stands (no run, or its file changed since), by module. */
export function staleModules(modules, scores) {
  const out = {};
  for (const [name, module] of Object.entries(modules)) {
    const run = scores[name];
    if (run === undefined) out[name] = 'it has no recorded run';
    else if (run.file !== module.file) out[name] = `its recorded run mutated ${run.file}, not ${module.file}`;
    else if (run.sha256 !== fileHash(module.file)) out[name] = `${module.file} changed since its recorded run`;
  }
  return out;
}

/** The Markdown table of docs/testing.md for the recorded runs (between TABLE_START and TABLE_END). */
export function renderScoreTable(modules, scores) {
  const lines = ['| module | file | killed | survived | of which equivalent | score | without equivalent | target |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const [name, module] of Object.entries(modules)) {
    const run = scores[name];
    if (run === undefined) lines.push(`| ${name} | \`${module.file}\` | | | | not run | | ${module.target} % |`);
    else
      lines.push(`| ${name} | \`${module.file}\` | ${run.killed} | ${run.survived} | ${run.equivalent} | ${run.score} % | ${run.scoreWithoutEquivalent} % | ${module.target} % |`);
  }
  return `${TABLE_START}\n\n${lines.join('\n')}\n\n${TABLE_END}`;
}

/** The page's text with its score table replaced by `table`. */
export function replaceScoreTable(text, table) {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${DOC_FILE} has no score table between "${TABLE_START}" and "${TABLE_END}"`);
  return text.slice(0, start) + table + text.slice(end + TABLE_END.length);
}

/** The Stryker options for one module: its file, its tests, one worker, generous timeouts. */
export function strykerOptions(name, module, force) {
  const reports = `reports/mutation/${name}`;
  return {
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest: { configFile: 'stryker/vitest.config.ts', related: false },
    mutate: [module.file],
    // A module's static mutants (its module-level constants) need every test file to load it
    // afresh (stryker/vitest.config.ts): a module whose tests are too slow so (the planner's:
    // an hour on two cores) ignores them and runs without isolation.
    ignoreStatic: module.staticMutants === 'ignore',
    // The test files are chosen by stryker/vitest.config.ts (see there why not by testFiles).
    coverageAnalysis: 'perTest',
    // The machine's two cores are shared with other work: one worker, one module at a time.
    concurrency: 1,
    // A mutant is a timeout (caught: it hangs) at three times its tests' normal time plus ten
    // seconds: far enough that a busy machine does not turn a survivor into a kill, near enough
    // that the mutants that loop forever (a lexer that stops advancing) cost seconds, not minutes.
    timeoutMS: 10_000,
    timeoutFactor: 3,
    dryRunTimeoutMinutes: 30,
    incremental: true,
    incrementalFile: `${reports}/incremental.json`,
    force,
    reporters: ['progress', 'html', 'json'],
    htmlReporter: { fileName: `${reports}/index.html` },
    jsonReporter: { fileName: `${reports}/mutation.json` },
    thresholds: { high: module.target, low: module.target - 10, break: null },
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['dist', 'reports', 'coverage', '.edgeform-tmp', '.stryker-tmp'],
    cleanTempDir: true,
  };
}

/**
 * Where each surviving mutant of a report's file stands, as Stryker's `mutate` ranges (FILE:LINE:COLUMN-LINE:COLUMN),
 * one column wider on each side so that the mutant itself is inside; a mutant nested in it is re-tested too.
 */
export function survivorRanges(report, file) {
  const survivors = (report.files[file]?.mutants ?? []).filter((m) => m.status === 'Survived' || m.status === 'NoCoverage');
  const range = ({ start, end }) => `${file}:${start.line}:${Math.max(0, start.column - 1)}-${end.line}:${end.column + 1}`;
  return [...new Set(survivors.map((m) => range(m.location)))];
}

/**
 * A report with its survivors' statuses taken from a re-test of them (`retested`, a report of the same source):
 * the mutants it killed are killed; every other mutant keeps its status. Adding tests can only kill more, so a
 * full run followed by re-tests of its survivors counts what a full run with the new tests would.
 */
export function mergeRetested(report, retested, file) {
  if (retested.files[file]?.source !== report.files[file]?.source) throw new Error(`the re-test of ${file} mutated another source than its last run`);
  const key = (m) => JSON.stringify([m.mutatorName, m.location, m.replacement]);
  const again = new Map((retested.files[file]?.mutants ?? []).map((m) => [key(m), m.status]));
  const mutants = report.files[file].mutants.map((m) => {
    const status = again.get(key(m));
    return (m.status === 'Survived' || m.status === 'NoCoverage') && status !== undefined ? { ...m, status } : m;
  });
  return { ...report, files: { ...report.files, [file]: { ...report.files[file], mutants } } };
}

/** The source text between a report location's start and end (lines and columns from 1). */
function textAt(lines, { start, end }) {
  if (start.line === end.line) return (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  return [(lines[start.line - 1] ?? '').slice(start.column - 1), ...middle, (lines[end.line - 1] ?? '').slice(0, end.column - 1)].join('\n');
}

async function runModule(name, module, force, rescore, survivors) {
  if (!rescore) {
    const { Stryker } = await import('@stryker-mutator/core');
    // Read by stryker/vitest.config.ts in Stryker's workers, which inherit the environment.
    process.env.EDGEFORM_MUTATION_TESTS = JSON.stringify(module.tests);
    process.env.EDGEFORM_MUTATION_ISOLATE = module.staticMutants === 'ignore' ? '0' : '1';
    if (survivors) {
      // Only the last run's survivors, against the tests as they are now; their new statuses go into that run's report.
      const last = readJson(`reports/mutation/${name}/mutation.json`);
      if (last.files[module.file]?.source !== readFileSync(join(root, module.file), 'utf8'))
        throw new Error(`${module.file} is not the source of the last run's report: run npm run mutation -- ${name}`);
      const retestFile = `reports/mutation/${name}/survivors.json`;
      const options = {
        ...strykerOptions(name, module, true),
        mutate: survivorRanges(last, module.file),
        incremental: false,
        reporters: ['progress', 'json'],
        jsonReporter: { fileName: retestFile },
      };
      delete options.htmlReporter;
      await new Stryker(options).runMutationTest();
      writeFileSync(join(root, `reports/mutation/${name}/mutation.json`), JSON.stringify(mergeRetested(last, readJson(retestFile), module.file)));
    } else await new Stryker(strykerOptions(name, module, force)).runMutationTest();
  }
  // The JSON report (mutation-testing-report-schema) counts lines and columns from 1.
  const report = readJson(`reports/mutation/${name}/mutation.json`);
  const text = readFileSync(join(root, module.file), 'utf8');
  // --rescore records the last run again with the judgements as they are now: only while the
  // module is still the source that run mutated (the report holds it).
  if (report.files[module.file]?.source !== text) throw new Error(`${module.file} is not the source of the last run's report: run npm run mutation -- ${name}`);
  const source = text.split('\n');
  const mutants = (report.files[module.file]?.mutants ?? []).map((m) => ({
    mutator: m.mutatorName,
    line: (source[m.location.start.line - 1] ?? '').trim(),
    original: textAt(source, m.location),
    replacement: m.replacement ?? '',
    status: m.status,
    at: `${module.file}:${m.location.start.line}:${m.location.start.column}`,
  }));
  const judgements = readJson(EQUIVALENT_FILE).modules[name] ?? [];
  const run = recordRun(module.file, fileHash(module.file), mutants, judgements);
  const scores = readJson(SCORES_FILE);
  scores.modules[name] = run;
  // In the repository's format, so npm run format:check passes on what the script writes.
  const { format, resolveConfig } = await import('prettier');
  const scoresPath = join(root, SCORES_FILE);
  writeFileSync(scoresPath, await format(JSON.stringify(scores), { ...(await resolveConfig(scoresPath)), filepath: scoresPath }));
  const modules = readJson(MODULES_FILE).modules;
  const doc = join(root, DOC_FILE);
  writeFileSync(doc, replaceScoreTable(readFileSync(doc, 'utf8'), renderScoreTable(modules, scores.modules)));
  console.log(`\n${name} (${module.file}): killed ${run.killed}, survived ${run.survived} (${run.equivalent} judged equivalent)`);
  console.log(`score ${run.score} %, without equivalent mutants ${run.scoreWithoutEquivalent} % (target ${module.target} %)`);
  if (run.unjudged.length > 0) console.log(`\nSurvivors not judged (kill each with a test, or judge it in ${EQUIVALENT_FILE}):\n  ${run.unjudged.join('\n  ')}`);
  if (run.staleJudgements.length > 0) console.log(`\nJudgements in ${EQUIVALENT_FILE} that matched no survivor (remove them):\n  ${run.staleJudgements.join('\n  ')}`);
  console.log(`\nRecorded in ${SCORES_FILE} and ${DOC_FILE}; report: reports/mutation/${name}/index.html`);
  return run.scoreWithoutEquivalent >= module.target;
}

async function main(args) {
  const force = args.includes('--force');
  const rescore = args.includes('--rescore');
  const survivors = args.includes('--survivors');
  const names = args.filter((a) => a !== '--force' && a !== '--rescore' && a !== '--survivors');
  const modules = readJson(MODULES_FILE).modules;
  if (names.length === 0) {
    const scores = readJson(SCORES_FILE).modules;
    const stale = staleModules(modules, scores);
    for (const [name, module] of Object.entries(modules)) {
      const run = scores[name];
      const score = run === undefined ? 'no recorded run' : `${run.score} % (${run.scoreWithoutEquivalent} % without equivalent mutants), target ${module.target} %`;
      console.log(`${name.padEnd(18)} ${module.file.padEnd(32)} ${score}${stale[name] ? `  STALE: ${stale[name]}` : ''}`);
    }
    console.log('\nnpm run mutation -- MODULE [MODULE...] [--force | --rescore | --survivors]');
    return 0;
  }
  const unknown = names.filter((n) => !Object.hasOwn(modules, n));
  if (unknown.length > 0) {
    console.error(`Unknown module ${unknown.join(', ')}; the modules (${MODULES_FILE}): ${Object.keys(modules).join(', ')}`);
    return 1;
  }
  let ok = true;
  for (const name of names) {
    mkdirSync(dirname(join(root, `reports/mutation/${name}/x`)), { recursive: true });
    ok = (await runModule(name, modules[name], force, rescore, survivors)) && ok;
  }
  return ok ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.chdir(root);
  process.exitCode = await main(process.argv.slice(2));
}
