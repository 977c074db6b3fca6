import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores on CI machines: keep the pool small so e2e subprocesses are not starved.
    maxWorkers: 2,
    // Processes, not threads: test/helpers/cli-in-process.ts changes the working directory for
    // a run (process.chdir), which worker threads do not allow.
    pool: 'forks',
    // Test files share their worker's module cache instead of loading src/, yargs, zod and undici
    // again for each of them (about a quarter of the run's CPU time). So a test file must close
    // what it starts (emulators, servers, signal listeners) and restore what it mocks.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
