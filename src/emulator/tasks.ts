import { formatTaskDate, newUuid } from './format.js';
import type { EmulatorState, TaskResourceKind } from './store.js';
import { applyTagsPatch, userTagMap, type TagsPatch } from './tags.js';

/** What a task does to its resource when it finishes successfully. */
export type TaskEffect =
  | {
      type: 'update_floating_ip';
      /** Tags merge patch; undefined when the request did not mention tags. */
      tags?: TagsPatch | undefined;
      /** New association; undefined when the request did not mention port_id. */
      port?: { port_id: string | null; fixed_ip_address: string | null } | undefined;
    }
  | { type: 'resize_vm'; flavor_id: string; previous_status: string; read_lag_ms: number }
  | { type: 'upgrade_k8s_cluster_v2'; version: string; previous_status: 'Provisioned' | 'Provisioning' | 'Deleting' };

/** Cloud task states, as GET /cloud/v1/tasks/{task_id} reports them. */
export type TaskState = 'NEW' | 'RUNNING' | 'FINISHED' | 'ERROR';

/**
 * A cloud task. Its state is never stored: it is derived from the emulator clock
 * (NEW at creation, RUNNING from 1 ms later, FINISHED or ERROR at `finish_at`), and its
 * effect is applied exactly once, when the state settles (`settled`).
 */
export interface TaskRecord {
  id: string;
  task_type: string;
  project_id: number;
  region_id: number;
  user_id: number;
  client_id: number;
  request_id: string;
  resource_kind: TaskResourceKind;
  /** Floating IP or instance id, or the cluster key `project/region/name`. */
  resource_id: string;
  created_at: number;
  finish_at: number;
  /** When set, the task ends in ERROR with this message and leaves the resource unchanged. */
  planned_error: string | null;
  effect: TaskEffect;
  /** The request body that started the task (TaskSerializer `data`). */
  data: unknown;
  settled: boolean;
}

/** What a route knows when it starts a task. */
export interface StartTaskInput {
  taskType: string;
  kind: TaskResourceKind;
  resourceId: string;
  projectId: number;
  regionId: number;
  effect: TaskEffect;
  data: unknown;
  requestId: string;
}

/**
 * Starts a task on a resource: locks it (task_id), shows the in-progress status, consumes the
 * resource's `next_task_error`, and queues the task to settle `durationMs` later. `draw` (the
 * faults' TaskDraw) gives the task's id and an injected error; without it the id is random.
 * The resource's own `next_task_error` wins over an injected one.
 */
export function startTask(state: EmulatorState, input: StartTaskInput, now: number, durationMs: number, draw?: { id: string; error: string | null }): TaskRecord {
  const target = state.findTaskTarget(input.kind, input.resourceId);
  if (!target) throw new Error(`startTask: no ${input.kind} ${input.resourceId}`);
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
    planned_error: target.next_task_error ?? draw?.error ?? null,
    effect: input.effect,
    data: input.data,
    settled: false,
  };
  target.next_task_error = null;
  target.task_id = task.id;
  if (input.effect.type === 'resize_vm' && 'task_state' in target) {
    target.status = 'RESIZE';
    target.task_state = 'resize_prep';
  } else if (input.effect.type === 'upgrade_k8s_cluster_v2' && 'pools' in target) {
    target.status = 'Provisioning';
  }
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
export function settleTasks(state: EmulatorState, now: number): void {
  const queue = state.pendingTasks;
  let due = 0;
  while (due < queue.length && (queue[due] as TaskRecord).finish_at <= now) due++;
  if (due === 0) return;
  for (const task of queue.splice(0, due)) finishTask(state, task);
}

function finishTask(state: EmulatorState, task: TaskRecord): void {
  task.settled = true;
  const ok = task.planned_error === null;
  const effect = task.effect;
  switch (effect.type) {
    case 'update_floating_ip': {
      const fip = state.floatingIps.get(task.resource_id);
      if (!fip) return;
      if (fip.task_id === task.id) fip.task_id = null;
      if (!ok) return;
      const after: Record<string, unknown> = {};
      if (effect.tags !== undefined) {
        fip.tags = applyTagsPatch(fip.tags, effect.tags);
        after.tags = userTagMap(fip.tags);
      }
      if (effect.port) {
        fip.port_id = effect.port.port_id;
        fip.fixed_ip_address = effect.port.fixed_ip_address;
        fip.status = effect.port.port_id === null ? 'DOWN' : 'ACTIVE';
        after.port_id = fip.port_id;
        after.fixed_ip_address = fip.fixed_ip_address;
      }
      fip.updated_at = task.finish_at;
      state.recordMutation(task.finish_at, 'floating_ip', fip.id, task.task_type, after, task.id);
      return;
    }
    case 'resize_vm': {
      const vm = state.instances.get(task.resource_id);
      if (!vm) return;
      if (vm.task_id === task.id) vm.task_id = null;
      vm.task_state = null;
      vm.status = effect.previous_status;
      if (!ok) return;
      if (effect.read_lag_ms > 0 && vm.flavor_id !== effect.flavor_id) {
        vm.stale_flavor = { flavor_id: vm.flavor_id, until: task.finish_at + effect.read_lag_ms };
      }
      vm.flavor_id = effect.flavor_id;
      state.recordMutation(task.finish_at, 'instance', vm.id, task.task_type, { flavor_id: vm.flavor_id }, task.id);
      return;
    }
    case 'upgrade_k8s_cluster_v2': {
      const cluster = state.k8sClusters.get(task.resource_id);
      if (!cluster) return;
      if (cluster.task_id === task.id) cluster.task_id = null;
      cluster.status = effect.previous_status === 'Provisioning' ? 'Provisioned' : effect.previous_status;
      if (!ok) return;
      cluster.version = effect.version;
      state.recordMutation(task.finish_at, 'k8s_cluster', task.resource_id, task.task_type, { version: cluster.version }, task.id);
      return;
    }
  }
}

/** The state of a task at `now`, derived from the clock. */
export function taskState(task: TaskRecord, now: number): TaskState {
  if (task.settled || now >= task.finish_at) return task.planned_error === null ? 'FINISHED' : 'ERROR';
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
    created_resources: null,
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
