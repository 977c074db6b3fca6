import { z } from 'zod';
import { EdgeformError } from '../../errors.js';
import { readAllPages } from '../paging.js';
import type { CheckProvider } from '../provider.js';

/** The fields of a page of the AI task list (ai_tasks_list) edgeform reads; `next` is `page=<n>` or null. */
const aiTaskPageAnswer = z.looseObject({
  next: z.string().nullish(),
  results: z.array(z.looseObject({ task_id: z.string() })),
});

/** Results per page requested while counting. */
const PAGE_SIZE = 100;

/** The AI task list's path. */
const AI_TASKS = '/streaming/ai/tasks';

/** The page a `next` link names (`page=<n>`, alone or in a URL's query), or null when it names none. */
function nextPage(next: string | null | undefined): string | null {
  if (!next) return null;
  return new URLSearchParams(next.includes('?') ? next.slice(next.indexOf('?') + 1) : next).get('page') || null;
}

/**
 * Check: the number of streaming AI tasks matching filters stays within bounds. Sends every
 * filter of the list endpoint (task_id, task_name, status, date_created, search), follows the
 * `next` pages (`page=<n>`) through the one paging loop (numbered pages linked by `next`), and
 * compares the number of tasks found with max_count/min_count. A list that repeats a page cannot
 * be counted: an error (EDGEFORM_PAGING), as one that never ends is.
 */
export const streamingAiTasks: CheckProvider<'streaming_ai_tasks'> = {
  kind: 'check',
  type: 'streaming_ai_tasks',

  async evaluate(ctx, desired) {
    const filters: Record<string, string> = {};
    for (const [key, value] of Object.entries(desired.where)) if (value !== undefined) filters[key] = String(value);
    const describe = `GET ${AI_TASKS}`;
    const { items: matched, read } = await readAllPages<{ task_id: string }>(
      {
        paging: { kind: 'pages' },
        describe,
        itemId: (task) => task.task_id,
        async fetchPage({ index, next }) {
          const query = { ...filters, page: next ?? String(index + 1), limit: String(PAGE_SIZE) };
          const body = (await ctx.api.get(AI_TASKS, { schema: aiTaskPageAnswer, query, signal: ctx.signal })).body;
          return { items: body.results, next: nextPage(body.next) };
        },
      },
      {},
    );
    if (read.end === 'repeated') throw new EdgeformError('EDGEFORM_PAGING', `the list ${describe} repeated a page; edgeform stopped following it`);
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
