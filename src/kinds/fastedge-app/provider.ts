import { apiPath } from '../../api/path.js';
import { defineDeletableProvider } from '../adopt-or-delete.js';
import { listEndpointOf } from '../kind-list.js';
import { appImport } from './import.js';
import { appFields, appList } from './list.js';

/**
 * FastEdge apps (synchronous API, no tasks). edgeform only adopts and deletes them. Deleting
 * an app removes it from every edge network and cannot be undone; its binary is kept. A
 * missing app answers 404 with no body at all. Many apps are read together from the app list
 * (`{apps, count}`, `limit`/`offset`, up to 1,000 a page).
 */
export const fastedgeApp = defineDeletableProvider<'fastedge_app'>({
  type: 'fastedge_app',
  idField: 'app_id',
  path: (desired) => apiPath`/fastedge/v1/apps/${desired.app_id}`,
  fields: appFields,
  list: {
    group: () => 'apps',
    ...listEndpointOf(appList, () => ({})),
  },
  import: appImport,
});
