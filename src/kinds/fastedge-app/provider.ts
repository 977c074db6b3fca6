import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

/**
 * FastEdge apps (synchronous API, no tasks). edgeform only adopts and deletes them. Deleting
 * an app removes it from every edge network and cannot be undone; its binary is kept. A
 * missing app answers 404 with no body at all.
 */
export const fastedgeApp = defineDeletableProvider({
  type: 'fastedge_app',
  idField: 'app_id',
  path: (desired) => apiPath`/fastedge/v1/apps/${desired.app_id}`,
  fields: { name: z.string(), status: z.number().int() },
});
