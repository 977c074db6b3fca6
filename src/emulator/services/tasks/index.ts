import { CLOUD_PRODUCT, cloudError } from '../../cloud-common.js';
import { jsonReply, type Reply } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { defineService } from '../../service.js';
import { renderTask } from '../../tasks.js';

function getTask(ctx: RouteContext): Reply {
  const id = ctx.params.task_id ?? '';
  const task = ctx.state.tasks.get(id);
  if (!task) return cloudError(404, `Task ${id} not found`, ctx.requestId);
  return jsonReply(200, renderTask(task, ctx.now));
}

/**
 * Cloud tasks: GET /cloud/v1/tasks/{task_id} (TaskSerializer; the state derived from the
 * emulator clock). The tasks themselves are the shared task engine's (tasks.ts), started by the
 * other cloud services; fixtures cannot seed them.
 */
export const tasksService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: {},
  createState: () => ({}),
  load() {},
  // `settled`: whether the task's effect has been applied, which happens when the clock reaches its finish.
  dump: (state, now) => ({ tasks: [...state.tasks.values()].map((task) => ({ ...task, settled: task.finish_at <= now })) }),
  routes: [{ method: 'GET', pattern: '/cloud/v1/tasks/{task_id}', handler: getTask }],
  mutationKinds: [],
  taskTargets: [],
});
