import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DOC_FILE,
  EQUIVALENT_FILE,
  MODULES_FILE,
  SCORES_FILE,
  TABLE_END,
  TABLE_START,
  readJson,
  recordRun,
  renderScoreTable,
  replaceScoreTable,
  staleModules,
  mergeRetested,
  survivorRanges,
  type Judgement,
  type MutationReport,
  type MutationModule,
  type RecordedRun,
  type RunMutant,
} from '../../scripts/mutation.mjs';

/**
 * The mutation scores of the engine's core modules stay honest without running Stryker in CI
 * (docs/testing.md, "Mutation testing"): each recorded run carries the hash of the file it mutated,
 * so a change to a core module fails here until `npm run mutation -- MODULE` is run again and its
 * new score recorded; the recorded score must meet the module's target, and docs/testing.md shows
 * exactly what the script recorded.
 */
const ROOT = new URL('../../', import.meta.url);
const modules = (readJson(MODULES_FILE) as { modules: Record<string, MutationModule> }).modules;
const scores = (readJson(SCORES_FILE) as { modules: Record<string, RecordedRun> }).modules;
const judgements = (readJson(EQUIVALENT_FILE) as { modules: Record<string, Judgement[]> }).modules;

describe('recorded mutation scores', () => {
  it('name files and tests that exist', () => {
    for (const [name, module] of Object.entries(modules)) {
      expect(existsSync(new URL(module.file, ROOT)), `${name}: ${module.file}`).toBe(true);
      for (const test of module.tests) expect(existsSync(new URL(test, ROOT)), `${name}: ${test}`).toBe(true);
    }
  });

  it('were measured on the core modules as they are now (run npm run mutation -- MODULE when this fails)', () => {
    const stale = staleModules(modules, scores);
    // A module not measured yet says why in stryker/modules.json (`unmeasured`), and only while it is not.
    for (const [name, module] of Object.entries(modules)) expect([name, module.unmeasured !== undefined]).toEqual([name, stale[name] !== undefined]);
  });

  it("meet each module's target, counting the survivors judged equivalent out, or say in stryker/modules.json why not yet", () => {
    for (const [name, module] of Object.entries(modules)) {
      if (module.unmeasured !== undefined) continue;
      const met = (scores[name]?.scoreWithoutEquivalent ?? 0) >= module.target;
      // A shortfall is stated where the target is, and the statement goes once the target is met.
      expect(met ? module.belowTarget : (module.belowTarget?.length ?? 0) > 20, name).toBe(met ? undefined : true);
    }
  });

  it('are the table docs/testing.md shows', () => {
    const doc = readFileSync(new URL(DOC_FILE, ROOT), 'utf8');
    expect(replaceScoreTable(doc, renderScoreTable(modules, scores))).toBe(doc);
  });

  it('have each equivalent mutant judged with a reason, for a module under test, and matching a survivor of its last run', () => {
    for (const [name, list] of Object.entries(judgements)) {
      expect(Object.keys(modules), name).toContain(name);
      for (const j of list) expect(j.why?.length ?? 0, `${name}: ${j.line}`).toBeGreaterThan(10);
      expect(scores[name]?.staleJudgements ?? [], name).toEqual([]);
    }
  });
});

describe('scripts/mutation.mjs', () => {
  const mutant = (status: string, line = 'x < y', replacement = 'x <= y'): RunMutant => ({
    mutator: 'EqualityOperator',
    line,
    original: 'x < y',
    replacement,
    status,
    at: 'f.ts:1:1',
  });

  it('counts timeouts as killed, no coverage as survived, and errors as neither', () => {
    const run = recordRun('f.ts', 'h', [mutant('Killed'), mutant('Timeout'), mutant('Survived'), mutant('NoCoverage'), mutant('CompileError'), mutant('RuntimeError')], []);
    expect([run.killed, run.survived, run.equivalent, run.score]).toEqual([2, 2, 0, 50]);
    expect(run.unjudged).toEqual(['f.ts:1:1 EqualityOperator: x < y → x <= y   in: x < y', 'f.ts:1:1 EqualityOperator (no coverage): x < y → x <= y   in: x < y']);
  });

  it('leaves the survivors judged equivalent out of the second score, and names judgements no survivor matched', () => {
    const judged: Judgement = { mutator: 'EqualityOperator', line: 'x < y', original: 'x < y', replacement: 'x <= y', why: 'same' };
    const other: Judgement = { ...judged, line: 'gone' };
    const run = recordRun('f.ts', 'h', [mutant('Killed'), mutant('Killed'), mutant('Survived'), mutant('Survived', 'x < y', 'true')], [judged, other]);
    expect([run.killed, run.survived, run.equivalent, run.score, run.scoreWithoutEquivalent]).toEqual([2, 2, 1, 50, 66.6]);
    expect(run.unjudged).toHaveLength(1);
    expect(run.staleJudgements).toEqual(['EqualityOperator | gone | x < y → x <= y']);
  });

  it('calls a module stale when it has no run, its run mutated another file, or its file changed', () => {
    const module = { file: MODULES_FILE, tests: [], target: 90 };
    const run = recordRun(MODULES_FILE, 'not the hash', [], []);
    expect(staleModules({ a: module, b: module, c: module }, { b: { ...run, file: 'src/elsewhere.ts' }, c: run })).toEqual({
      a: 'it has no recorded run',
      b: `its recorded run mutated src/elsewhere.ts, not ${MODULES_FILE}`,
      c: `${MODULES_FILE} changed since its recorded run`,
    });
  });

  const at = (line: number, column: number, length = 3) => ({ start: { line, column }, end: { line, column: column + length } });
  const report = (source: string, statuses: string[]): MutationReport => ({
    files: { 'f.ts': { source, mutants: statuses.map((status, i) => ({ mutatorName: 'EqualityOperator', replacement: 'x <= y', status, location: at(i + 1, 5) })) } },
  });

  it('re-tests the survivors of the last run where each stands, one column wider on each side', () => {
    expect(survivorRanges(report('s', ['Killed', 'Survived', 'NoCoverage', 'Timeout']), 'f.ts')).toEqual(['f.ts:2:4-2:9', 'f.ts:3:4-3:9']);
  });

  it('takes a survivor re-tested from the re-test, and keeps every other status, killed ones killed', () => {
    const last = report('s', ['Killed', 'Survived', 'Survived', 'NoCoverage']);
    const retested = report('s', ['Survived', 'Killed', 'Survived', 'Killed']);
    retested.files['f.ts']!.mutants.splice(2, 1);
    expect(mergeRetested(last, retested, 'f.ts').files['f.ts']!.mutants.map((m) => m.status)).toEqual(['Killed', 'Killed', 'Survived', 'Killed']);
    expect(() => mergeRetested(last, report('other', []), 'f.ts')).toThrow('mutated another source');
  });

  it('replaces only the table between its markers', () => {
    expect(replaceScoreTable(`before\n${TABLE_START}\nold\n${TABLE_END}\nafter`, 'NEW')).toBe('before\nNEW\nafter');
    expect(() => replaceScoreTable('no table', 'NEW')).toThrow(DOC_FILE);
  });
});
