import { defineImport } from '../kind-list.js';
import { appList } from './list.js';

/** Importing FastEdge apps: every app of the account, each pinned by its id; named after the app. */
export const appImport = defineImport('fastedge_app', {
  scope: 'account',
  list: appList,
  itemId: (app) => String(app.id),
  // A non-numeric id fails the kind's schema, and the import names the item (see defineImport).
  attributes: (app) => ({ app_id: app.id as number }),
  blockName: (app) => app.name,
  facts: (app) => [['name', app.name]],
});
