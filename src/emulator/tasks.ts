import type { CoreState } from './core-state.js';
import { formatTaskDate, newUuid } from './format.js';

/**
 * What a task does to its resource when it finishes successfully. Each cloud service declares
 * its own effects (as type aliases, so they fit this shape); `type` names the effect.
 */
export interface TaskEffect {
  type: string;
  [field: string]: unknown;
}

/** Cloud task states, as GET /cloud/v1/tasks/{task_id} reports them. */
export type TaskState = 'NEW' | 'RUNNING' | 'FINISHED' | 'ERROR';

/**
 * A cloud task. Its state is never stored: it is derived from the emulator clock
 * (NEW at creation, RUNNING from 1 ms later, FINISHED or ERROR at `finish_at`), and its
 * effect is applied exactly once, when the clock reaches `finish_at` (the clock never goes
 * back, so a task is settled exactly when its state says it ended).
 */
export interface TaskRecord<Effect extends TaskEffect = TaskEffect> {
  id: string;
  task_type: string;
  project_id: number;
  region_id: number;
  user_id: number;
  client_id: number;
  request_id: string;
  /** The kind of resource the task works on: the kind of its service's TaskTarget. */
  resource_kind: string;
  /** The resource's id as its TaskTarget finds it: a floating IP or instance id, a cluster key `project/region/name`, ... */
  resource_id: string;
  created_at: number;
  finish_at: number;
  /** When set, the task ends in ERROR with this message and leaves the resource unchanged. */
  planned_error: string | null;
  effect: Effect;
  /** The request body that started the task (TaskSerializer `data`). */
  data: unknown;
  /** What a create task made (CreatedResources: ids by kind, e.g. `floatingips`); shown once the task FINISHED. */
  created_resources: Record<string, string[]> | null;
}

/** What a task locks: the platform's lock field and the emulator's one-shot failure. */
export interface Lockable {
  /** The task holding the lock, or null. */
  task_id: string | null;
  /** When set, the next task started on this resource ends in ERROR with this message. */
  next_task_error: string | null;
}

/**
 * How one kind of cloud resource takes part in tasks; the service owning the resource declares
 * it. The engine locks and unlocks the resource; the target shows it busy and applies the effect.
 * (Methods, so that a target of a specific resource and effect is a TaskTarget.)
 */
export interface TaskTarget<Kind extends string = string, Resource extends Lockable = Lockable, Effect extends TaskEffect = TaskEffect, State extends object = object> {
  /** The resource kind (`instance`): the tasks' `resource_kind`, the key of their fault draws, the kind of next-task-error. */
  readonly kind: Kind;
  /** The resource a task names, or undefined when it is gone. */
  find(state: State, id: string): Resource | undefined;
  /** Shows the resource busy (e.g. status RESIZE) when a task starts on it; the engine has locked it already. */
  begin?(resource: Resource, effect: Effect): void;
  /**
   * Ends the task on the resource (the engine has released the lock): restores its status and,
   * when `ok`, applies the effect and records it in the mutation log.
   */
  finish(state: CoreState & State, resource: Resource, task: TaskRecord<Effect>, ok: boolean): void;
}

/** What a route knows when it starts a task. */
export interface StartTaskInput {
  taskType: string;
  /** The TaskTarget kind of the resource. */
  kind: string;
  resourceId: string;
  projectId: number;
  regionId: number;
  effect: TaskEffect;
  data: unknown;
  requestId: string;
  /** What the task creates (CreatedResources), for a create task; its finished answer lists them. */
  createdResources?: Record<string, string[]>;
}

/**
 * Starts a task on a resource: locks it (task_id), lets its target show it busy, consumes the
 * resource's `next_task_error`, and queues the task to settle `durationMs` later. `draw` (the
 * faults' TaskDraw) gives the task's id and an injected error; without it the id is random.
 * The resource's own `next_task_error` wins over an injected one.
 */
export function startTask(state: CoreState, input: StartTaskInput, now: number, durationMs: number, draw?: { id: string; error: string | null }): TaskRecord {
  const target = state.taskTargets.get(input.kind);
  const resource = target?.find(state, input.resourceId);
  if (!target || !resource) throw new Error(`startTask: no ${input.kind} ${input.resourceId}`);
  const task: TaskRecord = {
    id: draw?.id ?? newUuid(),
    task_type: input.taskType,
    project_id: input.projectId,
    region_id: input.regionId,
    user_id: state.defaults.user_id,
    client_id: state.defaults.client_id,
    request_id: input.requestId,
    resource_kind: input.kind,
    resource_id: input.resourceId,
    created_at: now,
    finish_at: now + Math.max(0, durationMs),
    planned_error: resource.next_task_error ?? draw?.error ?? null,
    effect: input.effect,
    data: input.data,
    created_resources: input.createdResources ?? null,
  };
  resource.next_task_error = null;
  resource.task_id = task.id;
  target.begin?.(resource, input.effect);
  state.tasks.set(task.id, task);
  insertPending(state.pendingTasks, task);
  if (task.finish_at <= now) settleTasks(state, now);
  return task;
}

function insertPending(queue: TaskRecord[], task: TaskRecord): void {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((queue[mid] as TaskRecord).finish_at <= task.finish_at) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, task);
}

/** Settles every pending task due at `now`, in finish order, applying each effect once. */
export function settleTasks(state: CoreState, now: number): void {
  const queue = state.pendingTasks;
  let due = 0;
  while (due < queue.length && (queue[due] as TaskRecord).finish_at <= now) due++;
  if (due === 0) return;
  for (const task of queue.splice(0, due)) finishTask(state, task);
}

function finishTask(state: CoreState, task: TaskRecord): void {
  const target = state.taskTargets.get(task.resource_kind);
  const resource = target?.find(state, task.resource_id);
  if (!target || !resource) return;
  if (resource.task_id === task.id) resource.task_id = null;
  target.finish(state, resource, task, task.planned_error === null);
}

/** The state of a task at `now`, derived from the clock. */
export function taskState(task: TaskRecord, now: number): TaskState {
  if (now >= task.finish_at) return task.planned_error === null ? 'FINISHED' : 'ERROR';
  return now > task.created_at ? 'RUNNING' : 'NEW';
}

/** A task in the TaskSerializer shape, as of `now`. */
export function renderTask(task: TaskRecord, now: number): Record<string, unknown> {
  const state = taskState(task, now);
  const done = state === 'FINISHED' || state === 'ERROR';
  const updated = done ? task.finish_at : state === 'RUNNING' ? task.created_at + 1 : task.created_at;
  return {
    id: task.id,
    task_type: task.task_type,
    state,
    user_id: task.user_id,
    user_client_id: task.client_id,
    client_id: task.client_id,
    project_id: task.project_id,
    region_id: task.region_id,
    created_on: formatTaskDate(task.created_at),
    updated_on: formatTaskDate(updated),
    finished_on: done ? formatTaskDate(task.finish_at) : null,
    error: state === 'ERROR' ? task.planned_error : null,
    created_resources: state === 'FINISHED' ? task.created_resources : null,
    data: task.data ?? null,
    detailed_state: null,
    request_id: task.request_id,
    acknowledged_at: null,
    acknowledged_by: null,
    job_id: null,
    schedule_id: null,
    lifecycle_policy_id: null,
  };
}
