/**
 * The platform emulator: a faithful local copy of the platform API (the way LocalStack serves
 * AWS users), backing `npm run demo` and every integration and e2e test. See docs/emulator.md.
 * This barrel is what the CLI and the tests use; the rest stays inside src/emulator/.
 */
export { startEmulator, type Emulator } from './server.js';
export { NUMERIC_OPTION_NAMES, emulatorFlag, flagProblem, isValidApiKey, type EmulatorOptions } from './options.js';
export type { MutationLogEntry } from './store.js';
export type { MutationKind } from './services/index.js';
export { INJECTED_TASK_ERROR, type FaultSettings } from './faults.js';
export { loadFixtures, demoFixturesPath, EmulatorFixturesError, type EmulatorFixtures } from './fixtures.js';
