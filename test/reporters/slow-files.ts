import type { Reporter, TestModule } from 'vitest/node';

/** A unit or integration test file taking longer than this is reported (docs/architecture.md, "Tests"). */
const SLOW_FILE_MS = 10_000;

/** How many of the slowest files every run lists, so a CI log shows where the time goes. */
export const SLOWEST_LISTED = 10;

/** A test file and how long it took, in ms. */
export interface FileTime {
  file: string;
  ms: number;
  e2e: boolean;
}

/**
 * The closing lines about time: the SLOWEST_LISTED slowest files of the run (all tiers, each
 * marked e2e or not), then a warning naming each unit or integration file over 10 s, slowest
 * first. Empty for a run without files.
 */
export function slowFilesReport(files: readonly FileTime[]): string {
  if (files.length === 0) return '';
  const sorted = [...files].sort((a, b) => b.ms - a.ms);
  const line = (entry: FileTime) => `  ${(entry.ms / 1000).toFixed(1).padStart(6)} s  ${entry.file}${entry.e2e ? '  (e2e)' : ''}`;
  const slowest = sorted.slice(0, SLOWEST_LISTED);
  let report = `\nSlowest test files (${slowest.length} of ${files.length}):\n${slowest.map(line).join('\n')}\n`;
  const slow = sorted.filter((entry) => !entry.e2e && entry.ms > SLOW_FILE_MS);
  if (slow.length > 0) {
    report += `\nWarning: ${slow.length} test file(s) over ${SLOW_FILE_MS / 1000} s (make the work cheaper; this never fails the run):\n${slow.map(line).join('\n')}\n`;
  }
  return report;
}

/**
 * After the run, lists the slowest test files, and warns of each unit or integration file that
 * took more than 10 s: a file grown slow shows in the log before it becomes a burden. Never
 * fails the run: a busy machine makes every file slower, and no pass may depend on speed.
 * End-to-end files (test/e2e/) take what their real processes need and are never warned of.
 */
export default class SlowFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration, e2e: module.moduleId.includes('/test/e2e/') }));
    process.stdout.write(slowFilesReport(files));
  }
}
