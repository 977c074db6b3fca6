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
    // No pass may depend on the machine's speed: every test is bounded by what it does (a count of
    // cases, runs, requests; the emulator's own clock), never by a time it must finish within. These
    // timeouts are a backstop for a hang only, ten minutes, far beyond any test on a busy machine;
    // no test sets a timeout of its own (docs/architecture.md, "Tests").
    testTimeout: 600_000,
    hookTimeout: 600_000,
    reporters: ['default', './test/reporters/summary-line.ts', './test/reporters/slow-files.ts'],
    // The run's one PostgreSQL server for the lock across machines, started by the first test
    // that asks for it (test/setup/postgres.ts): a run that needs none pays nothing.
    globalSetup: ['./test/setup/postgres.ts'],
  },
});
