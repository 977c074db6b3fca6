import { cloudError, jsonReply, type Reply } from '../reply.js';
import type { RouteContext, Router } from '../router.js';
import { renderTask } from '../tasks.js';

function getTask(ctx: RouteContext): Reply {
  const id = ctx.params.task_id ?? '';
  const task = ctx.state.tasks.get(id);
  if (!task) return cloudError(404, `Task ${id} not found`, ctx.requestId);
  return jsonReply(200, renderTask(task, ctx.now));
}

/** Registers GET /cloud/v1/tasks/{task_id} (TaskSerializer; state derived from the emulator clock). */
export function registerTaskRoutes(router: Router): void {
  router.add({ method: 'GET', pattern: '/cloud/v1/tasks/{task_id}', product: 'cloud', handler: getTask });
}
