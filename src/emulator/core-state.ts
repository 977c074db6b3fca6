import type { MutationLog } from './mutation-log.js';
import { settleTasks, type TaskRecord, type TaskTarget } from './tasks.js';

/** The world resources are placed in unless their fixture says otherwise (the fixtures' `defaults`). */
export interface WorldDefaults {
  project_id: number;
  region_id: number;
  region: string;
  user_id: number;
  client_id: number;
}

/** The world of a fixtures file without `defaults`: each field the fixtures leave out comes from here. */
export const WORLD_DEFAULTS: Readonly<WorldDefaults> = Object.freeze({ project_id: 1, region_id: 76, region: 'Luxembourg 1', user_id: 1, client_id: 1 });

/**
 * The part of the emulator's state every service shares: the world defaults, the cloud task
 * engine's tasks and settle queue, the mutation log, and the task targets the cloud services
 * registered (which resource kinds tasks can lock). The services' slices are added to this same
 * object (see store.ts); reloading the fixtures refills it in place, so references stay valid.
 * `TaskKind` and `MutationKind` are the registry's unions; services see plain strings.
 */
export class CoreState<TaskKind extends string = string, MutationKind extends string = string> {
  defaults: WorldDefaults = { ...WORLD_DEFAULTS };
  readonly tasks = new Map<string, TaskRecord>();
  /** Unsettled tasks, sorted by finish time (the settle queue). */
  readonly pendingTasks: TaskRecord[] = [];
  /** Every change made since the fixtures were loaded, in order (see MutationLogEntry). */
  readonly mutations: MutationLog<MutationKind> = [];

  /** `taskTargets`: the cloud services' task targets by resource kind. */
  constructor(readonly taskTargets: ReadonlyMap<string, TaskTarget>) {}

  /** Appends a change to the mutation log; routes and task targets call it when a change takes effect. */
  recordMutation(time: number, kind: MutationKind, id: string | number, change: string, after: Record<string, unknown> = {}, taskId: string | null = null): void {
    this.mutations.push({ time, kind, id: String(id), change, after, taskId });
  }

  /** Makes the NEXT task started on a resource end in ERROR with `message` (the resource stays unchanged). For clusters `id` is the name or the map key. */
  setNextTaskError(kind: TaskKind, id: string, message: string): void {
    const record = this.taskTargets.get(kind)?.find(this, id);
    if (!record) throw new Error(`no ${kind} ${id} in the emulator state`);
    record.next_task_error = message;
  }

  /** Applies the effects of every task finished at or before `now`, each exactly once. */
  settle(now: number): void {
    settleTasks(this, now);
  }

  /** Empties the shared part (tasks, settle queue, mutation log) and takes the fixtures' world. */
  reset(defaults: WorldDefaults): void {
    this.tasks.clear();
    this.pendingTasks.length = 0;
    this.mutations.length = 0;
    this.defaults = { ...defaults };
  }
}
