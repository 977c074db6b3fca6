import { defineConfig } from 'vitest/config';
import base from '../vitest.config.js';

/**
 * The test configuration Stryker's workers run (npm run mutation, scripts/mutation.mjs): the
 * project's own, restricted to the test files that hold the mutated module's contract
 * (EDGEFORM_MUTATION_TESTS, a JSON list set by scripts/mutation.mjs from stryker/modules.json),
 * without its reporters and its PostgreSQL global setup (no unit test needs a server).
 *
 * The files are chosen here and not with Stryker's `testFiles` option: with that option Stryker
 * 9.6 activates a mutant of a module's top level (a static mutant: a constant, a table) only after
 * the module is loaded, so every such mutant survives whatever the tests say (stryker-js issue
 * 6144). Isolated, so each test file loads the module afresh with the mutant active, not the copy
 * a previous file left in the shared module cache; a module whose static mutants are ignored
 * (stryker/modules.json `"staticMutants": "ignore"`, EDGEFORM_MUTATION_ISOLATE=0) runs without
 * isolation, several times faster.
 */
const tests = process.env.EDGEFORM_MUTATION_TESTS;
if (tests === undefined) throw new Error('stryker/vitest.config.ts is run by npm run mutation -- MODULE, which sets EDGEFORM_MUTATION_TESTS');

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: JSON.parse(tests) as string[],
    reporters: ['default'],
    globalSetup: [],
    setupFiles: [...(base.test?.setupFiles ?? []), 'stryker/fast-check-setup.ts'],
    isolate: process.env.EDGEFORM_MUTATION_ISOLATE !== '0',
  },
});
