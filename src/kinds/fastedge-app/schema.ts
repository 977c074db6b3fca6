import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** fastedge_app: a FastEdge app by id; `ensure: absent` deletes it. */
export const fastedgeAppKind = defineKind({
  type: 'fastedge_app',
  kind: 'resource',
  description: 'A FastEdge app, by id; ensure: absent deletes it.',
  identity: ['app_id'],
  shape: z.strictObject({
    app_id: positiveId.describe('The FastEdge app id (integer).'),
    ensure: ensureDeletable,
  }),
});
