import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';

const APPS = '/fastedge/v1/apps';

/**
 * FastEdge apps (synchronous API, no tasks). edgeform only adopts and deletes them. Deleting
 * an app removes it from every edge network and cannot be undone; its binary is kept. A
 * missing app answers 404 with no body at all. Many apps are read together from the app list
 * (`{apps, count}`, `limit`/`offset`, up to 1,000 a page).
 */
export const fastedgeApp = defineDeletableProvider({
  type: 'fastedge_app',
  idField: 'app_id',
  path: (desired) => apiPath`/fastedge/v1/apps/${desired.app_id}`,
  fields: { name: z.string(), status: z.number().int() },
  list: {
    group: () => 'apps',
    paging: { kind: 'offset', maxPageSize: 1000 },
    describe: () => `GET ${APPS}`,
    async fetchPage(ctx, _members, { limit, offset }, item) {
      // The vendor schema makes `count` optional: without it the list ends at a short page.
      const schema = z.looseObject({ apps: z.array(item), count: z.int().min(0).optional() });
      const page = (await ctx.api.get(APPS, { schema, query: { limit, offset, ordering: 'id' }, signal: ctx.signal })).body;
      return page.count === undefined ? { items: page.apps } : { items: page.apps, total: page.count };
    },
  },
});
