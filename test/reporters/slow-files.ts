import type { Reporter, TestModule } from 'vitest/node';

/** A unit or integration test file taking longer than this is reported (docs/architecture.md, "Tests"). */
const SLOW_FILE_MS = 10_000;

/**
 * Prints a warning for each unit or integration test file that took more than 10 s, slowest
 * first, after the run: a file grown slow shows in the log before it becomes a burden. Never
 * fails the run: a busy machine makes every file slower, and no pass may depend on speed.
 * End-to-end files (test/e2e/) take what their real processes need and are not listed.
 */
export default class SlowFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const slow = testModules
      .filter((module) => !module.moduleId.includes('/test/e2e/'))
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .filter((entry) => entry.ms > SLOW_FILE_MS)
      .sort((a, b) => b.ms - a.ms);
    if (slow.length === 0) return;
    const lines = slow.map((entry) => `  ${(entry.ms / 1000).toFixed(1)} s  ${entry.file}`);
    process.stdout.write(`\nWarning: ${slow.length} test file(s) over ${SLOW_FILE_MS / 1000} s (make the work cheaper; this never fails the run):\n${lines.join('\n')}\n`);
  }
}
