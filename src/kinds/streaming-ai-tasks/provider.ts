import { z } from 'zod';
import { EdgeformError } from '../../errors.js';
import type { CheckProvider } from '../provider.js';

/** The fields of a page of the AI task list (ai_tasks_list) edgeform reads; `next` is `page=<n>` or null. */
const aiTaskPageAnswer = z.looseObject({
  next: z.string().nullish(),
  results: z.array(z.looseObject({ task_id: z.string() })),
});

/** Results per page requested while counting, and the most pages followed before giving up. */
const PAGE_SIZE = 100;
const MAX_PAGES = 1000;

/**
 * Check: the number of streaming AI tasks matching filters stays within bounds. Sends every
 * filter of the list endpoint (task_id, task_name, status, date_created, search), follows the
 * `next` pages (`page=<n>`), and compares the number of tasks found with max_count/min_count.
 */
export const streamingAiTasks: CheckProvider<'streaming_ai_tasks'> = {
  kind: 'check',
  type: 'streaming_ai_tasks',

  async evaluate(ctx, desired) {
    const filters: Record<string, string> = {};
    for (const [key, value] of Object.entries(desired.where)) if (value !== undefined) filters[key] = String(value);
    const matched: { task_id: string }[] = [];
    let page = 1;
    for (let pages = 0; ; pages++) {
      if (pages >= MAX_PAGES) throw new EdgeformError('EDGEFORM_PAGING', `streaming AI task list did not end after ${MAX_PAGES} pages`);
      const query = { ...filters, page: String(page), limit: String(PAGE_SIZE) };
      const body = (await ctx.api.get('/streaming/ai/tasks', { schema: aiTaskPageAnswer, query, signal: ctx.signal })).body;
      // Not push(...results): a spread of a huge page would overflow the call stack.
      for (const task of body.results) matched.push(task);
      const next = body.next ? new URLSearchParams(body.next.includes('?') ? body.next.slice(body.next.indexOf('?') + 1) : body.next).get('page') : null;
      if (!next || body.results.length === 0) break;
      page = Number(next);
    }
    const count = matched.length;
    const bounds = [desired.min_count !== undefined ? `min ${desired.min_count}` : '', desired.max_count !== undefined ? `max ${desired.max_count}` : '']
      .filter(Boolean)
      .join(', ');
    const shown = matched.slice(0, 5).map((t) => t.task_id);
    const sample = count > 0 ? `: ${shown.join(', ')}${count > shown.length ? `, … (${count - shown.length} more)` : ''}` : '';
    const message = `${count} ${count === 1 ? 'task matches' : 'tasks match'} (${bounds})${sample}`;
    const details = { where: desired.where, count, task_ids: matched.map((t) => t.task_id) };
    const tooMany = desired.max_count !== undefined && count > desired.max_count;
    const tooFew = desired.min_count !== undefined && count < desired.min_count;
    return { status: tooMany || tooFew ? 'fail' : 'pass', message, details };
  },
};
