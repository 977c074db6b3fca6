import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { uuid } from '../fields.js';

const count = z.int().min(0, { error: 'must be a non-negative integer' });

const shape = () =>
  z.strictObject({
    where: z
      .strictObject({
        task_id: uuid.optional(),
        task_name: z.enum(['transcription', 'content-moderation']).optional(),
        status: z.enum(['FAILURE', 'PENDING', 'RECEIVED', 'RETRY', 'REVOKED', 'STARTED', 'SUCCESS']).optional(),
        date_created: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time such as 2026-05-01T00:00:00Z' }).optional(),
        search: z.string().optional(),
      })
      .default({})
      .describe('Filter of the platform AI task list; omitted = every task.'),
    max_count: count.optional().describe('At most this many tasks may match.'),
    min_count: count.optional().describe('At least this many tasks must match.'),
  });

/** streaming_ai_tasks check: the number of AI tasks matching `where` is within bounds. */
export const streamingAiTasksKind = defineKind({
  type: 'streaming_ai_tasks',
  kind: 'check',
  description: 'Check: the number of AI tasks matching where is within [min_count, max_count].',
  identity: [],
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.max_count === undefined && value.min_count === undefined) {
        ctx.addIssue({ code: 'custom', path: [], message: 'a streaming_ai_tasks check needs max_count, min_count or both' });
      } else if (value.min_count !== undefined && value.max_count !== undefined && value.min_count > value.max_count) {
        ctx.addIssue({
          code: 'custom',
          path: ['min_count'],
          message: `must not be greater than max_count (${value.max_count})`,
        });
      }
    }),
});
