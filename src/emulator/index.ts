/**
 * The platform emulator: a faithful local copy of the platform API (the way LocalStack serves
 * AWS users), backing `npm run demo` and every integration and e2e test. See docs/emulator.md.
 */
export { startEmulator, generateApiKey, type Emulator } from './server.js';
export { EmulatorOptionsError, MAX_SEED, NUMERIC_OPTION_NAMES, emulatorFlag, flagProblem, isValidApiKey, type EmulatorOptions } from './options.js';
export { EmulatorState } from './store.js';
export type {
  FloatingIpRecord,
  InstanceRecord,
  K8sClusterRecord,
  FastEdgeAppRecord,
  PlayerRecord,
  VideoRecord,
  AiTaskRecord,
  NotificationSettingRecord,
  QuotaRequestRecord,
  TaskResourceKind,
} from './store.js';
export { createClock, MANUAL_CLOCK_START, type EmulatorClock } from './clock.js';
export { EmulatorFaults, INJECTED_TASK_ERROR, type FaultSettings, type FailNextRule, type DropNextRule, type RequestFaults, type TaskDraw } from './faults.js';
export type { MutationLog, MutationLogEntry, MutationKind } from './mutation-log.js';
export { loadFixtures, demoFixturesPath, EmulatorFixturesError, type EmulatorFixtures, type NormalizedFixtures } from './fixtures.js';
export type { RequestLog, RequestLogEntry } from './request-log.js';
export { renderTask, taskState, type TaskRecord, type TaskState } from './tasks.js';
export type { Tag } from './tags.js';
