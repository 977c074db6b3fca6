/** A core module under mutation testing, as stryker/modules.json lists it. */
export interface MutationModule {
  file: string;
  tests: string[];
  target: number;
  /** "ignore": its static mutants are not run (Stryker's ignoreStatic), nor its tests isolated. */
  staticMutants?: 'ignore';
  /** Why its recorded score is still under its target (only while it is). */
  belowTarget?: string;
  /** Why it has no run recorded on its current source yet (only while it has none). */
  unmeasured?: string;
}
/** A surviving mutant judged equivalent, as stryker/equivalent.json lists it. */
export interface Judgement {
  mutator: string;
  line: string;
  original: string;
  replacement: string;
  why?: string;
}
/** A mutant of a run, as scripts/mutation.mjs reads it from Stryker's JSON report. */
export interface RunMutant extends Judgement {
  status: string;
  at: string;
}
/** A module's recorded run, as stryker/scores.json holds it. */
export interface RecordedRun {
  file: string;
  sha256: string;
  killed: number;
  survived: number;
  equivalent: number;
  score: number;
  scoreWithoutEquivalent: number;
  unjudged: string[];
  staleJudgements: string[];
}
export declare const MODULES_FILE: string;
export declare const SCORES_FILE: string;
export declare const EQUIVALENT_FILE: string;
export declare const DOC_FILE: string;
export declare const TABLE_START: string;
export declare const TABLE_END: string;
export declare function readJson(file: string): unknown;
export declare function fileHash(file: string): string;
export declare function mutantKey(mutant: Judgement): string;
export declare function recordRun(file: string, sha256: string, mutants: readonly RunMutant[], judgements: readonly Judgement[]): RecordedRun;
export declare function staleModules(modules: Record<string, MutationModule>, scores: Record<string, RecordedRun>): Record<string, string>;
export declare function renderScoreTable(modules: Record<string, MutationModule>, scores: Record<string, RecordedRun>): string;
export declare function replaceScoreTable(text: string, table: string): string;
/** A Stryker JSON report (mutation-testing-report-schema), the parts the script reads. */
export interface MutationReport {
  files: Record<
    string,
    {
      source: string;
      mutants: Array<{ mutatorName: string; replacement?: string; status: string; location: { start: { line: number; column: number }; end: { line: number; column: number } } }>;
    }
  >;
}
export declare function survivorRanges(report: MutationReport, file: string): string[];
export declare function mergeRetested(report: MutationReport, retested: MutationReport, file: string): MutationReport;
