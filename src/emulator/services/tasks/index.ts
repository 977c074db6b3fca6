import { CLOUD_PRODUCT, cloudError, cloudPages, queryList } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { parseDate, parseIntStrict } from '../../format.js';
import { fail } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { defineService } from '../../service.js';
import { renderTask, taskState, type TaskRecord, type TaskState } from '../../tasks.js';

const TASK_STATES: readonly TaskState[] = ['NEW', 'RUNNING', 'FINISHED', 'ERROR'];

/** The vendor's default page of GET /cloud/v1/tasks when `limit` is not given (its maximum is 1000). */
const DEFAULT_TASK_PAGE = 10;

const badQuery = (ctx: RouteContext, message: string): never => fail(cloudError(400, message, ctx.requestId));

/** Every value of a repeatable integer filter (`project_id=1&project_id=2`); 400 for one that is not an integer. */
function intList(ctx: RouteContext, name: string): number[] {
  return queryList(ctx.query, name).map(
    (text) => parseIntStrict(text) ?? badQuery(ctx, `${name}: Input should be a valid integer, unable to parse string as an integer, got "${text}"`),
  );
}

/** A datetime filter as epoch ms, or undefined when absent; 400 when it is not an ISO datetime. */
function timeFilter(ctx: RouteContext, name: string): number | undefined {
  const text = ctx.query.get(name);
  if (text === null) return undefined;
  const ms = parseDate(text);
  return Number.isNaN(ms) ? badQuery(ctx, `${name}: Input should be a valid datetime, got "${text}"`) : ms;
}

/** The sort order: `order_by`, else the deprecated `sorting`, else newest first. */
function sortOrder(ctx: RouteContext): 'asc' | 'desc' {
  const text = ctx.query.get('order_by') ?? ctx.query.get('sorting') ?? 'desc';
  return text === 'asc' || text === 'desc' ? text : badQuery(ctx, `order_by: Input should be 'asc' or 'desc', got "${text}"`);
}

/** The filters of the task list, read in the vendor's order of checks. */
function readTaskQuery(ctx: RouteContext) {
  const projects = intList(ctx, 'project_id');
  const regions = intList(ctx, 'region_id');
  const states = queryList(ctx.query, 'state').map((s) =>
    (TASK_STATES as readonly string[]).includes(s) ? (s as TaskState) : badQuery(ctx, `state: Input should be 'NEW', 'RUNNING', 'FINISHED' or 'ERROR', got "${s}"`),
  );
  const types = queryList(ctx.query, 'task_type');
  const from = timeFilter(ctx, 'from_timestamp');
  const to = timeFilter(ctx, 'to_timestamp');
  const acknowledged = ctx.query.get('is_acknowledged');
  if (acknowledged !== null && !/^(true|false|1|0)$/i.test(acknowledged)) badQuery(ctx, `is_acknowledged: Input should be a valid boolean, got "${acknowledged}"`);
  return { projects, regions, states, types, from, to, acknowledged, order: sortOrder(ctx) };
}

/**
 * The cloud tasks (TaskViewSet). GET /cloud/v1/tasks: the client's tasks, filtered by every
 * repeatable `project_id`, `region_id` and `state`, by `task_type`, by creation time
 * (`from_timestamp` and `to_timestamp`, both inclusive) and by `is_acknowledged` (emulated tasks
 * are never acknowledged), ordered by creation (`order_by`, or the deprecated `sorting`: `desc`
 * by default; tasks are kept in creation order, and the sort is stable among tasks of one ms),
 * paged with `limit` (default 10, at most 1000) and `offset`, answered `{count, results}`
 * (TaskCollectionSerializer). GET /cloud/v1/tasks/{task_id}: TaskSerializer, its state derived
 * from the emulator clock.
 */
const tasks = defineCollection<object, TaskRecord, undefined, ReturnType<typeof readTaskQuery>>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/tasks',
  idParam: 'task_id',
  noun: 'Task',
  store: (ctx) => ctx.state.tasks,
  idOf: (task) => task.id,
  list: {
    paging: cloudPages(1000, DEFAULT_TASK_PAGE),
    query: readTaskQuery,
    where: (task, q, ctx) =>
      (q.projects.length === 0 || q.projects.includes(task.project_id)) &&
      (q.regions.length === 0 || q.regions.includes(task.region_id)) &&
      (q.states.length === 0 || q.states.includes(taskState(task, ctx.now))) &&
      (q.types.length === 0 || q.types.includes(task.task_type)) &&
      (q.from === undefined || task.created_at >= q.from) &&
      (q.to === undefined || task.created_at <= q.to) &&
      (q.acknowledged === null || /^(false|0)$/i.test(q.acknowledged)),
    order: (a, b, q) => (q.order === 'asc' ? a.created_at - b.created_at : b.created_at - a.created_at),
    render: (task, ctx) => renderTask(task, ctx.now),
  },
  get: (task, ctx) => renderTask(task, ctx.now),
});

/**
 * Cloud tasks: GET /cloud/v1/tasks (the list, with the vendor's filters) and
 * GET /cloud/v1/tasks/{task_id} (TaskSerializer; the state derived from the emulator clock). The
 * tasks themselves are the shared task engine's (tasks.ts), started by the other cloud services;
 * fixtures cannot seed them.
 */
export const tasksService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: {},
  createState: () => ({}),
  load() {},
  // `settled`: whether the task's effect has been applied, which happens when the clock reaches its finish.
  dump: (state, now) => ({ tasks: [...state.tasks.values()].map((task) => ({ ...task, settled: task.finish_at <= now })) }),
  routes: tasks.routes,
  mutationKinds: [],
  taskTargets: [],
});
