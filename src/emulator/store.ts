import { CoreState } from './core-state.js';
import type { NormalizedFixtures } from './fixtures.js';
import type { TaskTarget } from './tasks.js';
import type { MutationLog, MutationLogEntry as LogEntry } from './mutation-log.js';
import { EMULATOR_SERVICES, type MutationKind, type ServiceSlices, type TaskResourceKind } from './services/index.js';

/**
 * The emulator's in-memory platform (`emu.state`): the shared core (world defaults, tasks,
 * mutation log) and every service's slice (`instances`, `fastedgeApps`, ...). Tests read and
 * mutate it directly; the emulator's reset reloads the fixtures into this same object, so
 * references stay valid.
 */
export type EmulatorState = CoreState<TaskResourceKind, MutationKind> & ServiceSlices;

/** One entry of the mutation log, its kind one of the services' (see MutationLogEntry in mutation-log.ts). */
export type MutationLogEntry = LogEntry<MutationKind>;

/** The mutation log, with the services' kinds. */
export type EmulatorMutationLog = MutationLog<MutationKind>;

/** An empty state: the core with the services' task targets, and every service's empty slice. */
export function createEmulatorState(): EmulatorState {
  const targets = EMULATOR_SERVICES.flatMap((service): readonly TaskTarget[] => service.taskTargets);
  const taskTargets = new Map(targets.map((target) => [target.kind, target]));
  const state = new CoreState<TaskResourceKind, MutationKind>(taskTargets);
  for (const service of EMULATOR_SERVICES) Object.assign(state, service.createState());
  return state as EmulatorState;
}

/** Replaces everything with the fixtures' world, in place. */
export function loadState(state: EmulatorState, fixtures: NormalizedFixtures): void {
  state.reset(fixtures.defaults);
  for (const service of EMULATOR_SERVICES) service.load(state, fixtures, fixtures.defaults);
}

/** The whole state as plain JSON at `now` (what GET /__emulator/state answers). */
export function dumpState(state: EmulatorState, now: number): Record<string, unknown> {
  return Object.assign({ defaults: state.defaults }, ...EMULATOR_SERVICES.map((service) => service.dump(state, now))) as Record<string, unknown>;
}
